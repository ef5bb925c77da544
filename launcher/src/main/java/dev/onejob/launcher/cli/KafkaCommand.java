package dev.onejob.launcher.cli;

import dev.onejob.core.config.ConfigException;
import dev.onejob.core.config.Env;
import dev.onejob.core.kafka.KafkaAcls;
import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.kafka.KafkaPrincipals;
import dev.onejob.core.kafka.KafkaTopics;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.tools.ProducerPerformance;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

/**
 * {@code ./onejob kafka TOOL [args]}: Apache Kafka's own command-line tools, run from Kafka's artifacts on this
 * classpath, so nobody needs a Kafka install. Every argument after the tool's name is the tool's, passed on in
 * order and untouched (its own {@code --help} included).
 */
@Command(name = "kafka", mixinStandardHelpOptions = true, version = "onejob 0.1.0",
        header = "Apache Kafka's own tools (console-consumer, console-producer, producer-perf-test), and onejob's ACLs.",
        subcommands = {KafkaCommand.ConsoleConsumer.class, KafkaCommand.ConsoleProducer.class,
            KafkaCommand.ProducerPerfTest.class, KafkaCommand.Acls.class},
        description = {"Apache Kafka's own tools, from Kafka's artifacts (no Kafka install needed); every argument"
                + " after the tool's name is the tool's own (TOOL --help: its options). For example:",
            "  ./onejob kafka console-consumer --bootstrap-server localhost:9092 --topic race-audit --from-beginning"})
public final class KafkaCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().getErr().println("name a tool: " + String.join(", ", spec.subcommands().keySet()));
        spec.commandLine().usage(spec.commandLine().getErr());
        return ExitCode.USAGE;
    }

    /** A tool: its arguments, in the order given, are passed on to its main method. */
    abstract static class Tool implements Callable<Integer> {
        @Unmatched
        List<String> arguments = new ArrayList<>();

        abstract void run(String[] arguments) throws Exception;

        @Override
        public Integer call() throws Exception {
            run(arguments.toArray(String[]::new));
            return ExitCode.OK;
        }
    }

    @Command(name = "console-consumer", description = "Prints a topic's records (kafka-console-consumer).")
    static final class ConsoleConsumer extends Tool {
        @Override
        void run(String[] arguments) throws Exception {
            // Qualified: this command class bears the tool's own name.
            org.apache.kafka.tools.consumer.ConsoleConsumer.main(arguments);
        }
    }

    @Command(name = "console-producer", description = "Publishes lines read from standard input"
            + " (kafka-console-producer).")
    static final class ConsoleProducer extends Tool {
        @Override
        void run(String[] arguments) {
            // Qualified: this command class bears the tool's own name.
            org.apache.kafka.tools.ConsoleProducer.main(arguments);
        }
    }

    @Command(name = "producer-perf-test", description = "Kafka's producer benchmark (kafka-producer-perf-test).")
    static final class ProducerPerfTest extends Tool {
        @Override
        void run(String[] arguments) throws Exception {
            ProducerPerformance.main(arguments);
        }
    }

    /**
     * {@code ./onejob kafka acls [--apply]}: the ACLs the principals file implies ({@link KafkaAcls}), one per line;
     * with {@code --apply}, creates onejob's topics and every producer's two topics (the layout from
     * {@code KAFKA_TOPIC_PARTITIONS}, {@code KAFKA_REPLICATION_FACTOR}, {@code KAFKA_MIN_INSYNC_REPLICAS}) and the
     * ACLs, as the principal {@code KAFKA_SASL_USERNAME} names, which must be a super user.
     */
    @Command(name = "acls", mixinStandardHelpOptions = true,
            description = {"Prints the ACLs the principals file implies for onejob's services, analysts and producers"
                    + " (docs/security.md).",
                "With --apply, creates onejob's topics and each producer's principal.<user>.job-requests and"
                        + " principal.<user>.job-request-outcomes, then the ACLs, on KAFKA_BOOTSTRAP_SERVERS as the"
                        + " KAFKA_SECURITY_PROTOCOL/KAFKA_SASL_* principal (a super user). Creating what exists"
                        + " changes nothing."})
    static final class Acls implements Callable<Integer> {
        private final CliContext context;

        @picocli.CommandLine.Option(names = "--principals", paramLabel = "FILE",
                description = "The principals file (default: KAFKA_PRINCIPALS_FILE, else config/kafka-principals.yaml).")
        Path file;

        @picocli.CommandLine.Option(names = "--apply", description = "Create the topics and ACLs on the cluster.")
        boolean apply;

        Acls(CliContext context) {
            this.context = context;
        }

        @Override
        public Integer call() {
            Path path = file != null ? file
                    : Path.of(context.env(Env.KAFKA_PRINCIPALS_FILE, "config/kafka-principals.yaml"));
            KafkaPrincipals principals;
            try {
                principals = KafkaPrincipals.load(path);
            } catch (ConfigException e) {
                context.err().println(e.getMessage());
                return ExitCode.USAGE;
            }
            List<AclBinding> bindings = KafkaAcls.bindings(principals);
            bindings.forEach(binding -> context.out().println(KafkaAcls.describe(binding)));
            if (!apply) {
                return ExitCode.OK;
            }
            Map<String, String> env = context.runningEnv();
            KafkaConfig kafka = KafkaConfig.fromEnv(env);
            List<String> topics = new ArrayList<>(KafkaTopics.allNames());
            topics.addAll(principals.producerTopics());
            KafkaTopics.ensure(kafka, topics, KafkaTopics.Layout.fromEnv(env));
            try (Admin admin = Admin.create(kafka.admin("onejob-acls"))) {
                KafkaAcls.apply(admin, bindings);
            }
            context.out().println("applied: " + topics.size() + " topics, " + bindings.size() + " ACLs on "
                    + kafka.bootstrapServers());
            return ExitCode.OK;
        }
    }
}
