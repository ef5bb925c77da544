package dev.onejob.chaos.sim;

import dev.onejob.simulator.Behaviour;
import dev.onejob.simulator.ProviderSimulator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One provider simulator misbehaving on a seeded {@link FaultPlan}, with outages on demand: what
 * {@link ChaosSimulatorMain} runs, and what tests start in-process.
 *
 * <p>Consumes a {@link ChaosSimulatorConfig}; produces the simulator's protocol answers (faulty or clean, by the
 * faults switch) and outages: for a given time the simulator refuses connections, then listens again on the same
 * port. Owns the simulator, the {@link ChaosControl} listener and the timer that ends outages.
 */
public final class ChaosSimulator implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ChaosSimulator.class);
    private static final long REBIND_RETRY_MS = 200;

    private final ChaosSimulatorConfig config;
    private final AtomicBoolean faultsOn;
    private final ProviderSimulator simulator;
    private final ScheduledExecutorService timer;
    private final ChaosControl control;
    private final Object outages = new Object();
    private long outageGeneration; // guarded by outages; only the latest outage's end listens again
    /** Until when every request is refused with 429 ({@link System#nanoTime()}); 0 when no storm was asked for. */
    private volatile long stormUntilNanos;
    private boolean closed; // guarded by outages

    private ChaosSimulator(ChaosSimulatorConfig config) throws IOException {
        this.config = config;
        this.faultsOn = new AtomicBoolean(config.faultsOn());
        FaultPlan faulty = config.plan();
        FaultPlan clean = config.cleanPlan();
        Function<String, Behaviour> switched = key -> storming() ? STORM
                : (faultsOn.get() ? faulty : clean).apply(key);
        this.simulator = ProviderSimulator.start(config.simulator().withBehaviourPlan(switched));
        this.timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "chaos-sim-" + config.simulator().name() + "-outages");
            thread.setDaemon(true);
            return thread;
        });
        try {
            this.control = ChaosControl.start(this, config.controlPort());
        } catch (IOException | RuntimeException e) {
            simulator.close();
            timer.shutdownNow();
            throw e;
        }
    }

    /** What every request meets during a rate-limit storm: 429, try again in a second (in both header forms). */
    static final Behaviour STORM = Behaviour.status(429, 1).withRetryAfterMs(1000);

    private boolean storming() {
        long until = stormUntilNanos;
        return until != 0 && System.nanoTime() - until < 0;
    }

    /**
     * A rate-limit storm: for {@code ms} every request is refused with 429 and {@code Retry-After: 1}, as a provider
     * does when an account's limit is hit; the plan's own faults resume after it.
     *
     * @throws IllegalArgumentException when {@code ms} is not positive
     */
    public void rateLimitStorm(long ms) {
        if (ms <= 0) {
            throw new IllegalArgumentException("a storm must last > 0 ms, was " + ms);
        }
        stormUntilNanos = System.nanoTime() + ms * 1_000_000;
        LOG.info("event=rate_limit_storm simulator={} ms={}", name(), ms);
    }

    /** Starts the simulator and its control listener. */
    public static ChaosSimulator start(ChaosSimulatorConfig config) throws IOException {
        return new ChaosSimulator(config);
    }

    /** The simulator itself, e.g. for its ledger or per-key rules (which win over the plan). */
    public ProviderSimulator simulator() {
        return simulator;
    }

    public String name() {
        return config.simulator().name();
    }

    /** The simulator's base URL, the same across outages. */
    public String url() {
        return simulator.baseUrl();
    }

    /** The control listener's base URL ({@code POST /outage?ms=N}, {@code GET /health}, {@code /faults}). */
    public String controlUrl() {
        return control.url();
    }

    /** The plan requests get now: the seeded one while faults are on, a fault-free one otherwise. */
    public FaultPlan activePlan() {
        return faultsOn.get() ? config.plan() : config.cleanPlan();
    }

    public boolean faultsOn() {
        return faultsOn.get();
    }

    /** Switches the faults on or off for requests that arrive from now on. */
    public void setFaultsOn(boolean on) {
        faultsOn.set(on);
    }

    /**
     * Refuses connections from now for {@code ms}, then listens again on the same port. A later outage replaces the
     * end of an earlier one that is still running. Returns once connections are refused.
     *
     * @throws IllegalArgumentException when {@code ms} is not positive
     * @throws IllegalStateException    when closed
     */
    public void outage(long ms) {
        if (ms <= 0) {
            throw new IllegalArgumentException("an outage must last > 0 ms, was " + ms);
        }
        synchronized (outages) {
            if (closed) {
                throw new IllegalStateException("chaos simulator " + name() + " is closed");
            }
            long generation = ++outageGeneration;
            simulator.refuseConnections(true);
            timer.schedule(() -> endOutage(generation), ms, TimeUnit.MILLISECONDS);
        }
    }

    public boolean isRefusingConnections() {
        return simulator.isRefusingConnections();
    }

    /** Stops the control listener, the outage timer and the simulator (which releases hanging requests). */
    @Override
    public void close() {
        synchronized (outages) {
            if (closed) {
                return;
            }
            closed = true;
        }
        control.close();
        timer.shutdownNow();
        simulator.close();
    }

    private void endOutage(long generation) {
        synchronized (outages) {
            if (closed || generation != outageGeneration) {
                return;
            }
            try {
                simulator.refuseConnections(false);
            } catch (UncheckedIOException e) {
                // Another process may hold the port for a moment; the outage must still end, so keep trying.
                LOG.warn("event=rebind_failed name={} port={} error=\"{}\" action=retry", name(), simulator.port(),
                        e.getCause().toString());
                timer.schedule(() -> endOutage(generation), REBIND_RETRY_MS, TimeUnit.MILLISECONDS);
            }
        }
    }
}
