package dev.onejob.launcher.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.json.Json;
import dev.onejob.launcher.DevStackEnv;
import dev.onejob.launcher.InProcessStack;
import dev.onejob.launcher.OnejobMain;
import dev.onejob.testing.Await;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The operator commands against the whole pipeline in this JVM, on the run's database and broker. */
class CliIT {
    private static InProcessStack stack;
    private static Map<String, String> env;
    private static ApiClient alice;

    @BeforeAll
    static void start() throws IOException {
        // Models of their own, so certifications other test classes recorded in the shared database do not count; no
        // cool-down, so their refusals do not reroute these jobs.
        Map<String, String> stackEnv = DevStackEnv.of("onejob-cli", """
                providers:
                  - {id: primary, protocol: openai-chat, base_url: '${SIM_PRIMARY_URL}', model: gpt-cli-test,
                     api_key_env: PRIMARY_API_KEY, soft_timeout: 10s, hard_timeout: 30s, cooldown: {duration: 0s}}
                  - {id: backup, protocol: anthropic-messages, base_url: '${SIM_BACKUP_URL}', model: claude-cli-test,
                     api_key_env: BACKUP_API_KEY, soft_timeout: 10s, hard_timeout: 30s, cooldown: {duration: 0s}}
                """);
        stackEnv.put("CERTIFY_ON_START", "false");
        stackEnv.put("DATABASE_POOL_SIZE", "4");
        stack = InProcessStack.start(stackEnv, new PrintStream(OutputStream.nullOutputStream()));
        env = new HashMap<>(stackEnv);
        env.put("ONEJOB_URL", stack.apiUrl());
        env.put("SIM_PRIMARY_URL", stack.simulatorUrls().get("primary"));
        env.put("SIM_BACKUP_URL", stack.simulatorUrls().get("backup"));
        alice = new ApiClient(stack.apiUrl(), stack.devTokens().get("alice"), Duration.ofSeconds(30));
    }

    @AfterAll
    static void stop() {
        stack.close();
    }

    @AfterEach
    void answerAtOnceAgain() {
        stack.simulatorUrls().values().forEach(url -> simulator(url, "DELETE", null));
    }

    private static CliExitCodeTest.Run cli(String owner, String... args) {
        Map<String, String> callerEnv = new HashMap<>(env);
        callerEnv.put("ONEJOB_TOKEN", stack.devTokens().get(owner));
        return CliExitCodeTest.run(callerEnv, args);
    }

    private static String submit(ApiClient client, String text) {
        ApiClient.Response response = client.post("/v1/jobs", Map.of("Idempotency-Key", "cli-" + UUID.randomUUID()),
                Json.parse("{\"contract\":\"sentiment\",\"variables\":{\"text\":\"" + text + "\"},"
                        + "\"target\":\"primary\",\"fallbacks\":[\"backup\"]}"));
        assertEquals(201, response.status(), response.describe());
        return response.body().path("id").asText();
    }

    private static void simulator(String baseUrl, String method, String spec) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(baseUrl + "/_sim/behaviour"))
                .method(method, spec == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(spec)).build();
        try {
            HttpResponse<String> response = HttpClient.newHttpClient().send(request,
                    HttpResponse.BodyHandlers.ofString());
            assertTrue(response.statusCode() < 300, response.body());
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void jobsGetWithJsonPrintsTheJobAsTheApiReturnsIt() {
        // given alice's job
        String jobId = submit(alice, "I loved it");

        // when she asks for it with --json
        CliExitCodeTest.Run run = cli("alice", "jobs", "get", jobId, "--json");

        // then it is the API's Job: its id, her as owner, its attempts
        assertEquals(ExitCode.OK, run.exit(), run.err());
        JsonNode job = Json.parse(run.out());
        assertEquals(jobId, job.path("id").asText());
        assertEquals("alice", job.path("owner_id").asText());
        assertEquals("primary", job.path("attempts").get(0).path("provider").asText());
    }

    @Test
    void jobsGetOfAMissingJobExitsOne() {
        CliExitCodeTest.Run run = cli("alice", "jobs", "get", UUID.randomUUID().toString());

        assertEquals(ExitCode.REFUSED, run.exit());
        assertTrue(run.err().contains("404"), run.err());
    }

    @Test
    void anotherOwnersJobIsNotFoundLikeAMissingOne() {
        String jobId = submit(alice, "I loved it");

        assertEquals(ExitCode.REFUSED, cli("bob", "jobs", "get", jobId).exit());
    }

    @Test
    void resolvingWithASubmitOnlyTokenExitsOneWithTheForbiddenReason() {
        // when alice (role submit) tries what only an operator may
        CliExitCodeTest.Run run = cli("alice", "attempts", "resolve", UUID.randomUUID().toString(),
                "--outcome", "CANCELLED", "--reason", "testing");

        // then the API's 403 and its reason are what she sees
        assertEquals(ExitCode.REFUSED, run.exit());
        assertTrue(run.err().contains("403 forbidden"), run.err());
        assertTrue(run.err().contains("'operate' role"), run.err());
    }

    @Test
    void jobsListReadsEveryOwnersJobsFromTheDatabase() {
        // given a job of alice and one of bob
        String alicesJob = submit(alice, "I loved it");
        String bobsJob = submit(new ApiClient(stack.apiUrl(), stack.devTokens().get("bob"), Duration.ofSeconds(30)),
                "It broke");

        // when the operator lists them, then for bob only
        CliExitCodeTest.Run all = cli("ops", "jobs", "list", "--json", "--limit", "1000");
        CliExitCodeTest.Run bobs = cli("ops", "jobs", "list", "--owner", "bob", "--json", "--limit", "1000");

        // then
        assertEquals(ExitCode.OK, all.exit(), all.err());
        List<String> ids = ids(Json.parse(all.out()));
        assertTrue(ids.contains(alicesJob) && ids.contains(bobsJob), all.out());
        List<String> bobsIds = ids(Json.parse(bobs.out()));
        assertTrue(bobsIds.contains(bobsJob) && !bobsIds.contains(alicesJob), bobs.out());
    }

    private static List<String> ids(JsonNode jobs) {
        List<String> ids = new ArrayList<>();
        jobs.forEach(job -> ids.add(job.path("id").asText()));
        return ids;
    }

    @Test
    void outboxStatusJsonParsesWithItsCountsAndAges() {
        CliExitCodeTest.Run run = cli("ops", "outbox", "status", "--json");

        assertEquals(ExitCode.OK, run.exit(), run.err());
        JsonNode status = Json.parse(run.out());
        assertTrue(status.path("unsent").isIntegralNumber(), run.out());
        assertTrue(status.has("oldest_unsent_age_ms"), run.out());
        assertTrue(status.path("topics").isObject(), run.out());
    }

    @Test
    void providersListShowsTheFileAndWhichProviderIsCertified() {
        // given primary certified a moment ago, backup never with its configured model
        ApiClient ops = new ApiClient(stack.apiUrl(), stack.devTokens().get("ops"), Duration.ofSeconds(120));
        ApiClient.Response certified = ops.post("/v1/certifications", Map.of(),
                Json.parse("{\"provider\":\"primary\",\"contract\":\"sentiment\"}"));
        assertEquals(200, certified.status(), certified.describe());

        // when
        CliExitCodeTest.Run run = cli("ops", "providers", "list", "--json");

        // then
        assertEquals(ExitCode.OK, run.exit(), run.err());
        JsonNode providers = Json.parse(run.out());
        assertEquals("primary", providers.get(0).path("id").asText());
        assertEquals("openai-chat", providers.get(0).path("protocol").asText());
        assertEquals("10s", providers.get(0).path("soft_timeout").asText());
        assertTrue(sentiment(providers.get(0)).path("certified").asBoolean(), run.out());
        JsonNode backup = sentiment(providers.get(1));
        assertFalse(backup.path("certified").asBoolean(true), run.out());
        assertTrue(backup.path("reason").asText().startsWith("backup "), run.out());
    }

    /** A provider's certification entry for the sentiment contract (the built-in passthrough is listed too). */
    private static JsonNode sentiment(JsonNode provider) {
        for (JsonNode certification : provider.path("certifications")) {
            if (certification.path("contract").asText().equals("sentiment")) {
                return certification;
            }
        }
        throw new AssertionError("no sentiment entry in " + provider);
    }

    @Test
    void racesTailPrintsALineForARaceThatHappensWhileItFollows() throws Exception {
        // given a tail that follows race-audit from now, for one record at most 30 s
        String jobId;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Map<String, String> callerEnv = new HashMap<>(env);
        var context = new CliContext(callerEnv, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        simulator(stack.simulatorUrls().get("primary"), "PUT", "{\"kind\":\"answer\",\"delay_ms\":2000}");
        jobId = submit(alice, "Slow but fine");
        CompletableFuture<Integer> tail = CompletableFuture.supplyAsync(() -> OnejobMain.run(new String[] {"races",
            "tail", "--job", jobId, "--max-records", "1", "--timeout", "30s"}, context));
        Await.until(Duration.ofSeconds(20), "the tail to follow race-audit",
                () -> err.toString(StandardCharsets.UTF_8).contains("following race-audit") || tail.isDone());

        // when alice cancels the job while the primary is still answering, so its answer comes too late
        Await.until(Duration.ofSeconds(10), "the attempt to start", () -> alice.get("/v1/jobs/" + jobId).body()
                .path("status").asText().equals("RUNNING"));
        CliExitCodeTest.Run cancelled = cli("alice", "jobs", "cancel", jobId);

        // then the cancel worked, and the tail printed the lost race and ended by itself with 0
        assertEquals(ExitCode.OK, cancelled.exit(), cancelled.err());
        assertTrue(cancelled.out().contains("CANCELLED"), cancelled.out());
        assertEquals(ExitCode.OK, tail.get(), err.toString(StandardCharsets.UTF_8));
        String line = out.toString(StandardCharsets.UTF_8).strip();
        assertTrue(line.contains("job " + jobId) && line.contains("lost #1 primary") && line.contains("won none")
                && line.contains("job-cancelled"), line);
    }
}
