package dev.onejob.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.onejob.ingest.Tokens;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code docker-compose.yml} read as a new user would, since no container engine runs it where onejob is built: it
 * parses, publishes nothing beyond 127.0.0.1 and nothing on the ports a local PostgreSQL or {@code ./onejob dev}
 * take, runs jars the build makes, keeps Kafka's data on its volume, authenticates PostgreSQL by password, and
 * names a tokens file that lets its documented token in.
 */
class ComposeFileTest {
    private static final Path ROOT = Path.of("..");
    private static final List<String> LOCAL_PORTS = List.of("5432", "9092", "8080", "9001", "9002");

    private static JsonNode compose() throws IOException {
        return new ObjectMapper(new YAMLFactory()).readTree(ROOT.resolve("docker-compose.yml").toFile());
    }

    @Test
    void everyPortIsOnLoopbackAndClearOfTheLocalStack() throws IOException {
        List<String> published = new ArrayList<>();
        compose().path("services").fields().forEachRemaining(s -> s.getValue().path("ports")
                .forEach(p -> published.add(s.getKey() + " " + p.asText())));
        assertFalse(published.isEmpty());
        for (String port : published) {
            String[] parts = port.substring(port.indexOf(' ') + 1).split(":");
            assertEquals(3, parts.length, "host address, host port, container port: " + port);
            assertEquals("127.0.0.1", parts[0], port);
            assertFalse(LOCAL_PORTS.contains(parts[1]), "clashes with a local service: " + port);
        }
    }

    @Test
    void everyServiceRunsAJarTheBuildMakes() throws IOException {
        Pattern jar = Pattern.compile("([a-z-]+)/target/onejob-([a-z-]+)-[0-9.]+-SNAPSHOT\\.jar");
        int jars = 0;
        for (JsonNode service : compose().path("services")) {
            for (JsonNode part : service.path("command")) {
                Matcher m = jar.matcher(part.asText());
                if (m.matches()) {
                    jars++;
                    assertTrue(Files.isRegularFile(ROOT.resolve(m.group(1)).resolve("pom.xml")), part.asText());
                    assertEquals(m.group(1), m.group(2), "the jar is named after its module: " + part.asText());
                    assertTrue(Files.readString(ROOT.resolve(m.group(1)).resolve("pom.xml"))
                            .contains("<artifactId>onejob-" + m.group(1) + "</artifactId>"), part.asText());
                }
            }
        }
        assertEquals(5, jars, "two simulators and the three services");
    }

    @Test
    void kafkaKeepsItsDataOnItsVolumeAndAdvertisesItsPublishedPort() throws IOException {
        JsonNode kafka = compose().path("services").path("kafka");
        String logDirs = kafka.path("environment").path("KAFKA_LOG_DIRS").asText();
        boolean onVolume = false;
        for (JsonNode volume : kafka.path("volumes")) {
            onVolume |= logDirs.startsWith(volume.asText().substring(volume.asText().indexOf(':') + 1));
        }
        assertTrue(onVolume, "KAFKA_LOG_DIRS " + logDirs + " on a mounted volume");
        String hostPort = kafka.path("ports").get(0).asText().split(":")[1];
        assertTrue(kafka.path("environment").path("KAFKA_ADVERTISED_LISTENERS").asText()
                .contains("PLAINTEXT://127.0.0.1:" + hostPort));
    }

    @Test
    void postgresWantsAPasswordAndTheServicesHaveIt() throws IOException {
        JsonNode compose = compose();
        JsonNode postgres = compose.path("services").path("postgres").path("environment");
        assertFalse(postgres.has("POSTGRES_HOST_AUTH_METHOD"), "no trust authentication");
        String password = postgres.path("POSTGRES_PASSWORD").asText();
        assertFalse(password.isEmpty());
        assertEquals(password, compose.path("x-java-service").path("environment").path("DATABASE_PASSWORD")
                .asText());
    }

    @Test
    void theTokensFileLetsItsDocumentedTokenIn() throws IOException {
        JsonNode ingest = compose().path("services").path("ingest-service");
        Tokens tokens = Tokens.load(ROOT.resolve(ingest.path("environment").path("TOKENS_FILE").asText()));
        assertEquals("alice", tokens.authenticate("compose-alice-token").orElseThrow().ownerId());
        assertTrue(tokens.authenticate("compose-ops-token").isPresent());
        assertTrue(Files.readString(ROOT.resolve("docker-compose.yml")).contains("compose-alice-token"),
                "the compose file says which token to use");
    }
}
