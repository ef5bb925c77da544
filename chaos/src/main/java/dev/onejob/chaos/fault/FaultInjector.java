package dev.onejob.chaos.fault;

import dev.onejob.chaos.history.History;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Inflicts a {@link FaultSchedule} on the running cluster: each fault at its time, recorded in the history first
 * (type info, {@code f} = fault, detail starting with the fault's label). A worker frozen by SIGSTOP is thawed by a
 * timer, so the next faults keep their times. A fault that cannot be inflicted is recorded too and the run goes on;
 * the report lists it. Owns its scheduler.
 */
public final class FaultInjector implements AutoCloseable {
    /** What the injector does to the cluster, one method per fault. */
    public interface Target {
        void killAndRestart(String service, Duration down);

        void freeze(String service);

        void thaw(String service);

        void restartBroker();

        Duration restartPostgres();

        void providerOutage(Duration duration);

        /** The primary provider refuses every call with 429 and {@code Retry-After: 1} for {@code duration}. */
        void rateLimitStorm(Duration duration);

        /** SIGTERM, a wait for the process to drain and exit (then SIGKILL), and a start after {@code down}. */
        void terminateAndRestart(String service, Duration down);

        /** SIGSTOP ({@code true}) or SIGCONT ({@code false}) of every process of the run's PostgreSQL cluster. */
        void freezePostgres(boolean frozen);

        /** Kills the broker, keeps it down for {@code down}, and starts it again on its data. */
        void brokerOutage(Duration down);

        /**
         * On the cluster: kills the broker leading partition {@code partition} of {@code topic} (kill -9), starts it
         * again after {@code down}; returns which broker it was.
         */
        int killLeader(String topic, int partition, Duration down);

        /** On the cluster: stops and starts every broker in turn, each once the partitions are in sync again. */
        void rollingRestart();

        /** Starts one more attempt worker, {@code name}, in the workers' group. */
        void addWorker(String name);

        /** SIGTERM of a worker {@link #addWorker} started: it drains its calls and leaves the group. */
        void removeWorker(String name);
    }

    private final FaultSchedule schedule;
    private final History history;
    private final Target target;
    private final Duration freezeFor;
    private final Duration postgresFreeze;
    private final Duration brokerOutage;
    /** The worker {@link FaultKind#ADD_REMOVE_WORKER} adds: the third, beside worker-0 and worker-1. */
    public static final String EXTRA_WORKER = "worker-2";
    private final ScheduledExecutorService thawer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "chaos-thaw");
        thread.setDaemon(true);
        return thread;
    });
    private final Thread thread;
    private volatile int frozenWorker = -1;
    private volatile int injected;
    private final List<String> notInflicted = new CopyOnWriteArrayList<>();

    /**
     * {@code freezeFor}: how long a stopped worker stays stopped; {@code postgresFreeze}: how long PostgreSQL does
     * (the injector waits it out and thaws it before the next fault, so the two never overlap); {@code brokerOutage}:
     * how long a {@link FaultKind#BROKER_OUTAGE} keeps the broker down (waited out too; the schedule leaves room).
     */
    public FaultInjector(FaultSchedule schedule, History history, Target target, Duration freezeFor,
                         Duration postgresFreeze, Duration brokerOutage) {
        this.schedule = schedule;
        this.history = history;
        this.target = target;
        this.freezeFor = freezeFor;
        this.postgresFreeze = postgresFreeze;
        this.brokerOutage = brokerOutage;
        this.thread = new Thread(this::run, "chaos-faults");
        thread.setDaemon(true);
    }

    public void start() {
        thread.start();
    }

    private void run() {
        long start = System.nanoTime();
        for (FaultSchedule.Fault fault : schedule.faults()) {
            long wait = start + fault.at().toNanos() - System.nanoTime();
            try {
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
            } catch (InterruptedException e) {
                return;
            }
            inflict(fault);
        }
    }

    private void inflict(FaultSchedule.Fault fault) {
        String label = fault.kind().wireName();
        try {
            if (!onProcess(fault, label)) {
                onInfrastructure(fault, label);
            }
            injected++;
        } catch (RuntimeException e) {
            history.info("note", "fault " + label + " could not be inflicted: " + e.getMessage());
            notInflicted.add(label + ": " + e.getMessage());
        }
    }

    /** The faults on the services' processes; false when the fault is not one of them. */
    private boolean onProcess(FaultSchedule.Fault fault, String label) {
        switch (fault.kind()) {
            case KILL_WORKER -> {
                String worker = "worker-" + otherThanFrozen(fault.target());
                history.info("fault", label + " " + worker + " kill -9, started again after 2 s");
                target.killAndRestart(worker, Duration.ofSeconds(2));
            }
            case KILL_RECONCILER -> {
                history.info("fault", label + " result-reconciler kill -9, started again after 2 s");
                target.killAndRestart("result-reconciler", Duration.ofSeconds(2));
            }
            case KILL_INGEST -> {
                String ingest = "ingest-" + fault.target();
                history.info("fault", label + " " + ingest + " kill -9, started again after 3 s");
                target.killAndRestart(ingest, Duration.ofSeconds(3));
            }
            case STOP_WORKER -> freeze(label, otherThanFrozen(fault.target()));
            case TERM_WORKER -> {
                String worker = "worker-" + otherThanFrozen(fault.target());
                history.info("fault", label + " " + worker + " SIGTERM (drains its calls), started again after"
                        + " 2 s");
                target.terminateAndRestart(worker, Duration.ofSeconds(2));
            }
            case ADD_REMOVE_WORKER -> addAndRemoveWorker(label);
            default -> {
                return false;
            }
        }
        return true;
    }

    /** The faults on Kafka, PostgreSQL and the providers. */
    private void onInfrastructure(FaultSchedule.Fault fault, String label) {
        switch (fault.kind()) {
            case RESTART_BROKER -> {
                history.info("fault", label + " kafka kill -9, started again on its data");
                target.restartBroker();
            }
            case RESTART_POSTGRES -> {
                history.info("fault", label + " pg_ctl restart -m immediate of the run's own cluster");
                Duration down = target.restartPostgres();
                history.info("note", "postgres answered again after " + down.toMillis() + " ms");
            }
            case PROVIDER_OUTAGE -> {
                history.info("fault", label + " primary refuses connections for 20 s");
                target.providerOutage(Duration.ofSeconds(20));
            }
            case RATE_LIMIT_STORM -> {
                history.info("fault", label + " primary answers every call 429 (Retry-After: 1) for 15 s");
                target.rateLimitStorm(Duration.ofSeconds(15));
            }
            case BROKER_OUTAGE -> {
                history.info("fault", label + " kafka kill -9, down for " + brokerOutage.toSeconds()
                        + " s (past the producers' 120 s delivery timeout), then started again on its data");
                target.brokerOutage(brokerOutage);
                history.info("note", "kafka started again after the outage");
            }
            case KILL_LEADER -> {
                history.info("fault", label + " kill -9 of the broker leading attempt-completions partition "
                        + fault.target() + ", started again after 5 s");
                int broker = target.killLeader("attempt-completions", fault.target(), Duration.ofSeconds(5));
                history.info("note", "broker " + broker + " (the leader) started again");
            }
            case ROLLING_RESTART -> {
                history.info("fault", label + " every broker stopped and started in turn");
                target.rollingRestart();
                history.info("note", "rolling restart done, every partition in sync");
            }
            case FREEZE_POSTGRES -> freezePostgres(label);
            default -> throw new IllegalStateException("not an infrastructure fault: " + fault.kind());
        }
    }

    private void addAndRemoveWorker(String label) {
        history.info("fault", label + " " + EXTRA_WORKER + " joins the workers' group, leaves 15 s later");
        target.addWorker(EXTRA_WORKER);
        thawer.schedule(() -> {
            try {
                target.removeWorker(EXTRA_WORKER);
                history.info("note", EXTRA_WORKER + " SIGTERM, left the group");
            } catch (RuntimeException e) {
                history.info("note", "fault " + label + ": " + EXTRA_WORKER + " could not be removed: "
                        + e.getMessage());
                notInflicted.add(label + ": " + e.getMessage());
            }
        }, 15, TimeUnit.SECONDS);
    }

    private void freezePostgres(String label) {
        history.info("fault", label + " SIGSTOP of the run's own cluster for "
                + postgresFreeze.toSeconds() + " s, then SIGCONT");
        target.freezePostgres(true);
        try {
            TimeUnit.MILLISECONDS.sleep(postgresFreeze.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            target.freezePostgres(false);
            history.info("note", "postgres SIGCONT");
        }
    }

    private void freeze(String label, int worker) {
        String name = "worker-" + worker;
        history.info("fault", label + " " + name + " SIGSTOP for " + freezeFor.toSeconds() + " s, then SIGCONT");
        frozenWorker = worker;
        target.freeze(name);
        thawer.schedule(() -> {
            try {
                target.thaw(name);
                history.info("note", name + " SIGCONT");
            } finally {
                frozenWorker = -1;
            }
        }, freezeFor.toMillis(), TimeUnit.MILLISECONDS);
    }

    private int otherThanFrozen(int wanted) {
        return wanted == frozenWorker ? 1 - wanted : wanted;
    }

    public int injected() {
        return injected;
    }

    /** Faults that could not be inflicted, each with the reason. */
    public List<String> notInflicted() {
        return List.copyOf(notInflicted);
    }

    /** Waits for the schedule to finish (and a frozen worker to be thawed). */
    public void await(Duration timeout) throws InterruptedException {
        thread.join(timeout.toMillis());
        thawer.shutdown();
        thawer.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        thread.interrupt();
        thawer.shutdownNow();
    }
}
