package dev.onejob.chaos.sim;

import java.util.concurrent.CountDownLatch;

/**
 * Runs one {@link ChaosSimulator} as its own process, for {@code ./onejob chaos}.
 *
 * <p>Consumes the environment ({@link ChaosSimulatorConfig#fromEnvironment}: {@code SIM_PORT}, {@code SIM_NAME},
 * {@code SIM_API_KEY}, {@code CHAOS_SEED}, {@code CHAOS_FAULTS}, {@code CHAOS_LATE_ANSWER_MS},
 * {@code CHAOS_ANSWER_DELAY_MS}, {@code CHAOS_CONTROL_PORT}); produces, on standard output, one line
 * {@code event=started service=provider-simulator name=<name> url=<url> control=<control url> plan=<plan>} once both
 * listeners are up, then serves until the process is asked to stop (SIGTERM), when a shutdown hook closes the
 * simulator. Exits with status 2 and a line naming the variable when the environment is unusable. Owns the chaos
 * simulator it starts. Callers should start the JVM with {@code -Dsun.net.httpserver.nodelay=true}: the simulator
 * sets it too, but only a flag on the command line is sure to come before the first HttpServer of the JVM.
 */
public final class ChaosSimulatorMain {

    private ChaosSimulatorMain() {
    }

    public static void main(String[] args) throws Exception {
        ChaosSimulatorConfig config;
        try {
            config = ChaosSimulatorConfig.fromEnvironment(System.getenv());
        } catch (IllegalArgumentException e) {
            System.err.println("event=start_failed service=provider-simulator error=\"" + e.getMessage() + "\"");
            System.exit(2);
            return;
        }
        ChaosSimulator chaos = ChaosSimulator.start(config);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            chaos.close();
            System.out.println("event=stopped service=provider-simulator name=" + chaos.name());
            System.out.flush();
            stopped.countDown();
        }, "chaos-sim-shutdown"));
        System.out.println(startedLine(chaos));
        System.out.flush();
        stopped.await();
    }

    /** The line a harness waits for; every value is one whitespace-free token. */
    static String startedLine(ChaosSimulator chaos) {
        return "event=started service=provider-simulator name=" + chaos.name() + " url=" + chaos.url()
                + " control=" + chaos.controlUrl() + " plan=" + chaos.activePlan().describe();
    }
}
