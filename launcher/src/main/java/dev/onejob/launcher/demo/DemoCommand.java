package dev.onejob.launcher.demo;

import dev.onejob.launcher.cli.ApiClient;
import dev.onejob.launcher.cli.CliContext;
import dev.onejob.launcher.cli.CliFailure;
import dev.onejob.launcher.cli.DurationConverter;
import dev.onejob.launcher.cli.OnejobCli;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./onejob demo}: plays the design's scenarios ({@link DemoRun#scenarios()}) and ends with a table of what was
 * expected and what was observed. Consumes its options and the environment (database credentials; PROVIDERS_FILE,
 * CONTRACTS_DIR); produces the narration, the table and the exit status (0 only when no scenario failed). Owns the
 * target it plays against ({@link LocalDemoStack} or {@link RemoteDemoStack}) for the length of the run.
 */
@Command(name = "demo", mixinStandardHelpOptions = true, version = "onejob 0.1.0", sortOptions = false,
        header = "Plays the design's scenarios against a stack and ends with a PASS/FAIL table.",
        description = {"Plays the design's scenarios and narrates each step: the double click, the changed payload,"
                + " the timeout, the out-of-band resolution and the fallback, the reverse-order finish, and a"
                + " failover blocked by a failed certification (the backup is certified again afterwards).",
            "Without --url it starts a stack of its own in this process: a database onejob_demo_<pid> on the"
                    + " PostgreSQL of DATABASE_URL (created, then dropped), Kafka in-process, the simulators, the"
                    + " services, with the primary's soft timeout at 1 s. With --url it plays against a running"
                    + " ./onejob dev, driving its simulators through their control planes (/_sim/).",
            "Exit status: 0 every scenario passed (SKIPPED is no failure), 1 a scenario failed, 2 usage or"
                    + " configuration error, 3 the stack cannot be reached or started."})
public final class DemoCommand implements Callable<Integer> {
    private final CliContext context;

    @Option(names = "--url", paramLabel = "URL",
            description = "Play against the running stack at this HTTP API (e.g. http://localhost:8080).")
    String url;

    @Option(names = "--token-file", paramLabel = "FILE", description = "With --url: the dev tokens file (alice and"
            + " ops; default $ONEJOB_DATA_DIR/dev-tokens.properties, else .onejob/dev-tokens.properties).")
    Path tokenFile;

    @Option(names = "--sim-primary", paramLabel = "URL", defaultValue = "http://127.0.0.1:9001",
            description = "With --url: the primary simulator (default ${DEFAULT-VALUE}).")
    String simPrimary;

    @Option(names = "--sim-backup", paramLabel = "URL", defaultValue = "http://127.0.0.1:9002",
            description = "With --url: the backup simulator (default ${DEFAULT-VALUE}).")
    String simBackup;

    @Option(names = "--bootstrap-servers", paramLabel = "HOST:PORT", description = "With --url: the stack's Kafka, to"
            + " read race-audit (default: $KAFKA_BOOTSTRAP_SERVERS, else the running ./onejob dev's; without one the"
            + " demo shows the discard as the job records it). Without --url: use"
            + " this broker instead of starting one; the demo's worker and reconciler then join the consumer groups"
            + " attempt-worker and result-reconciler, so never give a broker a running stack uses.")
    String bootstrapServers;

    @Option(names = "--database-url", paramLabel = "JDBC_URL", description = "Without --url: use this existing"
            + " database (migrated if needed, not dropped) instead of creating onejob_demo_<pid>.")
    String databaseUrl;

    @Option(names = "--contracts-dir", paramLabel = "DIR",
            description = "Without --url: the contracts (default $CONTRACTS_DIR, else config/contracts).")
    Path contractsDir;

    @Option(names = "--primary-soft-timeout", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "The primary's soft timeout: without --url the one the demo configures (default 1s); with"
                    + " --url the one the stack uses (default: from PROVIDERS_FILE or config/providers.yaml).")
    Duration primarySoftTimeout;

    @Option(names = "--verbose", description = "Also show the services' own log lines.")
    boolean verbose;

    DemoCommand(CliContext context) {
        this.context = context;
    }

    /** Runs the demo ({@code args} without the word {@code demo}) and returns its exit status. */
    public static int run(String[] args, CliContext context) {
        return OnejobCli.commandLine(new DemoCommand(context), context).execute(args);
    }

    @Override
    public Integer call() {
        Narrator narrator = new Narrator(context.out());
        narrator.say("onejob demo: the design's scenarios, played against a real stack");
        try (DemoTarget target = target(narrator)) {
            SimulatorControl primary = new SimulatorControl(DemoContext.PRIMARY, target.primarySimulatorUrl());
            SimulatorControl backup = new SimulatorControl(DemoContext.BACKUP, target.backupSimulatorUrl());
            narrator.say("both simulators answer every request at once to begin with (DELETE /_sim/behaviour)");
            primary.resetBehaviours();
            backup.resetBehaviours();
            Duration timeout = Duration.ofSeconds(30);
            DemoContext demo = new DemoContext(narrator, new ApiClient(target.apiUrl(), target.ownerToken(), timeout),
                    new ApiClient(target.apiUrl(), target.operatorToken(), timeout), primary, backup,
                    target.bootstrapServers(), target.primarySoftTimeout());
            List<DemoRun.Played> played = DemoRun.play(DemoRun.scenarios(), demo);
            context.out().println();
            context.out().print(DemoRun.table(played));
            context.out().println();
            narrator.say(DemoRun.summary(played));
            return DemoRun.exitCode(played);
        }
    }

    private DemoTarget target(Narrator narrator) {
        if (url == null) {
            Path contracts = contractsDir != null ? contractsDir
                    : Path.of(context.env("CONTRACTS_DIR", "config/contracts"));
            return LocalDemoStack.start(context.env(), databaseUrl, bootstrapServers, contracts,
                    primarySoftTimeout != null ? primarySoftTimeout : Duration.ofSeconds(1), narrator);
        }
        if (databaseUrl != null || contractsDir != null) {
            throw CliFailure.usage("--database-url and --contracts-dir are for the demo's own stack; with --url the"
                    + " running stack has its own");
        }
        Path tokens = tokenFile != null ? tokenFile
                : Path.of(context.env("ONEJOB_DATA_DIR", ".onejob")).resolve("dev-tokens.properties");
        String kafka = bootstrapServers != null ? bootstrapServers : context.running("KAFKA_BOOTSTRAP_SERVERS", null);
        return RemoteDemoStack.connect(context.env(), url, tokens, simPrimary, simBackup, kafka,
                primarySoftTimeout, narrator);
    }
}
