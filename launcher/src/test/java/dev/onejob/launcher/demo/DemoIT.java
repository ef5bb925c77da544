package dev.onejob.launcher.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.launcher.cli.CliContext;
import dev.onejob.testing.TestDatabase;
import dev.onejob.testing.TestKafka;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code ./onejob demo} end to end on a stack of its own in this JVM, on the run's database and broker. */
class DemoIT {
    @Test
    void theDemoPlaysEveryScenarioAndEveryOnePasses() {
        // given the run's database and broker
        TestDatabase db = TestDatabase.shared();
        Map<String, String> env = new HashMap<>();
        env.put("DATABASE_USER", db.user());
        if (System.getenv("DATABASE_PASSWORD") != null) {
            env.put("DATABASE_PASSWORD", System.getenv("DATABASE_PASSWORD"));
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CliContext context = new CliContext(env, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));

        // when the demo runs on its own stack
        int exit = DemoCommand.run(new String[] {"--database-url", db.jdbcUrl(),
            "--bootstrap-servers", TestKafka.shared().bootstrapServers(),
            "--contracts-dir", Path.of("../config/contracts").toString()}, context);
        String output = out.toString(StandardCharsets.UTF_8);

        // then it exits 0 and its closing table has a PASS row for every scenario
        assertEquals(0, exit, output + err.toString(StandardCharsets.UTF_8));
        List<String> table = output.lines().dropWhile(line -> !line.startsWith("scenario ")).toList();
        List<Scenario> scenarios = DemoRun.scenarios();
        assertEquals(6, scenarios.size());
        for (int number = 1; number <= scenarios.size(); number++) {
            String row = number + ". ";
            assertTrue(table.stream().anyMatch(line -> line.startsWith(row) && line.endsWith("  PASS")),
                    "no PASS row for scenario " + number + " in\n" + String.join("\n", table));
        }
        assertTrue(table.stream().noneMatch(line -> line.endsWith("  FAIL")), String.join("\n", table));
    }
}
