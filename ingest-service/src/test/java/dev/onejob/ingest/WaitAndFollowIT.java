package dev.onejob.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.json.Json;
import dev.onejob.ingest.http.FrontDoor;
import dev.onejob.testing.Await;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Waiting for a job ({@code Prefer: wait}) and following it ({@code /v1/jobs/{id}/events}), against the shared
 * ingest service, and against a second instance whose batched recheck is ten minutes away: anything that wakes it
 * sooner can only be its {@code job-results} subscription. Jobs are moved on through the ledger, as a worker and
 * the reconciler would; the fixture's relay publishes their results.
 */
class WaitAndFollowIT {
    private static final IngestFixture FIXTURE = IngestFixture.shared();
    private static IngestService slowRecheck;

    @BeforeAll
    static void startSecondInstance() throws Exception {
        Path tokens = new TokensFile().token("alice", "[submit]", IngestFixture.ALICE).write("onejob-wait");
        FrontDoor frontDoor = new FrontDoor(2, 64, 0, FrontDoor.DEFAULT_SHED_QUEUE_WAIT,
                FrontDoor.DEFAULT_SHED_BACKLOG, Duration.ofSeconds(60), Duration.ofMinutes(10));
        slowRecheck = IngestFixture.startInstance("ingest-wait-test", tokens, 2, Map.of("HTTP_THREADS", "4",
                "HTTP_IDLE_TIMEOUT", "1s"), 64 * 1024, frontDoor);
    }

    @AfterAll
    static void stopSecondInstance() {
        slowRecheck.close();
    }

    private static String created(HttpResponse<String> response) {
        assertEquals(201, response.statusCode(), response.body());
        return Json.parse(response.body()).path("id").asText();
    }

    private static CompletableFuture<HttpResponse<String>> sendAsync(URI uri, String method, String key,
                                                                     String prefer, String body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60))
                .header("Authorization", "Bearer " + IngestFixture.ALICE).header("Prefer", prefer)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (key != null) {
            request.header("Idempotency-Key", key).header("Content-Type", "application/json");
        }
        return FIXTURE.http.sendAsync(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static URI slow(String path) {
        return URI.create("http://127.0.0.1:" + slowRecheck.httpPort() + path);
    }

    @Test
    void aSubmissionThatWaitsIsAnsweredWithTheFinishedJobAndADuplicateWaitsOnTheSameJob() throws Exception {
        // given two submissions of one intent, both asking to wait up to 30 s, on the instance that rechecks rarely
        String key = "wait-" + UUID.randomUUID();
        var first = sendAsync(slow("/v1/jobs"), "POST", key, "wait=30", IngestFixture.request("I loved it"));
        Await.until(Duration.ofSeconds(20), "the job to exist", () ->
                FIXTURE.ledger.lookups().jobForKey("alice", key).isPresent());
        var second = sendAsync(slow("/v1/jobs"), "POST", key, "wait=30", IngestFixture.request("I loved it"));
        String jobId = FIXTURE.ledger.lookups().jobForKey("alice", key).orElseThrow().id().toString();
        Thread.sleep(300);
        assertFalse(first.isDone(), "the first submission answered before its job finished");

        // when the job finishes (its result goes out on job-results)
        FIXTURE.succeedFirstAttempt(jobId);

        // then both are answered with the finished job, well before their wait is over and long before a recheck
        HttpResponse<String> a = first.get(20, TimeUnit.SECONDS);
        HttpResponse<String> b = second.get(20, TimeUnit.SECONDS);
        assertEquals(201, a.statusCode(), a.body());
        assertEquals(200, b.statusCode(), b.body());
        for (HttpResponse<String> answer : List.of(a, b)) {
            JsonNode job = Json.parse(answer.body());
            assertEquals(jobId, job.path("id").asText());
            assertEquals("SUCCEEDED", job.path("status").asText(), answer.body());
            assertEquals("wait=30", answer.headers().firstValue("Preference-Applied").orElse(""));
        }
        assertEquals("true", b.headers().firstValue("Idempotent-Replayed").orElse(""));
    }

    @Test
    void aWaitLongerThanTheIdleTimeoutEndsWithTheJobAsItIsThen() throws Exception {
        // given a job that will not finish, and a reader asking to wait 3 s on an instance whose idle timeout is 1 s
        String jobId = created(FIXTURE.submit(IngestFixture.ALICE, "idle-" + UUID.randomUUID(),
                IngestFixture.request("slow")));
        long started = System.nanoTime();

        // when it waits
        HttpResponse<String> answer = sendAsync(slow("/v1/jobs/" + jobId), "GET", null, "wait=3", null)
                .get(30, TimeUnit.SECONDS);

        // then the answer comes after the wait, not cut off by the idle timeout, with the job still queued
        assertEquals(200, answer.statusCode(), answer.body());
        assertEquals("QUEUED", Json.parse(answer.body()).path("status").asText());
        assertEquals("wait=3", answer.headers().firstValue("Preference-Applied").orElse(""));
        assertTrue(System.nanoTime() - started >= TimeUnit.SECONDS.toNanos(3), "answered before the wait was over");
    }

    @Test
    void aFinishedJobIsAnsweredAtOnceWhateverTheWait() {
        String jobId = created(FIXTURE.submit(IngestFixture.ALICE, "done-" + UUID.randomUUID(),
                IngestFixture.request("done")));
        FIXTURE.succeedFirstAttempt(jobId);
        var answer = FIXTURE.send("GET", "/v1/jobs/" + jobId, IngestFixture.ALICE, Map.of("Prefer", "wait=60"), null);
        assertEquals(200, answer.statusCode(), answer.body());
        assertEquals("SUCCEEDED", Json.parse(answer.body()).path("status").asText());
        assertEquals("wait=60", answer.headers().firstValue("Preference-Applied").orElse(""));
    }

    @Test
    void theEventStreamSendsEachTransitionAsItHappensAndEndsWhenNothingMoreCan() throws Exception {
        // given a job and a client following its events
        String jobId = created(FIXTURE.submit(IngestFixture.ALICE, "sse-" + UUID.randomUUID(),
                IngestFixture.request("follow")));
        HttpRequest request = HttpRequest.newBuilder(FIXTURE.uri("/v1/jobs/" + jobId + "/events"))
                .header("Authorization", "Bearer " + IngestFixture.ALICE).header("Accept", "text/event-stream")
                .build();
        HttpResponse<InputStream> response = FIXTURE.http.send(request,
                HttpResponse.BodyHandlers.ofInputStream());
        assertEquals(200, response.statusCode());
        assertTrue(response.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream"));
        List<String[]> frames = new ArrayList<>();
        Thread reader = new Thread(() -> readFrames(response.body(), frames));
        reader.start();
        Await.until(Duration.ofSeconds(10), "the created event", () -> types(frames).contains("attempt.created"));

        // when the attempt starts, and later succeeds
        UUID attempt = FIXTURE.ledger.lookups().attempts(UUID.fromString(jobId)).get(0).id();
        FIXTURE.ledger.starts().start(attempt, Duration.ofSeconds(30));
        Await.until(Duration.ofSeconds(10), "the started event", () -> types(frames).contains("attempt.started"));
        assertFalse(types(frames).contains("job.finished"));
        FIXTURE.ledger.completions().complete(UUID.fromString(jobId), attempt, Json.parse(
                "{\"sentiment\":\"positive\",\"summary\":\"ok\"}"), "req-" + attempt);
        reader.join(20_000);

        // then the stream told each in order, each data a JobEvent, and ended after the job's end
        assertFalse(reader.isAlive(), "the stream did not end after the job finished");
        assertEquals(List.of("attempt.created", "attempt.started", "attempt.succeeded", "job.finished"),
                types(frames));
        JsonNode last = Json.parse(frames.get(3)[2]);
        assertEquals("SUCCEEDED", last.path("job_status").asText());
        assertEquals(frames.get(3)[0], last.path("id").asText());

        // and a resume after the second event sends the rest, and a resume after the last is 204
        var rest = FIXTURE.send("GET", "/v1/jobs/" + jobId + "/events", IngestFixture.ALICE, Map.of("Accept",
                "text/event-stream", "Last-Event-ID", frames.get(1)[0]), null);
        assertEquals(200, rest.statusCode());
        List<String[]> resumed = new ArrayList<>();
        readFrames(new ByteArrayInputStream(rest.body().getBytes(StandardCharsets.UTF_8)), resumed);
        assertEquals(List.of("attempt.succeeded", "job.finished"), types(resumed));
        var done = FIXTURE.send("GET", "/v1/jobs/" + jobId + "/events", IngestFixture.ALICE, Map.of("Accept",
                "text/event-stream", "Last-Event-ID", frames.get(3)[0]), null);
        assertEquals(204, done.statusCode(), done.body());

        // and as JSON the same timeline
        var json = FIXTURE.send("GET", "/v1/jobs/" + jobId + "/events", IngestFixture.ALICE, Map.of(), null);
        assertEquals(200, json.statusCode());
        List<String> jsonTypes = new ArrayList<>();
        Json.parse(json.body()).path("events").forEach(e -> jsonTypes.add(e.path("type").asText()));
        assertEquals(types(frames), jsonTypes);
    }

    @Test
    void anotherOwnersJobHasNoEventsAndNoWait() {
        String jobId = created(FIXTURE.submit(IngestFixture.ALICE, "mine-" + UUID.randomUUID(),
                IngestFixture.request("mine")));
        assertEquals(404, FIXTURE.send("GET", "/v1/jobs/" + jobId + "/events", IngestFixture.BOB, Map.of(), null)
                .statusCode());
        assertEquals(404, FIXTURE.send("GET", "/v1/jobs/" + jobId, IngestFixture.BOB, Map.of("Prefer", "wait=5"),
                null).statusCode());
    }

    private static List<String> types(List<String[]> frames) {
        synchronized (frames) {
            return frames.stream().map(f -> f[1]).toList();
        }
    }

    /** SSE frames as [id, event, data]; comments and the retry line are skipped. */
    private static void readFrames(InputStream in, List<String[]> frames) {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String id = null;
            String event = null;
            StringBuilder data = new StringBuilder();
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                if (line.isEmpty()) {
                    if (event != null) {
                        synchronized (frames) {
                            frames.add(new String[] {id, event, data.toString()});
                        }
                    }
                    id = null;
                    event = null;
                    data.setLength(0);
                } else if (line.startsWith("id: ")) {
                    id = line.substring(4);
                } else if (line.startsWith("event: ")) {
                    event = line.substring(7);
                } else if (line.startsWith("data: ")) {
                    data.append(line.substring(6));
                }
            }
        } catch (IOException e) {
            // the stream ended
        }
    }
}
