package dev.onejob.launcher;

import java.io.PrintStream;
import java.util.concurrent.CountDownLatch;

/**
 * The {@code ./onejob} command. {@code dev} brings up the local stack on embedded defaults and keeps it running
 * until Ctrl-C.
 */
public final class OnejobMain {
    private OnejobMain() {
    }

    public static void main(String[] args) throws Exception {
        String command = args.length == 0 ? "help" : args[0];
        PrintStream out = System.out;
        switch (command) {
            case "dev" -> System.exit(dev(out));
            case "kafka" -> kafkaTool(java.util.Arrays.copyOfRange(args, 1, args.length));
            case "demo" -> dev.onejob.launcher.demo.DemoCommand.main(
                    java.util.Arrays.copyOfRange(args, 1, args.length));
            case "jobs", "attempts", "providers", "races", "outbox", "certify" ->
                    dev.onejob.launcher.cli.OnejobCli.main(args);
            case "help", "--help", "-h" -> {
                usage(out);
                System.exit(0);
            }
            default -> {
                System.err.println("unknown command '" + command + "'");
                usage(System.err);
                System.exit(2);
            }
        }
    }

    private static void usage(PrintStream out) {
        out.println("""
                usage: ./onejob <command>

                  dev     run the local stack: PostgreSQL (DATABASE_URL or 127.0.0.1:5432, database created and
                          migrated), Apache Kafka (KAFKA_BOOTSTRAP_SERVERS or an in-process KRaft broker), topics;
                          Ctrl-C stops it, a second start reuses the data
                  kafka console-consumer|console-producer|producer-perf-test [args]
                          Apache Kafka's own tools, from Kafka's artifacts (no Kafka install needed), e.g.
                          ./onejob kafka console-consumer --bootstrap-server HOST:PORT --topic race-audit --from-beginning
                  demo    play the design's scenarios (double click, changed payload, timeout, out-of-band
                          resolution and fallback, reverse-order finish, failover blocked by a failed
                          certification) against a stack of its own, or with --url against a running
                          ./onejob dev; narrates each step, ends with a PASS/FAIL table (demo --help: options)
                  certify --provider ID --contract ID | --all
                          run a contract's golden inputs through a provider and store the result (failover only
                          goes to certified providers); also `providers certify`
                  jobs get|list|cancel, attempts resolve, providers list, races tail, outbox status
                          operator commands; ./onejob <command> --help says what each reads (HTTP API or
                          database) and its options. Exit status: 0 ok, 1 not found or refused, 2 usage or
                          configuration error, 3 cannot reach the service, the database or Kafka
                  help    this text""");
    }

    private static void kafkaTool(String[] args) throws Exception {
        if (args.length == 0) {
            System.err.println("usage: ./onejob kafka console-consumer|console-producer|producer-perf-test [args]");
            System.exit(2);
        }
        String[] rest = java.util.Arrays.copyOfRange(args, 1, args.length);
        switch (args[0]) {
            case "console-consumer" -> org.apache.kafka.tools.consumer.ConsoleConsumer.main(rest);
            case "console-producer" -> org.apache.kafka.tools.ConsoleProducer.main(rest);
            case "producer-perf-test" -> org.apache.kafka.tools.ProducerPerformance.main(rest);
            default -> {
                System.err.println("unknown Kafka tool '" + args[0] + "'");
                System.exit(2);
            }
        }
    }

    private static int dev(PrintStream out) {
        Progress progress = new Progress(out);
        LocalStack stack = new LocalStack(progress, dev.onejob.core.service.Loops.EXIT);
        CountDownLatch stopped = new CountDownLatch(1);
        try {
            stack.start(System.getenv());
        } catch (StartupException e) {
            System.err.println("onejob dev: " + e.getMessage());
            stack.close();
            return 1;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            out.println("stopping ...");
            stack.close();
            stopped.countDown();
        }, "onejob-dev-shutdown"));
        out.println();
        out.println("onejob local stack is up");
        out.println("  HTTP API     http://localhost:" + stack.httpPort() + "  (OpenAPI at /openapi.yaml)");
        out.println("  PostgreSQL   " + stack.databaseConfig().jdbcUrl() + " (user " + stack.databaseConfig().user() + ")");
        out.println("  Kafka        " + stack.bootstrapServers());
        stack.devTokens().forEach((owner, token) -> out.println("  token        " + owner + ": " + token));
        String alice = stack.devTokens().getOrDefault("alice", "$TOKEN");
        out.println("  submit a job curl -s -X POST http://localhost:" + stack.httpPort() + "/v1/jobs"
                + " -H 'Authorization: Bearer " + alice + "' -H 'Idempotency-Key: demo-1'"
                + " -H 'Content-Type: application/json'"
                + " -d '{\"contract\":\"sentiment\",\"variables\":{\"text\":\"I loved it\"},"
                + "\"target\":\"primary\",\"fallbacks\":[\"backup\"]}'");
        stack.services().simulators().forEach((name, sim) ->
                out.println("  provider     " + name + " (simulator) at " + sim.baseUrl() + ", ledger at /_sim/ledger"));
        out.println("  race-audit   ./onejob kafka console-consumer --bootstrap-server " + stack.bootstrapServers()
                + " --topic race-audit --from-beginning --formatter-property print.key=true");
        out.println("Ctrl-C stops everything.");
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }
}
