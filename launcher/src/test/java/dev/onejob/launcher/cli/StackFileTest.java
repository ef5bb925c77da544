package dev.onejob.launcher.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How the commands find a running {@code ./onejob dev}: its stack file, read under the environment. */
class StackFileTest {
    @TempDir
    Path dataDir;

    private CliContext contextWith(Map<String, String> env) {
        return new CliContext(env, StackFile.readLive(StackFile.in(env)), System.out, System.err);
    }

    @Test
    void aLiveStacksFileFillsWhatTheEnvironmentLeavesUnset() {
        Map<String, String> env = Map.of("ONEJOB_DATA_DIR", dataDir.toString(), "ONEJOB_URL", "http://elsewhere:1");
        StackFile.write(StackFile.in(env), Map.of("ONEJOB_URL", "http://localhost:8080",
                "KAFKA_BOOTSTRAP_SERVERS", "localhost:9092", "DATABASE_URL", "jdbc:postgresql://127.0.0.1:5432/x"));

        CliContext context = contextWith(env);

        assertEquals("http://elsewhere:1", context.running("ONEJOB_URL", null), "a variable that is set wins");
        assertEquals("localhost:9092", context.running("KAFKA_BOOTSTRAP_SERVERS", null));
        assertEquals("jdbc:postgresql://127.0.0.1:5432/x", context.runningEnv().get("DATABASE_URL"));
        assertFalse(context.runningEnv().containsKey("pid"));
    }

    @Test
    void commandsThatStartAStackOfTheirOwnDoNotSeeIt() {
        Map<String, String> env = Map.of("ONEJOB_DATA_DIR", dataDir.toString());
        StackFile.write(StackFile.in(env), Map.of("KAFKA_BOOTSTRAP_SERVERS", "localhost:9092"));

        assertEquals(null, contextWith(env).env("KAFKA_BOOTSTRAP_SERVERS", null));
    }

    @Test
    void aBlankVariableCountsAsUnset() {
        Map<String, String> env = new HashMap<>(Map.of("ONEJOB_DATA_DIR", dataDir.toString(),
                "KAFKA_BOOTSTRAP_SERVERS", " "));
        StackFile.write(StackFile.in(env), Map.of("KAFKA_BOOTSTRAP_SERVERS", "localhost:9092"));

        assertEquals("localhost:9092", contextWith(env).running("KAFKA_BOOTSTRAP_SERVERS", null));
        assertEquals("localhost:9092", contextWith(env).runningEnv().get("KAFKA_BOOTSTRAP_SERVERS"));
    }

    @Test
    void aFileLeftByAProcessThatIsGoneIsIgnored() throws IOException, InterruptedException {
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        Files.writeString(dataDir.resolve(StackFile.NAME), "pid=" + gone.pid() + "\nONEJOB_URL=http://stale:1\n");

        assertTrue(StackFile.readLive(dataDir.resolve(StackFile.NAME)).isEmpty());
    }

    @Test
    void onlyTheProcessThatWroteTheFileDeletesIt() throws IOException {
        Path file = dataDir.resolve(StackFile.NAME);
        Files.writeString(file, "pid=1\nONEJOB_URL=http://other:1\n");
        StackFile.deleteIfOurs(file);
        assertTrue(Files.exists(file), "another stack's file is kept");

        StackFile.write(file, Map.of("ONEJOB_URL", "http://localhost:8080"));
        StackFile.deleteIfOurs(file);
        assertFalse(Files.exists(file));
    }
}
