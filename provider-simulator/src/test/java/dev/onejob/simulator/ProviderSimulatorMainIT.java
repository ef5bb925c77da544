package dev.onejob.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The simulator as its own process: environment in, one "started" line out, clean stop on SIGTERM. */
class ProviderSimulatorMainIT {

    @Test
    void runsAsAProcessOnTheConfiguredPortAndStopsOnSigterm(@TempDir Path dir) throws Exception {
        // given
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        Path log = dir.resolve("simulator.log");
        ProcessBuilder builder = new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), ProviderSimulatorMain.class.getName())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().put("SIM_PORT", String.valueOf(port));
        builder.environment().put("SIM_NAME", "main-it");
        builder.environment().put("SIM_API_KEY", "sk-main-secret");
        Process process = builder.start();
        try {
            // when
            boolean started = awaitLogLine(log, "started", process);
            HttpResponse<String> health = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/_sim/health")).build(),
                    HttpResponse.BodyHandlers.ofString());
            process.destroy();
            boolean exited = process.waitFor(10, TimeUnit.SECONDS);

            // then
            String output = Files.readString(log, StandardCharsets.UTF_8);
            assertTrue(started, output);
            assertTrue(output.contains("started on http://127.0.0.1:" + port), output);
            assertEquals(200, health.statusCode());
            assertTrue(health.body().contains("main-it"), health.body());
            assertTrue(exited, "process did not stop on SIGTERM");
            assertTrue(output.contains("'main-it' stopped"), output);
            assertFalse(output.contains("sk-main-secret"), output);
        } finally {
            process.destroyForcibly();
        }
    }

    private static boolean awaitLogLine(Path log, String marker, Process process)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline && process.isAlive()) {
            if (Files.exists(log) && Files.readString(log, StandardCharsets.UTF_8).contains(marker)) {
                return true;
            }
            Thread.sleep(20);
        }
        return false;
    }
}
