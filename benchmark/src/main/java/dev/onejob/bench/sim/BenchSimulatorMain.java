package dev.onejob.bench.sim;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.simulator.ProviderSimulator;
import dev.onejob.simulator.SimRequest;
import dev.onejob.simulator.SimulatorConfig;
import java.util.concurrent.CountDownLatch;
import java.util.function.Function;

/**
 * The provider simulator as the benchmark runs it, in its own process: the project's simulator
 * ({@link SimulatorConfig#fromEnvironment}: {@code SIM_PORT}, {@code SIM_NAME}, {@code SIM_API_KEY}) with one extra
 * rule, set by {@code BENCH_HANG_MARKER} and {@code BENCH_HANG_MS}: a request whose user prompt contains the marker
 * is answered only after that many milliseconds, longer than the caller's timeout, so the call times out. The rest
 * get the simulator's own zero-latency answers. The hanging request holds one of the simulator's handler threads,
 * which are unbounded, so it never delays another request. Prints {@code event=started url=...} when listening.
 */
public final class BenchSimulatorMain {
    private BenchSimulatorMain() {
    }

    public static void main(String[] args) throws Exception {
        SimulatorConfig config = SimulatorConfig.fromEnvironment(System.getenv());
        String marker = System.getenv("BENCH_HANG_MARKER");
        long hangMs = Long.parseLong(System.getenv().getOrDefault("BENCH_HANG_MS", "0"));
        if (marker != null && !marker.isEmpty() && hangMs > 0) {
            config = config.withAnswerFunction(hangingOn(marker, hangMs, config.answerFunction()));
        }
        ProviderSimulator simulator = ProviderSimulator.start(config);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            simulator.close();
            stopped.countDown();
        }, "bench-sim-shutdown"));
        System.out.println("event=started service=provider-simulator name=" + config.name() + " url="
                + simulator.baseUrl() + " hang_marker=" + (marker == null ? "none" : marker) + " hang_ms=" + hangMs);
        System.out.flush();
        stopped.await();
    }

    private static Function<SimRequest, JsonNode> hangingOn(String marker, long hangMs,
                                                            Function<SimRequest, JsonNode> answers) {
        return request -> {
            if (request.userText() != null && request.userText().contains(marker)) {
                try {
                    Thread.sleep(hangMs);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return answers.apply(request);
        };
    }
}
