package dev.onejob.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.json.Json;
import dev.onejob.simulator.ProviderSimulator;
import dev.onejob.testing.Await;
import dev.onejob.testing.JsonCalls;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

/**
 * The whole pipeline in this JVM, as {@code ./onejob dev} runs it, on the run's database and broker: simulators,
 * ingest, one worker, the reconciler. Primary's soft timeout is 1 s so the timeout story plays in seconds.
 */
final class PipelineFixture implements AutoCloseable {
    final LocalStack stack = new LocalStack(new Progress(new PrintStream(OutputStream.nullOutputStream())));
    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    final Map<String, String> tokens;
    /**
     * Primary's soft timeout is 1 s so the timeout story plays in seconds; its refusals are retried once. No provider
     * cools down: the test classes of a run share one ledger, and one class's refusals must not reroute another's jobs.
     */
    static final String PROVIDERS = """
            providers:
              - {id: primary, protocol: openai-chat, base_url: '${SIM_PRIMARY_URL}', model: gpt-test,
                 api_key_env: PRIMARY_API_KEY, soft_timeout: 1s, hard_timeout: 15s,
                 retry: {max_attempts: 2, initial_backoff: 200ms, max_backoff: 2s}, cooldown: {duration: 0s},
                 prices: {input: 0.15, output: 0.60}}
              - {id: backup, protocol: anthropic-messages, base_url: '${SIM_BACKUP_URL}', model: claude-test,
                 api_key_env: BACKUP_API_KEY, soft_timeout: 5s, hard_timeout: 15s, cooldown: {duration: 0s},
                 prices: {input: 3.00, output: 15.00}}
            aliases:
              fast: [primary, backup]
              careful: [backup, primary]
              primary-only: [primary]
            """;

    PipelineFixture() throws IOException {
        this(PROVIDERS);
    }

    /** The pipeline over the providers file {@code providersYaml} (its base URLs name the simulators' variables). */
    PipelineFixture(String providersYaml) throws IOException {
        Map<String, String> env = DevStackEnv.of("onejob-pipeline", providersYaml);
        env.put("SWEEP_INTERVAL", "200ms");
        stack.start(env);
        tokens = stack.devTokens();
    }

    /** The ingest service's base URL, as an SDK is pointed at it. */
    String baseUrl() {
        return "http://127.0.0.1:" + stack.httpPort();
    }

    /** How many requests the ingest service answered on {@code route} with {@code status}, from its metrics. */
    double requests(String route, int status) {
        String prefix = "onejob_http_requests_seconds_count{";
        return send("GET", "/metrics", "ops", Map.of(), null).body().lines()
                .filter(line -> line.startsWith(prefix) && line.contains("route=\"" + route + "\"")
                        && line.contains("status=\"" + status + "\""))
                .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1))).sum();
    }

    ProviderSimulator simulator(String name) {
        return stack.services().simulators().get(name);
    }

    HttpResponse<String> send(String method, String path, String owner, Map<String, String> headers, String body) {
        return JsonCalls.send(http, method, URI.create("http://127.0.0.1:" + stack.httpPort() + path), tokens.get(owner),
                headers, body);
    }

    JsonNode job(String jobId) {
        return Json.parse(send("GET", "/v1/jobs/" + jobId, "alice", Map.of(), null).body());
    }

    /** What an owner was billed over the last 30 days, as {@code GET /v1/usage} answers it. */
    JsonNode usage(String owner) {
        return Json.parse(send("GET", "/v1/usage", owner, Map.of(), null).body());
    }

    JsonNode awaitStatus(String jobId, String status, Duration timeout) {
        Await.until(timeout, "job " + jobId + " to be " + status, () -> status.equals(job(jobId).path("status").asText()));
        return job(jobId);
    }

    @Override
    public void close() {
        stack.close();
    }
}
