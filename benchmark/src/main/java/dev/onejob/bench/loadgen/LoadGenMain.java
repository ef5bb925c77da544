package dev.onejob.bench.loadgen;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.json.Json;
import dev.onejob.core.service.AsyncPool;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.eclipse.jetty.client.HttpClient;

/**
 * The benchmark's HTTP load generator, run as its own JVM so the load never shares a process with the server:
 * {@code LoadGenMain plan.json result.json}. The plan names the URL, the owners' bearer tokens, the share of
 * repeated requests, whether to await results ({@code none}, {@code kafka}: the first {@code job-results} record per
 * job, {@code response}: the answer itself), the jobs' {@code target} and {@code fallbacks} (default primary, then
 * backup) and the steps ({@link LoadStep}). Writes one JSON summary per recorded
 * step and exits 0; any failure to run exits 1 with the reason on stderr.
 */
public final class LoadGenMain {
    /**
     * The keep-alive connections the generator opens to the server, at most, as a service calling another holds a
     * bounded pool: more than any closed-loop step's clients, so those never wait for one, and more than twice the
     * server's rate times its shedding bound (about 1,000 here), so that in the overload phase the requests it must
     * refuse reach it instead of waiting in this client. The JDK's client opened a connection per request in flight
     * instead, tens of thousands at twice the server's rate: the generator's own connects, not the server's answers,
     * were what the overload phase measured.
     */
    static final int CONNECTIONS = 2048;

    private LoadGenMain() {
    }

    public static void main(String[] args) throws Exception {
        AsyncPool.configure();
        JsonNode plan = Json.MAPPER.readTree(Files.readString(Path.of(args[0])));
        Map<String, String> tokens = new HashMap<>();
        plan.path("tokens").fields().forEachRemaining(e -> tokens.put(e.getKey(), e.getValue().asText()));
        List<String> owners = new ArrayList<>(tokens.keySet());
        owners.sort(String::compareTo);
        String await = plan.path("await").asText("none");
        ExecutorService callbacks = Executors.newFixedThreadPool(2);
        HttpClient client = new HttpClient();
        client.setMaxConnectionsPerDestination(CONNECTIONS);
        client.setMaxRequestsQueuedPerDestination(StepRunner.MAX_OUTSTANDING);
        client.setConnectTimeout(10_000);
        client.setIdleTimeout(60_000);
        client.setFollowRedirects(false);
        client.start();
        ResultWatcher watcher = "kafka".equals(await) ? new ResultWatcher(plan.path("bootstrap").asText()) : null;
        ObjectNode out = Json.object();
        ArrayNode steps = out.putArray("steps");
        double best = 0;
        try {
            for (JsonNode node : plan.path("steps")) {
                LoadStep step = LoadStep.from(node);
                List<String> fallbacks = new ArrayList<>();
                plan.path("fallbacks").forEach(f -> fallbacks.add(f.asText()));
                JobRequestFactory factory = new JobRequestFactory(plan.path("keyPrefix").asText() + "-" + step.name(),
                        owners, plan.path("repeatShare").asDouble(0), step.hangEvery(),
                        plan.path("hangMarker").asText(""), plan.path("target").asText("primary"),
                        plan.has("fallbacks") ? fallbacks : List.of("backup"));
                double rate = step.rate() > 0 ? step.rate() : step.rateOfMax() * best;
                if (!step.closed() && !(rate >= 1 && rate <= 20_000)) {
                    throw new IllegalStateException("step " + step.name() + ": no usable rate (" + rate
                            + " requests/s); the closed-loop steps before it measured nothing");
                }
                StepRunner runner = new StepRunner(client, callbacks, URI.create(plan.path("url").asText()), tokens,
                        await, watcher, factory);
                ObjectNode result = runner.run(step, rate);
                System.out.println("loadgen step " + step.name() + ": " + result);
                if (step.closed()) {
                    best = Math.max(best, sustainedRate(result));
                }
                result.put("recorded", step.record());
                steps.add(result);
            }
        } finally {
            if (watcher != null) {
                watcher.close();
            }
            callbacks.shutdownNow();
            client.stop();
        }
        out.put("best_sustained_request_rate", best);
        Files.writeString(Path.of(args[1]), Json.write(out));
        System.exit(0);
    }

    /** Requests per second the server kept up with: answered requests, or requests per second until the last result. */
    private static double sustainedRate(ObjectNode result) {
        JsonNode endToEnd = result.get("end_to_end");
        return endToEnd == null ? result.path("answers_per_second").asDouble()
                : endToEnd.path("requests_per_second").asDouble();
    }
}
