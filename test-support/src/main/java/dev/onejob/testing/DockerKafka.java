package dev.onejob.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.utility.DockerImageName;

/** Testcontainers' Kafka, used only when a Docker engine answers (never on a machine with just the client). */
final class DockerKafka {
    private DockerKafka() {
    }

    static boolean dockerAnswers() {
        boolean configured = System.getenv("DOCKER_HOST") != null
                || Files.exists(Path.of("/var/run/docker.sock"));
        if (!configured) {
            return false;
        }
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    @SuppressWarnings("resource") // stopped by Testcontainers' reaper when the JVM exits
    static String start(String image) {
        KafkaContainer container = new KafkaContainer(DockerImageName.parse(image));
        container.start();
        return container.getBootstrapServers();
    }
}
