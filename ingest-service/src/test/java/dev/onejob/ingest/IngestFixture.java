package dev.onejob.ingest;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.config.Settings;
import dev.onejob.core.contract.Contracts;
import dev.onejob.core.db.Database;
import dev.onejob.core.db.DatabaseConfig;
import dev.onejob.core.json.Json;
import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.kafka.KafkaTopics;
import dev.onejob.core.ledger.CompletionOutcome;
import dev.onejob.core.ledger.Ledger;
import dev.onejob.core.outbox.OutboxRelay;
import dev.onejob.core.service.Loops;
import dev.onejob.ingest.http.FrontDoor;
import dev.onejob.testing.Certifications;
import dev.onejob.testing.JsonCalls;
import dev.onejob.testing.TestDatabase;
import dev.onejob.testing.TestKafka;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

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
    final Ledger ledger = new Ledger(database);
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
        Path tokens = new TokensFile().token("alice", "[submit]", ALICE).token("bob", "[submit]", BOB)
                .token("ops", "[operate]", OPS).token("boss", "[submit, operate]", BOSS).write("onejob-ingest-test");
        TestDatabase db = TestDatabase.shared();
        databaseConfig = new DatabaseConfig(db.jdbcUrl(), db.user(), System.getenv("DATABASE_PASSWORD"), 4);
        IngestConfig config = new IngestConfig(databaseConfig, new KafkaConfig(bootstrap), IngestConfig.http(Settings.of(Map.of("HTTP_HOST", "127.0.0.1",
                "HTTP_PORT", "0", "HTTP_THREADS", "16"))), 64 * 1024, tokens, Path.of("../config/providers.yaml"), Path.of("../config/contracts"), false, Duration.ZERO,
                "ingest-test", FrontDoor.defaults().withRatePerOwner(0));
        service = new IngestService(config, database, Map.of(), OutboxRelay.Hooks.NONE,
                Loops.REPORT_ONLY);
        service.start();
        // backup is certified for sentiment as the contract is now; primary is not (it is only ever a target here)
        var contract = Contracts.load(Path.of("../config/contracts")).find("sentiment")
                .orElseThrow();
        Certifications.record(db.dataSource(), "backup", "claude-sonnet-4-5", "sentiment",
                contract.version(), true, Instant.now());
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

    synchronized void startRelay() {
        if (relayThread == null) {
            relay = new OutboxRelay(database, new KafkaConfig(bootstrap), "test-relay", relayMetrics.registry(),
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

    /**
     * Another ingest instance, started, on the run's database and broker and the repository's providers and
     * contracts, with no relay (the fixture's publishes): its own name, tokens file, pool size, HTTP settings
     * ({@code HTTP_HOST} and {@code HTTP_PORT} are set here), body limit and front door. The caller closes it.
     */
    static IngestService startInstance(String instanceId, Path tokens, int connections, Map<String, String> http,
                                       int maxBodyBytes, FrontDoor frontDoor) throws IOException {
        TestDatabase db = TestDatabase.shared();
        Map<String, String> env = new HashMap<>(http);
        env.put("HTTP_HOST", "127.0.0.1");
        env.put("HTTP_PORT", "0");
        IngestConfig config = new IngestConfig(new DatabaseConfig(db.jdbcUrl(), db.user(),
                System.getenv("DATABASE_PASSWORD"), connections), new KafkaConfig(TestKafka.shared().bootstrapServers()),
                IngestConfig.http(Settings.of(env)), maxBodyBytes, tokens, Path.of("../config/providers.yaml"),
                Path.of("../config/contracts"), false, Duration.ZERO, instanceId, frontDoor);
        IngestService service = new IngestService(config, Database.wrap(db.dataSource()), Map.of(),
                OutboxRelay.Hooks.NONE, Loops.REPORT_ONLY);
        service.start();
        return service;
    }

    /** Moves the job's first attempt to STARTING and then to SUCCEEDED, as a worker and the reconciler would. */
    void succeedFirstAttempt(String jobId) {
        UUID job = UUID.fromString(jobId);
        UUID attempt = ledger.lookups().attempts(job).get(0).id();
        ledger.starts().start(attempt, Duration.ofSeconds(30));
        CompletionOutcome outcome = ledger.completions().complete(job, attempt,
                Json.parse("{\"sentiment\":\"positive\",\"summary\":\"ok\"}"), "req-" + attempt);
        assertTrue(outcome instanceof CompletionOutcome.Won, outcome.toString());
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + service.httpPort() + path);
    }

    HttpResponse<String> send(String method, String path, String token, Map<String, String> headers, String body) {
        return JsonCalls.send(http, method, uri(path), token, headers, body);
    }

    /**
     * A request as sent, over a raw socket ({@link RawHttp}): each {@code authorization} value as one Authorization
     * header, an Idempotency-Key unless {@code key} is null, and a JSON body unless {@code body} is null.
     */
    RawHttp.Response sendRaw(List<String> authorization, String method, String target, String key, String body) {
        List<RawHttp.Header> headers = new ArrayList<>();
        authorization.forEach(value -> headers.add(FuzzAuth.authorization(value)));
        if (key != null) {
            headers.add(new RawHttp.Header("Idempotency-Key", key));
        }
        if (body != null) {
            headers.add(new RawHttp.Header("Content-Type", "application/json"));
        }
        return RawHttp.send(service.httpPort(), method, target, headers,
                body == null ? null : body.getBytes(StandardCharsets.UTF_8), true);
    }

    HttpResponse<String> submit(String token, String key, String body) {
        return send("POST", "/v1/jobs", token, key == null ? Map.of() : Map.of("Idempotency-Key", key), body);
    }

    static String request(String text) {
        return "{\"contract\":\"sentiment\",\"variables\":{\"text\":\"" + text
                + "\"},\"target\":\"primary\",\"fallbacks\":[\"backup\"]}";
    }
}
