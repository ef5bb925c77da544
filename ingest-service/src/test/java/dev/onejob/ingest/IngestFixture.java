package dev.onejob.ingest;

import dev.onejob.core.db.Database;
import dev.onejob.core.db.DatabaseConfig;
import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.kafka.KafkaTopics;
import dev.onejob.core.ledger.LedgerStore;
import dev.onejob.core.outbox.OutboxRelay;
import dev.onejob.core.service.Loops;
import dev.onejob.testing.TestDatabase;
import dev.onejob.testing.TestKafka;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * One ingest service for the test JVM, on the run's database and broker, with three callers: alice and bob
 * (role submit) and ops (role operate). The outbox relay runs beside it under the fixture's control, so a test can
 * stop it to play a crash.
 */
final class IngestFixture {
    // At least Tokens.MIN_TOKEN_LENGTH characters each: a shorter token is never accepted.
    static final String ALICE = "alice-token-0123456789";
    static final String BOB = "bob-token-0123456789";
    static final String OPS = "ops-token-0123456789";
    /** Submits and operates: may override the certification check on its own jobs. */
    static final String BOSS = "boss-token-0123456789";
    private static IngestFixture shared;

    final Database database = Database.wrap(TestDatabase.shared().dataSource());
    final LedgerStore ledger = new LedgerStore(database);
    final String bootstrap = TestKafka.shared().bootstrapServers();
    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    final IngestService service;
    final DatabaseConfig databaseConfig;
    final IngestMetrics relayMetrics = new IngestMetrics();
    private OutboxRelay relay;
    private Thread relayThread;

    private IngestFixture() throws IOException {
        KafkaTopics.ensure(bootstrap, KafkaTopics.allNames(), 3, (short) 1);
        Path dir = Files.createTempDirectory("onejob-ingest-test");
        Path tokens = dir.resolve("tokens.yaml");
        Files.writeString(tokens, "tokens:\n"
                + token("alice", "[submit]", ALICE) + token("bob", "[submit]", BOB) + token("ops", "[operate]", OPS)
                + token("boss", "[submit, operate]", BOSS));
        TestDatabase db = TestDatabase.shared();
        databaseConfig = new DatabaseConfig(db.jdbcUrl(), db.user(), System.getenv("DATABASE_PASSWORD"), 4);
        IngestConfig config = new IngestConfig(databaseConfig, new KafkaConfig(bootstrap), IngestConfig.http(dev.onejob.core.config.Settings.of(Map.of("HTTP_HOST", "127.0.0.1",
                "HTTP_PORT", "0", "HTTP_THREADS", "16"))), 64 * 1024, tokens, Path.of("../config/providers.yaml"), Path.of("../config/contracts"), false, java.time.Duration.ZERO,
                "ingest-test", dev.onejob.ingest.http.FrontDoor.defaults().withRatePerOwner(0));
        service = new IngestService(config, database, Map.of(), OutboxRelay.Hooks.NONE,
                Loops.REPORT_ONLY);
        service.start();
        // backup is certified for sentiment as the contract is now; primary is not (it is only ever a target here)
        var contract = dev.onejob.core.contract.Contracts.load(Path.of("../config/contracts")).find("sentiment")
                .orElseThrow();
        dev.onejob.testing.Certifications.record(db.dataSource(), "backup", "claude-sonnet-4-5", "sentiment",
                contract.version(), true, java.time.Instant.now());
        startRelay();
    }

    static synchronized IngestFixture shared() {
        if (shared == null) {
            try {
                shared = new IngestFixture();
            } catch (IOException e) {
                throw new IllegalStateException("cannot start the ingest fixture", e);
            }
        }
        return shared;
    }

    private static String token(String owner, String roles, String token) {
        return "  - owner: " + owner + "\n    roles: " + roles + "\n    sha256: " + Tokens.sha256Hex(token) + "\n";
    }

    synchronized void startRelay() {
        if (relayThread == null) {
            relay = new OutboxRelay(database, databaseConfig, new KafkaConfig(bootstrap), "test-relay", relayMetrics.registry(),
                    OutboxRelay.Hooks.NONE, OutboxRelay.DEFAULT_LEASE);
            relayThread = new Thread(relay, "test-relay");
            relayThread.setDaemon(true);
            relayThread.start();
        }
    }

    synchronized void stopRelay() throws InterruptedException {
        if (relayThread != null) {
            relay.close();
            relayThread.join(10_000);
            relayThread = null;
        }
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + service.httpPort() + path);
    }

    HttpResponse<String> send(String method, String path, String token, Map<String, String> headers, String body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        if (body != null) {
            request.header("Content-Type", "application/json");
        }
        headers.forEach(request::header);
        try {
            return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalStateException("HTTP " + method + " " + path + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    HttpResponse<String> submit(String token, String key, String body) {
        return send("POST", "/v1/jobs", token, key == null ? Map.of() : Map.of("Idempotency-Key", key), body);
    }

    static String request(String text) {
        return "{\"contract\":\"sentiment\",\"variables\":{\"text\":\"" + text
                + "\"},\"target\":\"primary\",\"fallbacks\":[\"backup\"]}";
    }
}
