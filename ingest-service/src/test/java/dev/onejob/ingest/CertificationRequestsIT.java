package dev.onejob.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.certification.Certification;
import dev.onejob.core.certification.CertificationCheck;
import dev.onejob.core.certification.CertificationRequests;
import dev.onejob.core.certification.CertificationStore;
import dev.onejob.core.contract.Contracts;
import dev.onejob.core.db.Database;
import dev.onejob.core.db.DatabaseConfig;
import dev.onejob.core.json.Json;
import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.kafka.Topics;
import dev.onejob.core.outbox.OutboxRelay;
import dev.onejob.core.outbox.OutboxStore;
import dev.onejob.core.service.Loops;
import dev.onejob.core.config.Settings;
import dev.onejob.ingest.http.FrontDoor;
import dev.onejob.testing.Await;
import dev.onejob.testing.TestDatabase;
import dev.onejob.testing.TestKafka;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The ingest service asks, the workers certify: {@code POST /v1/certifications} records a request and its command in
 * the outbox, calls no provider, and answers with the runs a worker recorded under the request (here the test plays
 * the worker on the request's row), or 202 with the request id once {@code CERTIFY_WAIT} passed; an id its files do
 * not know is refused at once, queuing nothing.
 */
class CertificationRequestsIT {
    private static final String OPS = "ops-certify-token-0123456789";
    private static final Duration WAIT = Duration.ofSeconds(5);
    private static final Database DATABASE = Database.wrap(TestDatabase.shared().dataSource());
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static IngestService ingest;

    @BeforeAll
    static void start() throws IOException {
        Path tokens = new TokensFile().token("ops", "[operate]", OPS).write("onejob-certify-test");
        TestDatabase db = TestDatabase.shared();
        IngestConfig config = new IngestConfig(new DatabaseConfig(db.jdbcUrl(), db.user(),
                System.getenv("DATABASE_PASSWORD"), 4), new KafkaConfig(TestKafka.shared().bootstrapServers()),
                IngestConfig.http(Settings.of(Map.of("HTTP_HOST", "127.0.0.1", "HTTP_PORT", "0"))), 64 * 1024,
                tokens, Path.of("../config/providers.yaml"), Path.of("../config/contracts"), false, Duration.ZERO,
                "ingest-certify-test", FrontDoor.defaults().withRatePerOwner(0), null, Duration.ZERO,
                Duration.ofHours(1), null, WAIT);
        ingest = new IngestService(config, DATABASE, Map.of(), OutboxRelay.Hooks.NONE, Loops.REPORT_ONLY);
        ingest.start();
    }

    @AfterAll
    static void stop() {
        ingest.close();
    }

    @Test
    void anOperatorsRequestIsQueuedForTheWorkersAndAnsweredWithTheRunsTheyRecordedUnderIt() throws Exception {
        CompletableFuture<HttpResponse<String>> answer = post("{\"provider\":\"backup\",\"contract\":\"sentiment\"}");
        UUID id = awaitOpenRequest("backup");
        try (Connection connection = DATABASE.dataSource().getConnection()) {
            assertEquals(1, OutboxStore.eventsFor(connection, Topics.CERTIFICATION_COMMANDS.name(), id.toString())
                    .size(), "the command is queued in the outbox with the request");
        }

        // the worker's part: claim, record a run under the request, finish
        CertificationRequests requests = new CertificationRequests(DATABASE);
        assertTrue(requests.claim(id, "test-worker"));
        String version = Contracts.load(Path.of("../config/contracts")).find("sentiment").orElseThrow().version();
        Instant now = Instant.now();
        Certification run = new Certification(UUID.randomUUID(), "backup", "claude-sonnet-4-5", "sentiment", version,
                true, List.of(CertificationCheck.of("structure", true, "played by the test", Json.object())),
                "report", 1, now.minusSeconds(1), now, null);
        assertTrue(new CertificationStore(DATABASE).record(run, id));
        assertTrue(requests.finish(id, "test-worker", null));

        HttpResponse<String> response = answer.get();
        assertEquals(200, response.statusCode(), response.body());
        JsonNode body = Json.parse(response.body());
        assertEquals(id.toString(), body.path("request_id").asText());
        assertEquals(1, body.path("certifications").size());
        assertEquals(run.id().toString(), body.path("certifications").get(0).path("id").asText());
    }

    @Test
    void aRequestNoWorkerFinishesWithinTheWaitIsAnswered202WithItsIdAndStaysQueued() throws Exception {
        HttpResponse<String> response = post("{\"all\": true}").get();

        assertEquals(202, response.statusCode(), response.body());
        JsonNode body = Json.parse(response.body());
        assertEquals("running", body.path("status").asText());
        UUID id = UUID.fromString(body.path("request_id").asText());
        CertificationRequests.Request request = new CertificationRequests(DATABASE).find(id).orElseThrow();
        assertEquals(Optional.empty(), request.provider());
        assertEquals("operator:ops", request.requestedBy());
        assertTrue(!request.finished() && request.claimedBy().isEmpty(), request.toString());
    }

    @Test
    void anUnknownProviderIsRefusedAtOnceNamingTheKnownOnesAndQueuesNothing() throws Exception {
        long before = count("SELECT count(*) FROM certification_requests");

        HttpResponse<String> response = post("{\"provider\":\"nowhere\",\"contract\":\"sentiment\"}").get();

        assertEquals(422, response.statusCode(), response.body());
        assertTrue(response.body().contains("no provider 'nowhere' in the providers file; known: "), response.body());
        assertTrue(response.body().contains("backup"), response.body());
        assertEquals(before, count("SELECT count(*) FROM certification_requests"));
    }

    private static CompletableFuture<HttpResponse<String>> post(String body) {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ingest.httpPort()
                        + "/v1/certifications")).header("Authorization", "Bearer " + OPS)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build();
        return HTTP.sendAsync(request, HttpResponse.BodyHandlers.ofString());
    }

    private static UUID awaitOpenRequest(String provider) throws SQLException {
        UUID[] found = new UUID[1];
        Await.until(Duration.ofSeconds(4), "the request to be recorded", () -> {
            try (Connection connection = DATABASE.dataSource().getConnection();
                 PreparedStatement select = connection.prepareStatement("SELECT id FROM certification_requests"
                         + " WHERE provider = ? AND finished_at IS NULL ORDER BY requested_at DESC LIMIT 1")) {
                select.setString(1, provider);
                try (ResultSet row = select.executeQuery()) {
                    found[0] = row.next() ? row.getObject(1, UUID.class) : null;
                }
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
            return found[0] != null;
        });
        return found[0];
    }

    private static long count(String sql) throws SQLException {
        try (Connection connection = DATABASE.dataSource().getConnection();
             PreparedStatement select = connection.prepareStatement(sql); ResultSet row = select.executeQuery()) {
            row.next();
            return row.getLong(1);
        }
    }
}
