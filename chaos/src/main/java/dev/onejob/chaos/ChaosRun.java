package dev.onejob.chaos;

import dev.onejob.chaos.check.CheckReport;
import dev.onejob.chaos.check.HistoryChecker;
import dev.onejob.chaos.check.RunRecordCollector;
import dev.onejob.chaos.fault.FaultInjector;
import dev.onejob.chaos.fault.FaultSchedule;
import dev.onejob.chaos.history.History;
import dev.onejob.chaos.load.LoadGenerator;
import dev.onejob.chaos.load.Operator;
import dev.onejob.infra.LocalPostgresCluster;
import dev.onejob.infra.RunFiles;
import dev.onejob.infra.ScratchDatabase;
import dev.onejob.infra.proc.ProcessRunner;
import dev.onejob.stack.ProviderCertification;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One chaos run from start to verdict: a PostgreSQL cluster of the run's own (the one its PostgreSQL fault restarts;
 * the machine's server is never touched) with a fresh database on it, the cluster as separate processes,
 * certification of both providers (faults off), then the load, the operator and the seeded faults together for the
 * load window, the drain, the simulators' ledgers saved, the cluster stopped, and the checker's verdict from the
 * recorded history. Writes {@code history.jsonl}, the ledgers, every process's log (the PostgreSQL cluster's as
 * {@code logs/postgres.log}) and {@code report.md} under the run directory; the cluster's directory (in the system
 * temp directory) is deleted at the end unless {@code CHAOS_KEEP_DATABASE=true}.
 */
public final class ChaosRun {
    private static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(4);

    private final ChaosSettings settings;
    private final PrintStream out;
    private volatile List<String> faultsNotInflicted = List.of();

    public ChaosRun(ChaosSettings settings, PrintStream out) {
        this.settings = settings;
        this.out = out;
    }

    /**
     * A replay of a seed starts from nothing: an earlier run's directory (its broker data, history and ledgers would
     * otherwise be read by this run's checker) is moved aside to {@code <seed>.<epoch millis>}, kept for a look.
     */
    private void setAsidePreviousRun() {
        Path work = settings.work();
        try {
            if (Files.isDirectory(work)) {
                Path aside = work.resolveSibling(work.getFileName() + "." + System.currentTimeMillis());
                Files.move(work, aside);
                say("an earlier run of this seed is kept in " + aside + "; this one starts from nothing");
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot move the earlier run in " + work + " aside: " + e.getMessage(), e);
        }
    }

    /** Runs everything and returns the checker's report (its {@code passed()} is the verdict). */
    public CheckReport run(Map<String, String> env) throws InterruptedException {
        FaultSchedule schedule = FaultSchedule.draw(settings.seed(), settings.load(), settings.faultRounds(),
                settings.brokerOutage(), settings.faultKinds());
        say("chaos run, mode " + settings.mode() + ", seed " + settings.seed() + " (replay: ./onejob chaos --seed "
                + settings.seed() + (settings.mode().equals("full") ? " --full" : "")
                + (settings.brokers() > 1 ? " --cluster" : "") + "), " + settings.intents()
                + " intents over " + settings.load().toSeconds() + " s; directory " + settings.work());
        say("fault schedule:\n" + schedule.describe());
        setAsidePreviousRun();
        ProcessRunner runner = new ProcessRunner(settings.root(), "chaos", settings.work().resolve("logs"),
                settings.work().resolve("dist"));
        RunFiles files = ChaosFiles.write(settings.work().resolve("config"), settings.root());
        boolean keep = Boolean.parseBoolean(env.getOrDefault("CHAOS_KEEP_DATABASE", "false"));
        say("starting the run's own PostgreSQL cluster");
        LocalPostgresCluster postgres = LocalPostgresCluster.start(Path.of(System.getProperty("java.io.tmpdir")),
                settings.work().resolve("logs/postgres.log"), keep);
        ScratchDatabase database;
        try {
            database = ScratchDatabase.create(postgres.server(), "onejob_chaos_"
                    + Long.toUnsignedString(settings.seed()) + "_" + ProcessHandle.current().pid(), keep);
        } catch (RuntimeException e) {
            postgres.close();
            throw e;
        }
        say("PostgreSQL cluster on 127.0.0.1:" + postgres.port() + " in " + postgres.directory()
                + ", database " + database.name());
        try (History history = History.create(settings.work().resolve("history.jsonl"));
             Cluster cluster = new Cluster(settings, runner, files, database)) {
            say(settings.brokers() > 1 ? "starting " + settings.brokers() + " Kafka brokers (SASL/SCRAM, ACLs per"
                    + " service, replication 3, min.insync.replicas 2) and the provider simulators"
                    : "starting Kafka and the provider simulators");
            cluster.startBrokerAndSimulators();
            // Failover only goes to certified providers: certify both for every contract before the load.
            ProviderCertification.certifyAll(database, files, cluster.providerEnv(), this::say);
            say("starting 2 ingest instances, 2 workers, the reconciler and nginx");
            cluster.startServices();
            cluster.providerFaultsOn();
            List<Path> ledgers = load(cluster, postgres, files, database, history, schedule);
            history.close();
            cluster.stopPipeline();
            say("collecting the history, the database, the topics and the ledgers");
            CheckReport report = HistoryChecker.check(RunRecordCollector.collect(database.jdbcUrl(), database.user(),
                    database.password(), cluster.kafka().admin(), cluster.kafka().outcomeTopics(), ledgers,
                    settings.work().resolve("history.jsonl")));
            write(report, NginxRetries.read(cluster.nginx().accessLog()));
            return report;
        } finally {
            database.close();
            postgres.close();
            if (keep) {
                say("database " + database.name() + " kept in the stopped PostgreSQL cluster " + postgres.directory()
                        + " (port " + postgres.port() + "); start it with: " + postgres.startCommand());
            }
        }
    }

    private List<Path> load(Cluster cluster, LocalPostgresCluster postgres, RunFiles files, ScratchDatabase database,
                            History history, FaultSchedule schedule) throws InterruptedException {
        Map<String, String> tokens = new HashMap<>();
        ChaosFiles.OWNERS.forEach(owner -> tokens.put(owner, files.token(owner)));
        Operator operator = new Operator(settings.seed(), history, () -> unknownAttempts(database), cluster.api(),
                files.token(ChaosFiles.OPERATOR), tokens);
        FaultInjector faults = new FaultInjector(schedule, history, new ClusterFaults(cluster, postgres),
                ChaosSettings.MAX_POLL_INTERVAL.plusSeconds(5), settings.postgresFreeze(), settings.brokerOutage());
        try (LoadGenerator load = new LoadGenerator(settings, history, cluster.api(), tokens, ChaosFiles.OWNERS,
                cluster.kafka())) {
            say("load and faults for " + settings.load().toSeconds() + " s");
            operator.start();
            faults.start();
            load.run(Duration.ofSeconds(90));
            faults.await(Duration.ofMinutes(2));
            say("load done (" + load.inFlight() + " submissions still unanswered), " + faults.injected()
                    + " faults injected; letting the operator finish");
        } finally {
            faults.close();
            operator.close();
            faultsNotInflicted = faults.notInflicted();
        }
        say("draining: waiting until nothing is PENDING, STARTING, unsent or unconsumed");
        String pending = new Drain(database, cluster.kafka().admin()).await(DRAIN_TIMEOUT);
        if (!pending.isEmpty()) {
            history.info("note", "drain timed out after " + DRAIN_TIMEOUT.toSeconds() + " s: " + pending);
            say("drain timed out: " + pending);
        }
        return cluster.saveLedgers();
    }

    private static List<Operator.UnknownAttempt> unknownAttempts(ScratchDatabase database) throws Exception {
        List<Operator.UnknownAttempt> unknown = new ArrayList<>();
        for (List<String> row : database.query("SELECT a.id, a.job_id, a.provider, j.owner_id FROM attempts a "
                + "JOIN jobs j ON j.id = a.job_id WHERE a.status = 'UNKNOWN'")) {
            unknown.add(new Operator.UnknownAttempt(row.get(0), row.get(1), row.get(2), row.get(3)));
        }
        return unknown;
    }

    /** Faults of the schedule that could not be inflicted (the run is then weaker than planned), with reasons. */
    public List<String> faultsNotInflicted() {
        return faultsNotInflicted;
    }

    private void write(CheckReport report, NginxRetries retries) {
        String text = "# Chaos run " + settings.mode() + ", seed " + settings.seed() + "\n\n" + report.render()
                + "\n" + retries.render()
                + (faultsNotInflicted.isEmpty() ? "" : "\nFaults that could not be inflicted:\n- "
                + String.join("\n- ", faultsNotInflicted) + "\n");
        try {
            Files.writeString(settings.work().resolve("report.md"), text);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the report", e);
        }
        out.println(text);
        out.println(report.passed() ? "PASS: no anomaly (seed " + settings.seed() + ")"
                : "FAIL: " + report.anomalies().size() + " anomalies; replay with --seed " + settings.seed());
    }

    private void say(String line) {
        out.println("[chaos " + LocalTime.now().withNano(0) + "] " + line);
        out.flush();
    }
}
