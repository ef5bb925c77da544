package dev.onejob.core.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * On a two-core machine, asynchronous stages run on the common pool's threads once {@link AsyncPool#configure()}
 * ran first, instead of on a new thread each. Played in a JVM of its own that believes it has two cores, since the
 * test JVM's pool was set up long before.
 */
class AsyncPoolTest {

    /** The child JVM: configures, then runs 200 async stages and prints how many threads ran them, and their kind. */
    public static void main(String[] args) {
        if (args.length > 0) {
            AsyncPool.configure();
        }
        Set<String> threads = ConcurrentHashMap.newKeySet();
        CompletableFuture<?>[] stages = new CompletableFuture<?>[200];
        for (int i = 0; i < stages.length; i++) {
            stages[i] = CompletableFuture.runAsync(() -> threads.add(Thread.currentThread().getName()));
        }
        CompletableFuture.allOf(stages).join();
        boolean pooled = threads.stream().allMatch(name -> name.startsWith("ForkJoinPool.commonPool-worker"));
        System.out.println(threads.size() + " " + pooled);
    }

    private static String runOnTwoCores(boolean configure) throws IOException, InterruptedException {
        List<String> command = new java.util.ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-XX:ActiveProcessorCount=2",
                "-cp", System.getProperty("java.class.path"), AsyncPoolTest.class.getName()));
        if (configure) {
            command.add("configure");
        }
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the child JVM finished");
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertEquals(0, process.exitValue(), out);
        return out;
    }

    @Test
    void onTwoCoresAsyncStagesRunOnTwoPooledThreadsInsteadOfOneThreadEach() throws Exception {
        // given a JVM that sees two cores: without configure, stages get threads of their own (not the pool's)
        String unconfigured = runOnTwoCores(false);
        assertTrue(unconfigured.endsWith("false"), "without configure, no common pool: " + unconfigured);

        // when configure runs first
        String configured = runOnTwoCores(true);

        // then the common pool's two workers (at most) ran every stage
        String[] parts = configured.split(" ");
        assertEquals("true", parts[1], configured);
        assertTrue(Integer.parseInt(parts[0]) <= 2, configured);
    }
}
