package dev.onejob.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.json.Json;
import dev.onejob.ingest.http.FrontDoor;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Event streams ({@code GET /v1/jobs/{id}/events}, {@code text/event-stream}) leave nothing watched behind: neither
 * a stream that ends at once because its job is finished, nor one whose client hangs up while nothing is being
 * written. Run against an ingest instance of its own, so its {@code onejob_http_watching} gauge counts this test's
 * requests only (no worker runs in these tests, so a job stays QUEUED until the test finishes it through the
 * ledger). The streams are spread over {@link #OWNERS} owners, each with a finished and a live job, so that no owner
 * comes near its cap of open event streams however late the abandoned ones are found.
 */
class EventStreamReleaseIT {
    private static final IngestFixture FIXTURE = IngestFixture.shared();
    private static final int STREAMS = 1_000;
    private static final int PARALLEL = 8;
    private static final int OWNERS = 25;
    /**
     * Jetty does not report a client that hangs up while nothing is written: its stream is found by a heartbeat
     * (every 15 s), the second after it left, since the first write into the closed socket still succeeds.
     */
    private static final Duration RELEASED_WITHIN = Duration.ofSeconds(45);
    private static IngestService ingest;

    @BeforeAll
    static void startInstance() throws Exception {
        TokensFile file = new TokensFile().token("ops", "[operate]", IngestFixture.OPS);
        for (int i = 0; i < OWNERS; i++) {
            file.token(owner(i), "[submit]", token(i));
        }
        Path tokens = file.write("onejob-streams");
        ingest = IngestFixture.startInstance("ingest-streams-test", tokens, 4, Map.of("HTTP_THREADS", "8"), 64 * 1024,
                FrontDoor.defaults().withRatePerOwner(0)
                        // Every request here must be served, not shed, on however busy a machine.
                        .withShedding(Duration.ofMinutes(1), FrontDoor.DEFAULT_SHED_BACKLOG));
    }

    @AfterAll
    static void stopInstance() {
        ingest.close();
    }

    @Test
    void streamsOfAFinishedJobAndStreamsTheirClientsAbandonLeaveNothingWatched() throws Exception {
        // given the instance's requests-following-a-job gauge before, and for each owner a finished job and one
        // that stays QUEUED
        int baseline = watching();
        List<String> finished = new ArrayList<>();
        List<String> live = new ArrayList<>();
        for (int i = 0; i < OWNERS; i++) {
            finished.add(created(i, "finished-" + UUID.randomUUID()));
            FIXTURE.succeedFirstAttempt(finished.get(i));
            live.add(created(i, "live-" + UUID.randomUUID()));
        }
        long started = System.nanoTime();

        // when 1,000 clients follow a finished job, each stream read to its end
        List<String> ends = run(i -> follow(i % OWNERS, finished.get(i % OWNERS), true));
        for (String end : ends) {
            assertTrue(end.startsWith("HTTP/1.1 200") && end.contains("event: job.finished"), end);
        }
        // and 1,000 clients follow a live job and hang up as soon as the answer's head arrives
        List<String> heads = run(i -> follow(i % OWNERS, live.get(i % OWNERS), false));
        for (String head : heads) {
            assertTrue(head.startsWith("HTTP/1.1 200") && head.contains("text/event-stream"), head);
        }
        long opened = System.nanoTime();

        // then every one of them is released: the gauge is back where it was
        int atOpen = watching();
        int now = atOpen;
        long deadline = System.nanoTime() + RELEASED_WITHIN.toNanos();
        while (now != baseline && System.nanoTime() < deadline) {
            Thread.sleep(250);
            now = watching();
        }
        assertEquals(baseline, now, "requests still following a job " + RELEASED_WITHIN.toSeconds()
                + " s after the streams were opened (" + atOpen + " right after)");
        System.out.printf("event=streams_released streams=%d open_ms=%d watching_after_open=%d released_after_ms=%d%n",
                2 * STREAMS, (opened - started) / 1_000_000, atOpen, (System.nanoTime() - opened) / 1_000_000);
    }

    /** The job's events as a stream: to its end, or (abandon) only the answer's head, and then the socket closed. */
    private static String follow(int owner, String jobId, boolean toTheEnd) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", ingest.httpPort()), 5_000);
            socket.setSoTimeout(20_000);
            socket.getOutputStream().write(("GET /v1/jobs/" + jobId + "/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Authorization: Bearer " + token(owner) + "\r\nAccept: text/event-stream\r\n"
                    + "Connection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream read = new ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                read.write(buffer, 0, n);
                if (!toTheEnd && read.toString(StandardCharsets.ISO_8859_1).contains("\r\n\r\n")) {
                    break;
                }
            }
            return read.toString(StandardCharsets.UTF_8);
        }
    }

    /** {@link #STREAMS} calls of {@code one}, {@link #PARALLEL} at a time; their results in order. */
    private static List<String> run(IOFunction one) throws Exception {
        ExecutorService clients = Executors.newFixedThreadPool(PARALLEL);
        try {
            List<Future<String>> calls = new ArrayList<>();
            for (int i = 0; i < STREAMS; i++) {
                int n = i;
                calls.add(clients.submit(() -> one.apply(n)));
            }
            List<String> results = new ArrayList<>();
            for (Future<String> call : calls) {
                results.add(call.get());
            }
            return results;
        } finally {
            clients.shutdownNow();
        }
    }

    private interface IOFunction {
        String apply(int i) throws IOException;
    }

    /** The instance's {@code onejob_http_watching} gauge, from {@code /metrics} (asked with an operator's token). */
    private static int watching() {
        HttpResponse<String> metrics = FIXTURE.http.sendAsync(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + ingest.httpPort() + "/metrics"))
                .header("Authorization", "Bearer " + IngestFixture.OPS).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString()).join();
        assertEquals(200, metrics.statusCode(), metrics.body());
        return metrics.body().lines().filter(line -> line.startsWith("onejob_http_watching"))
                .mapToInt(line -> (int) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .findFirst().orElseThrow(() -> new AssertionError("no onejob_http_watching in /metrics"));
    }

    private static String owner(int i) {
        return "streams-" + i;
    }

    private static String token(int i) {
        return "streams-" + i + "-token-0123456789";
    }

    /** A job of owner {@code i}, submitted to this test's instance. */
    private static String created(int i, String key) {
        HttpResponse<String> response = FIXTURE.http.sendAsync(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + ingest.httpPort() + "/v1/jobs"))
                .header("Authorization", "Bearer " + token(i)).header("Idempotency-Key", key)
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(IngestFixture.request("follow"))).build(),
                HttpResponse.BodyHandlers.ofString()).join();
        assertEquals(201, response.statusCode(), response.body());
        return Json.parse(response.body()).path("id").asText();
    }
}
