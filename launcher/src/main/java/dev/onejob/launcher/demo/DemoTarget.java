package dev.onejob.launcher.demo;

import java.time.Duration;

/**
 * The stack the demo plays against, however it came to be (started in this process, or a running
 * {@code ./onejob dev}): the API, the owner's and the operator's tokens, the two simulators, the broker (null when
 * the demo cannot read Kafka) and the primary's soft timeout. Closing it releases what the demo started for it.
 */
record DemoTarget(String apiUrl, String ownerToken, String operatorToken, String primarySimulatorUrl,
                  String backupSimulatorUrl, String bootstrapServers, Duration primarySoftTimeout,
                  AutoCloseable resources) implements AutoCloseable {

    @Override
    public void close() {
        try {
            resources.close();
        } catch (Exception e) {
            throw new IllegalStateException("stopping the demo's stack failed: " + e.getMessage(), e);
        }
    }
}
