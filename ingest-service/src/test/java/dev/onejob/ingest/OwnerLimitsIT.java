package dev.onejob.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.config.Settings;
import dev.onejob.core.db.Database;
import dev.onejob.core.db.DatabaseConfig;
import dev.onejob.core.json.Json;
import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.ledger.Ledger;
import dev.onejob.core.outbox.OutboxRelay;
import dev.onejob.core.service.Loops;
import dev.onejob.ingest.http.FrontDoor;
import dev.onejob.testing.TestDatabase;
import dev.onejob.testing.TestKafka;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Owner limits over real HTTP, from an owners file: over the spend cap 402, over the live attempts 429, each as
 * problem+json with the reason, nothing written, and the key free for later; an owner without limits unaffected.
 */
class OwnerLimitsIT {
    private final Database database = Database.wrap(TestDatabase.shared().dataSource());
    private final HttpClient http = HttpClient.newHttpClient();
    private final String run = UUID.randomUUID().toString().substring(0, 8);
    private IngestService service;

    @BeforeEach
    void start() throws Exception {
        Path dir = Files.createTempDirectory("onejob-budgets");
        Path tokens = dir.resolve("tokens.yaml");
        Files.writeString(tokens, "tokens:\n" + tokenEntry("erin") + tokenEntry("frank") + tokenEntry("gina"));
        Path budgets = dir.resolve("owners.yaml");
        // erin can afford nothing; frank may have one job unfinished at a time; gina is not limited
        Files.writeString(budgets, """
                owners:
                  erin-%1$s: {spend_cap_usd: 0.000001, period: day}
                  frank-%1$s: {max_live_attempts: 1}
                """.formatted(run));
        TestDatabase db = TestDatabase.shared();
        IngestConfig config = new IngestConfig(new DatabaseConfig(db.jdbcUrl(), db.user(),
                System.getenv("DATABASE_PASSWORD"), 2), new KafkaConfig(TestKafka.shared().bootstrapServers()),
                IngestConfig.http(Settings.of(Map.of("HTTP_HOST", "127.0.0.1", "HTTP_PORT",
                        "0", "HTTP_THREADS", "4"))), 64 * 1024, tokens, Path.of("../config/providers.yaml"),
                Path.of("../config/contracts"), false, Duration.ZERO, "budgets-test",
                FrontDoor.defaults().withRatePerOwner(0), budgets);
        service = new IngestService(config, database, Map.of(), OutboxRelay.Hooks.NONE, Loops.REPORT_ONLY);
        service.start();
    }

    /** An owner's token: at least Tokens.MIN_TOKEN_LENGTH characters, as every accepted token is. */
    private static String token(String name) {
        return name + "-token-0123456789";
    }

    private String tokenEntry(String name) {
        return "  - owner: " + name + "-" + run + "\n    roles: [submit]\n    sha256: "
                + Tokens.sha256Hex(token(name)) + "\n";
    }

    @AfterEach
    void stop() {
        service.close();
    }

    @Test
    void overTheSpendCapIs402WithTheFiguresAndNothingIsWritten() throws Exception {
        HttpResponse<String> refused = submit("erin", "k1");

        assertEquals(402, refused.statusCode(), refused.body());
        assertEquals("application/problem+json", refused.headers().firstValue("Content-Type").orElse(""));
        JsonNode problem = Json.parse(refused.body());
        assertEquals("https://onejob.dev/problems/budget-exceeded", problem.path("type").asText());
        assertTrue(problem.path("detail").asText().contains("0.000001 USD cap"), problem.toString());
        assertTrue(new Ledger(database).lookups().jobForKey("erin-" + run, "k1").isEmpty());
        assertEquals(201, submit("gina", "k1").statusCode(), "an owner without limits is not affected");
    }

    @Test
    void overTheLiveAttemptsIs429AndTheKeyIsFreeOnceAJobFinishes() throws Exception {
        HttpResponse<String> first = submit("frank", "k1");
        assertEquals(201, first.statusCode(), first.body());

        HttpResponse<String> second = submit("frank", "k2");
        HttpResponse<String> replay = submit("frank", "k1");

        assertEquals(429, second.statusCode(), second.body());
        assertEquals("https://onejob.dev/problems/too-many-live-attempts", Json.parse(second.body()).path("type")
                .asText());
        assertEquals(200, replay.statusCode(), "a replay is never refused: " + replay.body());
        new Ledger(database).interventions().cancelJob(UUID.fromString(Json.parse(first.body()).path("id").asText()), "test");
        assertEquals(201, submit("frank", "k2").statusCode(), "the refused key was never taken");
    }

    private HttpResponse<String> submit(String owner, String key) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.httpPort() + "/v1/jobs"))
                .header("Authorization", "Bearer " + token(owner)).header("Idempotency-Key", key)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(IngestFixture.request("budget"))).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
