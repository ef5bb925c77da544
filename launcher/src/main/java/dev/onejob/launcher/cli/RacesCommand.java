package dev.onejob.launcher.cli;

import dev.onejob.core.config.ConfigException;
import dev.onejob.core.config.Env;
import dev.onejob.core.config.Settings;
import dev.onejob.core.json.Json;
import dev.onejob.core.kafka.KafkaSecurity;
import java.time.Duration;
import java.util.UUID;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code races tail}: follows {@code race-audit} and prints one line per lost race (a late or losing result that
 * was discarded). Consumes the broker's address and where to start; produces lines ({@link RaceLine}) or, with
 * {@code --json}, the records as JSON Lines, until Ctrl-C, {@code --max-records} or {@code --timeout}.
 */
@Command(name = "races", mixinStandardHelpOptions = true, description = "Follow the lost races.")
public record RacesCommand(CliContext context) {
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(15);
    private static final Duration POLL = Duration.ofMillis(250);

    @Command(name = "tail", mixinStandardHelpOptions = true,
            description = {"Prints one line per lost race as it is recorded: when, the job, the losing attempt"
                    + " (#number provider), the winning one (or none), the reason and the start of the discarded"
                    + " result's SHA-256.",
                "Reads the race-audit topic from Kafka as a read_committed consumer of no consumer group (it commits"
                        + " nothing). Runs until Ctrl-C unless --max-records or --timeout ends it; with both, not"
                        + " getting N records in time exits 1."})
    int tail(@Option(names = "--from-beginning", description = "Start with the oldest record instead of now.")
             boolean fromBeginning,
             @Option(names = "--bootstrap-servers", paramLabel = "HOST:PORT",
                     description = "The stack's Kafka (default: $KAFKA_BOOTSTRAP_SERVERS, else the running"
                             + " ./onejob dev's, else localhost:9092).")
             String bootstrapServers,
             @Option(names = "--job", paramLabel = "JOB_ID", description = "Only races of this job.") UUID job,
             @Option(names = "--max-records", paramLabel = "N", description = "Stop after N races.") Integer maxRecords,
             @Option(names = "--timeout", paramLabel = "DURATION", converter = DurationConverter.class,
                     description = "Stop after this long (500ms, 20s, 5m, ...).") Duration timeout,
             @Option(names = "--json", description = "Print each record's JSON on its own line (JSON Lines).")
             boolean json) {
        if (maxRecords != null && maxRecords < 1) {
            throw CliFailure.usage("--max-records must be at least 1, got " + maxRecords);
        }
        String servers = bootstrapServers != null ? bootstrapServers
                : context.running(Env.KAFKA_BOOTSTRAP_SERVERS, "localhost:9092");
        Duration connect = timeout != null && timeout.compareTo(CONNECT_TIMEOUT) < 0 ? timeout : CONNECT_TIMEOUT;
        KafkaSecurity security;
        try {
            security = KafkaSecurity.fromEnv(Settings.of(context.env()));
        } catch (ConfigException e) {
            throw CliFailure.usage(e.getMessage());
        }
        try (RaceAuditFeed feed = RaceAuditFeed.open(servers, security, fromBeginning, connect)) {
            Thread stop = new Thread(feed::wakeup, "races-tail-stop");
            Runtime.getRuntime().addShutdownHook(stop);
            context.err().println("following race-audit at " + servers + " (read_committed, "
                    + (fromBeginning ? "from the beginning" : "from now") + ")"
                    + (timeout == null && maxRecords == null ? "; Ctrl-C stops" : ""));
            try {
                int printed = follow(feed, job, maxRecords == null ? Integer.MAX_VALUE : maxRecords, timeout, json);
                if (maxRecords != null && printed < maxRecords) {
                    throw CliFailure.refused(printed + " of " + maxRecords + " race(s) came in before the timeout ("
                            + timeout.toMillis() + " ms)");
                }
            } finally {
                removeHook(stop);
                Thread.interrupted(); // a wakeup ends the tail; it must not leave this thread interrupted
            }
        }
        return ExitCode.OK;
    }

    private int follow(RaceAuditFeed feed, UUID job, int max, Duration timeout, boolean json) {
        long deadline = timeout == null ? Long.MAX_VALUE : System.nanoTime() + timeout.toNanos();
        int printed = 0;
        while (printed < max && System.nanoTime() < deadline && !Thread.currentThread().isInterrupted()) {
            long left = Math.max(1, (deadline - System.nanoTime()) / 1_000_000);
            for (RaceAuditFeed.Race race : feed.poll(Duration.ofMillis(Math.min(POLL.toMillis(), left)))) {
                if (printed >= max || job != null && !job.toString().equals(race.jobId())) {
                    continue;
                }
                context.out().println(json ? Json.write(race.record()) : RaceLine.format(race.record()));
                printed++;
            }
            context.out().flush();
        }
        return printed;
    }

    private static void removeHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // The JVM is shutting down (Ctrl-C): the hook has run, which is how we got here.
        }
    }
}
