package dev.onejob.launcher;

import dev.onejob.core.config.Env;
import dev.onejob.launcher.cli.CliContext;
import dev.onejob.launcher.cli.ExitCode;
import dev.onejob.stack.ClusterStack;
import dev.onejob.stack.infra.KafkaCluster;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.LocalTime;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./onejob cluster [--workers N] [--reconcilers M]}: runs {@link ClusterStack} (three authenticated Kafka
 * nodes, two ingest instances behind nginx, the workers and reconcilers asked for, each service its own process and
 * its own Kafka principal), says what runs where, and keeps it up until Ctrl-C, which stops everything in reverse.
 * Its directory is {@code <ONEJOB_DATA_DIR, default .onejob>/cluster}, emptied at every start.
 */
@Command(name = "cluster", mixinStandardHelpOptions = true, version = "onejob 0.1.0", sortOptions = false,
        header = "Runs the pipeline on a three-broker authenticated Kafka cluster, every service a process, until"
                + " Ctrl-C.",
        description = {"Runs until Ctrl-C: a scratch database on the PostgreSQL of DATABASE_URL (default"
                + " 127.0.0.1:5432; dropped at the end), three Kafka KRaft nodes (SASL/SCRAM, ACLs per service,"
                + " replication 3, min.insync.replicas 2), two provider simulators, two ingest instances behind nginx,"
                + " the attempt workers and the result reconcilers, each as its own process and Kafka principal.",
            "Data, passwords and logs are under $ONEJOB_DATA_DIR/cluster (default .onejob/cluster), emptied at every"
                    + " start. Three brokers on two cores are for correctness, not speed.",
            "Exit status: 0 stopped by Ctrl-C, 1 the cluster did not start, 2 usage error."})
public final class ClusterCommand implements Callable<Integer> {
    private final CliContext context;

    @Option(names = "--workers", paramLabel = "N", defaultValue = "2",
            description = "Attempt-worker processes (1 to 8, default ${DEFAULT-VALUE}).")
    int workers;

    @Option(names = "--reconcilers", paramLabel = "M", defaultValue = "1",
            description = "Result-reconciler processes (1 to 8, default ${DEFAULT-VALUE}).")
    int reconcilers;

    ClusterCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        ClusterStack.Shape shape;
        try {
            shape = new ClusterStack.Shape(workers, reconcilers);
        } catch (IllegalArgumentException e) {
            context.err().println("onejob cluster: " + e.getMessage());
            return ExitCode.USAGE;
        }
        Path root = Path.of(context.env("ONEJOB_ROOT", ".")).toAbsolutePath().normalize();
        Path dir = root.resolve(context.env(Env.ONEJOB_DATA_DIR, ".onejob")).resolve("cluster").normalize();
        PrintStream out = context.out();
        ClusterStack stack;
        try {
            stack = ClusterStack.start(root, "launcher", dir, shape, context.env(), line -> say(out, line));
        } catch (RuntimeException e) {
            context.err().println("onejob cluster: the cluster did not start: " + e.getMessage()
                    + " (logs in " + dir.resolve("logs") + ")");
            return ExitCode.REFUSED;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            out.println("stopping nginx, the services, the simulators, Kafka, and dropping the database ...");
            stack.close();
            stopped.countDown();
        }, "onejob-cluster-shutdown"));
        describe(stack, out);
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return ExitCode.OK;
    }

    private static void say(PrintStream out, String line) {
        out.println("[cluster " + LocalTime.now().withNano(0) + "] " + line);
        out.flush();
    }

    static void describe(ClusterStack stack, PrintStream out) {
        KafkaCluster kafka = stack.kafka();
        out.println();
        out.println("onejob cluster is up");
        out.println("  HTTP API     " + stack.apiUrl() + "  (nginx, round robin over the ingest instances on "
                + stack.ingestPorts().values() + ")");
        out.println("  PostgreSQL   " + stack.database().jdbcUrl() + "  (dropped at Ctrl-C)");
        out.println("  Kafka        " + kafka.bootstrapServers() + "  (3 nodes, SASL_PLAINTEXT + SCRAM-SHA-512;"
                + " replication 3, min.insync.replicas 2)");
        var services = ClusterStack.PRINCIPALS.services();
        out.println("  principals   services " + services.ingest() + ", " + services.worker() + ", "
                + services.reconciler() + "; analyst " + ClusterStack.ANALYST + "; producer " + ClusterStack.PRODUCER
                + " (may submit for " + String.join(", ", ClusterStack.PRINCIPALS.producers()
                .get(ClusterStack.PRODUCER)) + "); file " + stack.principalsFile());
        for (String user : new String[] {ClusterStack.PRODUCER, ClusterStack.ANALYST, KafkaCluster.ADMIN}) {
            out.println("  kafka user   " + user + ": password in " + kafka.passwordFile(user) + ", client config "
                    + kafka.clientPropertiesFile(user));
        }
        ClusterStack.OWNERS.forEach(owner -> out.println("  token        " + owner + ": "
                + stack.files().token(owner)));
        out.println("  token        " + ClusterStack.OPERATOR + ": " + stack.files().token(ClusterStack.OPERATOR)
                + " (operate)");
        out.println("  submit a job curl -s -X POST " + stack.apiUrl() + "/v1/jobs -H 'Authorization: Bearer "
                + stack.files().token("alice") + "' -H 'Idempotency-Key: cluster-1' -H 'Content-Type: application/json'"
                + " -H 'Prefer: wait=10' -d '{\"contract\":\"sentiment\",\"variables\":{\"text\":\"I loved it\"},"
                + "\"target\":\"primary\",\"fallbacks\":[\"backup\"]}'");
        out.println("  over Kafka   ./onejob kafka console-producer --bootstrap-server " + kafka.bootstrapServers()
                + " --command-config " + kafka.clientPropertiesFile(ClusterStack.PRODUCER) + " --topic principal."
                + ClusterStack.PRODUCER + ".job-requests   (docs/operations.md)");
        out.println("  operator     ONEJOB_URL=" + stack.apiUrl() + " DATABASE_URL=" + stack.database().jdbcUrl()
                + " ONEJOB_TOKEN=" + stack.files().token(ClusterStack.OPERATOR) + " ./onejob jobs list");
        stack.processes().forEach((name, process) -> out.println("  process      " + name + " (pid " + process.pid()
                + ") log " + process.log()));
        out.println("  logs         " + stack.logs() + " (Kafka nodes: kafka-<id>-<start>.log)");
        out.println("Ctrl-C stops everything.");
        out.flush();
    }
}
