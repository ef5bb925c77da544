package dev.onejob.bench;

import dev.onejob.bench.proc.JfrRecorder;
import dev.onejob.bench.proc.JfrSummary;
import dev.onejob.bench.proc.ResourceMonitor;
import dev.onejob.bench.report.Phases;
import dev.onejob.bench.report.ReportWriter;
import dev.onejob.bench.report.Results;
import dev.onejob.bench.report.Targets;
import dev.onejob.infra.RunFiles;
import dev.onejob.infra.proc.ProcessRunner;
import dev.onejob.stack.ServiceProcesses;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One benchmark run, start to end: its own database and broker, then the phases in order (pgbench, Kafka's
 * ProducerPerformance, ingest over Kafka, ingest over HTTP, end to end, the invariants, the DBOS peer), then flight
 * recording summaries for missed targets and the report. A phase that fails is reported as not measured, with the
 * reason, and the run goes on where it can. Everything it started is stopped and its database dropped at the end.
 */
final class Benchmark {
    /** Where the run writes: the report files and a work directory for logs, recordings and configuration. */
    record Output(Path markdown, Path csv, Path json, Path work) {
    }

    @FunctionalInterface
    private interface PhaseBody {
        void run() throws Exception;
    }

    private final BenchSettings settings;
    private final Output output;
    private final Results results = new Results();
    private boolean phaseFailed;

    Benchmark(BenchSettings settings, Output output) {
        this.settings = settings;
        this.output = output;
    }

    Results run() {
        long started = System.nanoTime();
        ProcessRunner runner = new ProcessRunner(settings.root(), "benchmark", cleanWorkDirectory().resolve("logs"),
                output.work().resolve("dist"));
        ResourceMonitor monitor = new ResourceMonitor(runner);
        JfrRecorder jfr = new JfrRecorder(runner, output.work().resolve("jfr"));
        describeSettings();
        say("creating the run's PostgreSQL database and Kafka broker");
        try (BenchDatabase database = BenchDatabase.create(System.getenv());
             BenchKafka kafka = BenchKafka.start(System.getenv())) {
            Machine.describe(results.machine(), results.versions(), database, settings.root());
            results.settings().put("database", database.name() + " (created for this run, dropped at its end)");
            results.settings().put("Kafka broker", kafka.source());
            RunFiles files = BenchFiles.write(output.work().resolve("config"), settings.root());
            try (Services services = new Services(runner, monitor, files, database, kafka.bootstrapServers())) {
                BenchContext context = new BenchContext(settings, runner, monitor, jfr, results, database, kafka, files,
                        services, new LinkedHashMap<>(), new HashSet<>());
                results.settings().put("services run from", services.launchMode());
                phases(context, services);
                if (!services.restarts().isEmpty()) {
                    results.settings().put("service restarts", String.join("; ", services.restarts()));
                }
            }
        } catch (RuntimeException e) {
            phaseFailed = true;
            results.notMeasured("setup", "run", "", firstLine(e));
            e.printStackTrace();
        }
        profileMissedTargets();
        results.runSeconds((System.nanoTime() - started) / 1e9);
        ReportWriter writer = new ReportWriter(results, Runtime.getRuntime().availableProcessors());
        writer.write(output.markdown(), output.csv(), output.json(), settings.mode());
        say("report written to " + output.markdown());
        for (Targets.Check check : writer.targets()) {
            say(String.format("target %-70s %s %s", check.target(), check.ratio() == null ? "-"
                    : String.format("%.2fx", check.ratio()), check.status()));
        }
        results.invariants().forEach(i -> say("invariant " + i.name() + ": " + (i.holds() ? "holds" : "VIOLATED")
                + " (" + i.detail() + ")"));
        return results;
    }

    /** A fresh work directory: Kafka Streams' state or GC logs of an earlier run must not leak into this one. */
    private Path cleanWorkDirectory() {
        try (var paths = Files.walk(output.work())) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        } catch (NoSuchFileException e) {
            // Nothing from an earlier run.
        } catch (IOException e) {
            throw new UncheckedIOException("cannot clean the work directory " + output.work(), e);
        }
        return output.work();
    }

    boolean phaseFailed() {
        return phaseFailed;
    }

    private void phases(BenchContext context, Services services) {
        phase(Phases.PGBENCH, () -> new PgbenchPhase(context).run());
        phase(Phases.KAFKA_PERF, () -> new ProducerPerfPhase(context).run());
        boolean up = phase("start services", () -> {
            services.startSimulators();
            services.startIngest();
        });
        if (!up) {
            return;
        }
        phase(Phases.KAFKA_INGEST, () -> new KafkaIngestPhase(context).run());
        phase(Phases.HTTP_INGEST, () -> new HttpIngestPhase(context).run());
        phase(Phases.HTTP_OVERLOAD, () -> new OverloadPhase(context).run());
        phase(Phases.HTTP_SLOW_CLIENTS, () -> new SlowClientPhase(context).run());
        phase(Phases.END_TO_END, () -> new EndToEndPhase(context).run());
        phase(Phases.SLOW_PROVIDER, () -> new SlowProviderPhase(context).run());
        phase(Phases.SCALING, () -> new ScalingPhase(context).run());
        Invariants invariants = new Invariants(context);
        phase("invariants", invariants::checkOnejob);
        services.stopOnejob();
        phase(Phases.DBOS, () -> new DbosPhase(context).run());
        phase("peer invariants", () -> invariants.checkPeer(services.primaryUrl()));
        CpuPerJob.record(context);
        // Last, with the ingest service alone: the rows it adds must not touch any other phase's figures.
        phase(Phases.LEDGER_SCALE, () -> {
            services.startIngest();
            new LedgerScalePhase(context).run();
        });
    }

    private boolean phase(String name, PhaseBody body) {
        say("phase " + name + " ...");
        long start = System.nanoTime();
        try {
            body.run();
            say("phase " + name + " done in " + (System.nanoTime() - start) / 1_000_000_000 + " s");
            return true;
        } catch (Exception e) {
            phaseFailed = true;
            results.notMeasured(name, "phase", "", firstLine(e));
            say("phase " + name + " FAILED: " + firstLine(e));
            e.printStackTrace();
            return false;
        }
    }

    /** Summarises the flight recordings of the phases behind each missed target. */
    private void profileMissedTargets() {
        Set<String> done = new HashSet<>();
        for (Targets.Check check : Targets.evaluate(results)) {
            if (!Boolean.FALSE.equals(check.met())) {
                continue;
            }
            for (String phase : check.profilePhases()) {
                for (Map.Entry<String, Path> recording : results.recordings(phase).entrySet()) {
                    if (done.add(phase + "/" + recording.getKey())) {
                        results.profile(JfrSummary.summarise(recording.getKey(), phase, recording.getValue(), 10));
                    }
                }
            }
        }
    }

    private void describeSettings() {
        Map<String, String> s = results.settings();
        s.put("mode", settings.mode());
        s.put("pgbench", "-n -M prepared, " + settings.pgbenchSeconds() + " s per run, -j min(clients, 2); CAS pools "
                + "of " + settings.casPoolPerRun() + " RUNNING jobs per run");
        s.put("ProducerPerformance", settings.producerRecords() + " records of 1024 bytes, --throughput -1, acks=all, "
                + "enable.idempotence=true, linger.ms=2");
        s.put("Kafka ingest", settings.kafkaRecords() + " records (after " + settings.kafkaWarmupRecords()
                + " warm-up), " + pct(settings.repeatShare()) + " repeats, 1 in " + settings.poisonEvery() + " poison");
        s.put("HTTP ingest", "closed loop at " + settings.httpConcurrency() + " clients, " + settings.httpStepSeconds()
                + " s each after " + settings.httpWarmupSeconds() + " s warm-up at 32; open loop at 50% of max for "
                + settings.httpLatencySeconds() + " s; " + pct(settings.repeatShare()) + " repeats");
        s.put("end to end", settings.e2eBurstRequests() + " requests by " + settings.e2eConcurrency()
                + " concurrent clients, each waiting for its job's result before its next request, as the peer's do"
                + " (after " + settings.e2eWarmupRequests() + " warm-up), then "
                + settings.e2eRateSeconds() + " s at 50% of that rate, then the same with 1 in " + settings.hangEvery()
                + " new jobs hanging " + Services.HANG_MS + " ms at primary (soft timeout "
                + BenchFiles.PRIMARY_SOFT_TIMEOUT + ", hard " + BenchFiles.PRIMARY_HARD_TIMEOUT + ")");
        s.put("slow provider", "provider 'slow' (soft timeout " + BenchFiles.SLOW_SOFT_TIMEOUT.toSeconds() + " s, hard "
                + BenchFiles.SLOW_HARD_TIMEOUT.toSeconds() + " s) at a simulator answering after a lognormal delay "
                + "(median 1 s, p99 8 s); open loop at " + settings.slowRates() + " requests/s, "
                + settings.slowStepSeconds() + " s each, results awaited; then " + settings.slowBacklog()
                + " jobs on provider 'long' (every call " + BenchFiles.LONG_CALL.toSeconds() + " s, soft timeout "
                + BenchFiles.LONG_SOFT_TIMEOUT.toSeconds() + " s, hard " + BenchFiles.LONG_HARD_TIMEOUT.toSeconds()
                + " s) submitted while the worker was stopped, released to it at once");
        s.put("DBOS peer", settings.dbosBurstRequests() + " requests by " + settings.dbosConcurrency()
                + " concurrent clients, then " + settings.dbosRateSeconds() + " s at 50% of that rate; "
                + pct(settings.repeatShare()) + " repeats");
        s.put("ledger at scale", "last, ingest alone: submissions at 100 requests/s for " + settings.scaleStepSeconds()
                + " s and " + settings.usageQueries() + " usage queries, before and after adding "
                + settings.scaleJobs() + " finished jobs (with attempts) and a year of daily usage for 1,000 owners");
        s.put("service JVMs", String.join(" ", ServiceProcesses.SERVICE_JVM) + " (as deployed: docs/operations.md), "
                + "-Xlog:gc, -XX:+DebugNonSafepoints; the simulators and the DBOS peer on the default heap; a JFR "
                + "recording (settings=default) "
                + "per phase from jcmd; ingest: HTTP_THREADS 32, DATABASE_POOL_SIZE 10 (the defaults), HTTP_SHED_BACKLOG 0 "
                + "(the intake phases run with the workers stopped: the backlog bound would refuse everything)");
    }

    private static String pct(double share) {
        return Math.round(share * 100) + "%";
    }

    private static String firstLine(Throwable e) {
        String message = String.valueOf(e.getMessage());
        return e.getClass().getSimpleName() + ": " + (message.length() > 600 ? message.substring(0, 600) + "..."
                : message).replace('\n', ' ');
    }

    static void say(String line) {
        System.out.println("[bench " + LocalTime.now().truncatedTo(ChronoUnit.SECONDS) + "] " + line);
        System.out.flush();
    }

}
