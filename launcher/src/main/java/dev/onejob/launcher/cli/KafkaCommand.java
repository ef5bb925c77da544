package dev.onejob.launcher.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
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
        header = "Apache Kafka's own tools: console-consumer, console-producer, producer-perf-test.",
        subcommands = {KafkaCommand.ConsoleConsumer.class, KafkaCommand.ConsoleProducer.class,
            KafkaCommand.ProducerPerfTest.class},
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
            org.apache.kafka.tools.consumer.ConsoleConsumer.main(arguments);
        }
    }

    @Command(name = "console-producer", description = "Publishes lines read from standard input"
            + " (kafka-console-producer).")
    static final class ConsoleProducer extends Tool {
        @Override
        void run(String[] arguments) {
            org.apache.kafka.tools.ConsoleProducer.main(arguments);
        }
    }

    @Command(name = "producer-perf-test", description = "Kafka's producer benchmark (kafka-producer-perf-test).")
    static final class ProducerPerfTest extends Tool {
        @Override
        void run(String[] arguments) throws Exception {
            org.apache.kafka.tools.ProducerPerformance.main(arguments);
        }
    }
}
