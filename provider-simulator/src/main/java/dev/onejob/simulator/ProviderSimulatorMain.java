package dev.onejob.simulator;

import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one simulator as its own process, for the local stack, the demo and the chaos harness.
 *
 * <p>Consumes the environment ({@code SIM_PORT}, default 9001; {@code SIM_NAME}, default "sim";
 * {@code SIM_API_KEY}, optional); produces one "started" log line with the URL, then serves until the
 * process is asked to stop, when a shutdown hook closes the simulator. Owns the simulator it starts.
 */
public final class ProviderSimulatorMain {

    private static final Logger LOG = LoggerFactory.getLogger(ProviderSimulatorMain.class);

    private ProviderSimulatorMain() {
    }

    public static void main(String[] args) throws Exception {
        SimulatorConfig config;
        try {
            config = SimulatorConfig.fromEnvironment(System.getenv());
        } catch (IllegalArgumentException e) {
            LOG.error("provider simulator not started: {}", e.getMessage());
            System.exit(2);
            return;
        }
        ProviderSimulator simulator = ProviderSimulator.start(config);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            simulator.close();
            LOG.info("provider simulator '{}' stopped", config.name());
            stopped.countDown();
        }, "sim-shutdown"));
        LOG.info("provider simulator '{}' started on {} (OpenAI: POST /v1/chat/completions, Anthropic: POST"
                        + " /v1/messages, control plane: /_sim/; API key {})",
                config.name(), simulator.baseUrl(), config.expectedApiKey() == null ? "not checked" : "checked");
        stopped.await();
    }
}
