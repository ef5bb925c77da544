package dev.onejob.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.json.Json;
import dev.onejob.ingest.http.FrontDoor;
import dev.onejob.testing.Await;
import dev.onejob.testing.Trickler;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * No owner can hold the API from the others: an instance of four server threads whose owners may each have two
 * waiting requests and two event streams. Over a cap an owner gets 429 {@code owner-cap-reached} and another owner is
 * served; clients trickling large bodies hold no thread, so the service keeps answering everyone else at once.
 */
class OwnerCapsIT {
    private static final IngestFixture FIXTURE = IngestFixture.shared();
    private static IngestService capped;
    private static final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final List<Socket> sockets = new ArrayList<>();
    private final Trickler trickler = new Trickler();

    @BeforeAll
    static void startACappedInstance() throws Exception {
        Path tokens = new TokensFile().token("alice", "[submit]", IngestFixture.ALICE)
                .token("bob", "[submit]", IngestFixture.BOB).token("ops", "[operate]", IngestFixture.OPS)
                .write("onejob-caps");
        capped = IngestFixture.startInstance("ingest-caps-test", tokens, 2, Map.of("HTTP_THREADS", "4"), 256 * 1024,
                FrontDoor.defaults().withRatePerOwner(0).withPerOwner(0, 2, 2));
    }

    @AfterAll
    static void stop() {
        capped.close();
    }

    @AfterEach
    void closeClients() throws IOException {
        trickler.close();
        for (Socket socket : sockets) {
            socket.close();
        }
    }

    @Test
    void anOwnerOverItsWaitsIsRefusedWhileAnotherIsServedAndItsWaitsComeBackWhenAnswered() throws Exception {
        // (streams of another test end once their jobs are cancelled)
        Await.until(Duration.ofSeconds(30), "no request of another test follows a job", () -> watching() == 0);
        int before = watching();
        String alicesJob = created(IngestFixture.ALICE);
        String bobsJob = created(IngestFixture.BOB);
        // alice holds two waits on her job, which nothing will finish
        List<CompletableFuture<HttpResponse<String>>> holding = List.of(waitFor(IngestFixture.ALICE, alicesJob, 10),
                waitFor(IngestFixture.ALICE, alicesJob, 10));
        Await.until(Duration.ofSeconds(10), "alice's two waits held", () -> watching() == before + 2);

        // a third wait of alice's is refused at once, with the cap named; bob waits as usual
        HttpResponse<String> refused = send(IngestFixture.ALICE, "GET", "/v1/jobs/" + alicesJob, "wait=3", null);
        assertEquals(429, refused.statusCode(), refused.body());
        assertEquals("1", refused.headers().firstValue("Retry-After").orElse(null));
        assertTrue(refused.body().contains("owner-cap-reached") && refused.body().contains("HTTP_MAX_WAITS_PER_OWNER"),
                refused.body());
        // a submission waits for its commit: refused too, before anything is written
        HttpResponse<String> submission = send(IngestFixture.ALICE, "POST", "/v1/jobs", null,
                IngestFixture.request("over the cap"));
        assertEquals(429, submission.statusCode(), submission.body());
        assertEquals(200, send(IngestFixture.BOB, "GET", "/v1/jobs/" + bobsJob, "wait=1", null).statusCode());

        // once alice's waits are answered, she may wait again
        for (CompletableFuture<HttpResponse<String>> wait : holding) {
            assertEquals(200, wait.get(20, TimeUnit.SECONDS).statusCode());
        }
        assertEquals(200, send(IngestFixture.ALICE, "GET", "/v1/jobs/" + alicesJob, "wait=1", null).statusCode());
    }

    @Test
    void anOwnerOverItsEventStreamsIsRefusedWhileAnotherIsServed() throws Exception {
        String alicesJob = created(IngestFixture.ALICE);
        String bobsJob = created(IngestFixture.BOB);
        assertTrue(openStream(IngestFixture.ALICE, alicesJob).startsWith("HTTP/1.1 200"));
        assertTrue(openStream(IngestFixture.ALICE, alicesJob).startsWith("HTTP/1.1 200"));

        String third = openStream(IngestFixture.ALICE, alicesJob);
        assertTrue(third.startsWith("HTTP/1.1 429"), third);
        assertTrue(third.contains("HTTP_MAX_STREAMS_PER_OWNER"), third);
        assertTrue(openStream(IngestFixture.BOB, bobsJob).startsWith("HTTP/1.1 200"), "bob's stream is served");
        // and the streams end with their jobs
        for (String[] job : new String[][] {{IngestFixture.ALICE, alicesJob}, {IngestFixture.BOB, bobsJob}}) {
            assertEquals(200, send(job[0], "POST", "/v1/jobs/" + job[1] + "/cancel", null, "{}").statusCode());
        }
    }

    @Test
    void fortyEightTrickledBodiesLeaveHealthAndAnotherOwnersSubmissionsAnsweredWithinASecond() throws Exception {
        // given 48 clients of alice's, each trickling a 200 kB submission one byte every 100 ms, on 4 server threads
        for (int i = 0; i < 48; i++) {
            Socket socket = new Socket("127.0.0.1", capped.httpPort());
            sockets.add(socket);
            socket.getOutputStream().write(("POST /v1/jobs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                    + IngestFixture.ALICE + "\r\nIdempotency-Key: trickle-" + UUID.randomUUID()
                    + "\r\nContent-Type: application/json\r\nContent-Length: 200000\r\n\r\n{")
                    .getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            trickler.trickle(socket);
        }

        // then liveness and bob's submissions are answered, each within a second
        for (int i = 0; i < 5; i++) {
            HttpResponse<String> live = http.send(HttpRequest.newBuilder(uri("/health/live"))
                    .timeout(Duration.ofSeconds(1)).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, live.statusCode());
            HttpResponse<String> submitted = http.send(HttpRequest.newBuilder(uri("/v1/jobs"))
                    .timeout(Duration.ofSeconds(1)).header("Authorization", "Bearer " + IngestFixture.BOB)
                    .header("Idempotency-Key", "calm-" + UUID.randomUUID()).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(IngestFixture.request("calm"))).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(201, submitted.statusCode(), submitted.body());
        }
    }

    /** Requests of this instance following a job now (waits and streams), as an operator reads it. */
    private static int watching() {
        HttpResponse<String> stats = send(IngestFixture.OPS, "GET", "/v1/stats", null, null);
        assertEquals(200, stats.statusCode(), stats.body());
        return Json.parse(stats.body()).path("watching").asInt();
    }

    private String openStream(String token, String jobId) throws IOException {
        Socket socket = new Socket("127.0.0.1", capped.httpPort());
        sockets.add(socket);
        socket.setSoTimeout(10_000);
        socket.getOutputStream().write(("GET /v1/jobs/" + jobId + "/events HTTP/1.1\r\nHost: x\r\nAuthorization: "
                + "Bearer " + token + "\r\nAccept: text/event-stream\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
        InputStream in = socket.getInputStream();
        StringBuilder head = new StringBuilder();
        // the head, and for a refusal its (short, sized) body
        while (!head.toString().contains("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                break;
            }
            head.append((char) b);
        }
        if (head.toString().contains("Content-Length")) {
            head.append(new String(in.readNBytes(in.available() > 0 ? in.available() : 400), StandardCharsets.UTF_8));
        }
        return head.toString();
    }

    private static String created(String token) {
        HttpResponse<String> response = send(token, "POST", "/v1/jobs", null, IngestFixture.request("capped"));
        assertEquals(201, response.statusCode(), response.body());
        return Json.parse(response.body()).path("id").asText();
    }

    private static CompletableFuture<HttpResponse<String>> waitFor(String token, String jobId, int seconds) {
        return http.sendAsync(request(token, "GET", "/v1/jobs/" + jobId, "wait=" + seconds, null).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> send(String token, String method, String path, String prefer, String body) {
        try {
            return http.send(request(token, method, path, prefer, body).build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalStateException(method + " " + path + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static HttpRequest.Builder request(String token, String method, String path, String prefer, String body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + token)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            request.header("Content-Type", "application/json").header("Idempotency-Key", "caps-" + UUID.randomUUID());
        }
        if (prefer != null) {
            request.header("Prefer", prefer);
        }
        return request;
    }

    private static URI uri(String path) {
        return URI.create("http://127.0.0.1:" + capped.httpPort() + path);
    }
}
