package dev.onejob.launcher;

import dev.onejob.core.config.ConfigException;
import dev.onejob.core.config.Env;
import dev.onejob.core.service.Loops;
import dev.onejob.launcher.cli.CliContext;
import dev.onejob.launcher.cli.ExitCode;
import dev.onejob.launcher.cli.StackFile;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;

/**
 * {@code ./onejob dev}: brings up the local stack on embedded defaults ({@link LocalStack}), says where everything
 * is, writes the {@link StackFile} so the other commands find it, and keeps it running until Ctrl-C.
 */
@Command(name = "dev", mixinStandardHelpOptions = true, version = "onejob 0.1.0",
        header = "Runs the whole pipeline locally on embedded defaults until Ctrl-C.",
        description = {"Runs the local stack until Ctrl-C: PostgreSQL (DATABASE_URL, default 127.0.0.1:5432; its"
                + " database created and migrated), Apache Kafka (KAFKA_BOOTSTRAP_SERVERS, else a KRaft broker in"
                + " this process on localhost:$KAFKA_PORT, default 9092, with its data in $ONEJOB_DATA_DIR/kafka),"
                + " the topics, two provider simulators, and the three services.",
            "A second start reuses the data. While it runs, the other commands find it through"
                    + " $ONEJOB_DATA_DIR/stack.properties (default .onejob); a variable that is set wins.",
            "Exit status: 0 stopped by Ctrl-C, 1 the stack did not start, 2 configuration error."})
public record DevCommand(CliContext context) implements Callable<Integer> {
    static final int DEFAULT_KAFKA_PORT = 9092;

    @Override
    public Integer call() {
        PrintStream out = context.out();
        Map<String, String> env = new HashMap<>(context.env());
        env.putIfAbsent(Env.KAFKA_PORT, Integer.toString(DEFAULT_KAFKA_PORT));
        // The API speaks plain HTTP here, with dev tokens: loopback only, unless HTTP_HOST says otherwise.
        env.putIfAbsent(Env.HTTP_HOST, "127.0.0.1");
        LocalStack stack = new LocalStack(new Progress(out), Loops.EXIT);
        try {
            stack.start(env);
        } catch (ConfigException e) {
            context.err().println("onejob dev: " + e.getMessage());
            stack.close();
            return ExitCode.USAGE;
        } catch (StartupException e) {
            context.err().println("onejob dev: " + e.getMessage());
            stack.close();
            return ExitCode.REFUSED;
        }
        Path stackFile = StackFile.in(env);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            out.println("stopping ...");
            StackFile.deleteIfOurs(stackFile);
            stack.close();
            stopped.countDown();
        }, "onejob-dev-shutdown"));
        StackFile.write(stackFile, where(stack));
        describe(stack, stackFile, out);
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return ExitCode.OK;
    }

    /** What the other commands need to find this stack. */
    private static Map<String, String> where(LocalStack stack) {
        Map<String, String> where = new LinkedHashMap<>();
        where.put("ONEJOB_URL", "http://localhost:" + stack.httpPort());
        where.put(Env.KAFKA_BOOTSTRAP_SERVERS, stack.bootstrapServers());
        where.put(Env.DATABASE_URL, stack.databaseConfig().jdbcUrl());
        if (stack.databaseConfig().user() != null) {
            where.put(Env.DATABASE_USER, stack.databaseConfig().user());
        }
        return where;
    }

    private static void describe(LocalStack stack, Path stackFile, PrintStream out) {
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
        out.println("  drop-in      curl -s http://localhost:" + stack.httpPort() + "/v1/chat/completions"
                + " -H 'Authorization: Bearer " + alice + "' -H 'Idempotency-Key: demo-2'"
                + " -H 'Content-Type: application/json'"
                + " -d '{\"model\":\"fast\",\"messages\":[{\"role\":\"user\",\"content\":\"I loved it\"}]}'"
                + "  (OpenAI and Anthropic SDKs: docs/drop-in.md)");
        out.println("  operator     ONEJOB_TOKEN=" + stack.devTokens().getOrDefault("ops", "$TOKEN")
                + " ./onejob jobs list   (the commands find this stack through " + stackFile + ")");
        stack.services().simulators().forEach((name, sim) ->
                out.println("  provider     " + name + " (simulator) at " + sim.baseUrl() + ", ledger at /_sim/ledger"));
        out.println("  race-audit   ./onejob races tail");
        out.println("Ctrl-C stops everything.");
    }
}
