package dev.onejob.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.config.Env;
import dev.onejob.core.db.Database;
import dev.onejob.core.db.DatabaseConfig;
import dev.onejob.core.events.JobRequest;
import dev.onejob.core.events.JobRequestOutcome;
import dev.onejob.core.json.Json;
import dev.onejob.core.kafka.KafkaAcls;
import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.kafka.KafkaPrincipals;
import dev.onejob.core.kafka.KafkaTopics;
import dev.onejob.core.kafka.Topics;
import dev.onejob.core.outbox.OutboxRelay;
import dev.onejob.core.service.Closeables;
import dev.onejob.core.service.ServiceMain;
import dev.onejob.infra.EmbeddedKafka;
import dev.onejob.ingest.IngestConfig;
import dev.onejob.ingest.IngestService;
import dev.onejob.reconciler.ReconcilerConfig;
import dev.onejob.reconciler.ReconcilerService;
import dev.onejob.simulator.ProviderSimulator;
import dev.onejob.simulator.SimulatorConfig;
import dev.onejob.stack.infra.LoopbackPorts;
import dev.onejob.testing.Await;
import dev.onejob.testing.TestDatabase;
import dev.onejob.worker.WorkerConfig;
import dev.onejob.worker.WorkerService;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialAlteration;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * The pipeline on a broker that authenticates every client (SASL/SCRAM-SHA-512) and authorises it with Kafka's
 * {@code StandardAuthorizer}, each service as its own principal with exactly {@link KafkaAcls}'s ACLs and nothing
 * else allowed. The ACLs are shown to be enough (a producer's job request becomes a SUCCEEDED job, answered on the
 * producer's own topic) and no more than that: a producer cannot forge a completion, write another producer's
 * topic or read results; an analyst reads race-audit and nothing else; a record for an owner its producer is not
 * mapped to is answered REJECTED and writes nothing.
 */
class AuthenticatedPipelineIT {
    private static final String PASSWORD_SUFFIX = "-secret";
    private static final KafkaPrincipals PRINCIPALS = new KafkaPrincipals(KafkaPrincipals.OwnerFrom.PRINCIPAL,
            KafkaPrincipals.NONE.services(), List.of("analytics"),
            Map.of("shop", Set.of("alice"), "search", Set.of("bob")));
    private static final List<AutoCloseable> started = new ArrayList<>();
    private static final List<String> deadLoops = new CopyOnWriteArrayList<>();
    private static EmbeddedKafka broker;
    private static TestDatabase db;

    @BeforeAll
    static void start() throws Exception {
        broker = EmbeddedKafka.startWithScramAndAcls(LoopbackPorts.free());
        started.add(broker);
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.internalBootstrapServers()))) {
            List<UserScramCredentialAlteration> users = new ArrayList<>();
            for (String name : PRINCIPALS.allNames()) {
                users.add(new UserScramCredentialUpsertion(name,
                        new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), name + PASSWORD_SUFFIX));
            }
            admin.alterUserScramCredentials(users).all().get(30, TimeUnit.SECONDS);
            KafkaAcls.apply(admin, KafkaAcls.bindings(PRINCIPALS));
        }
        List<String> topics = new ArrayList<>(KafkaTopics.allNames());
        topics.addAll(PRINCIPALS.producerTopics());
        KafkaTopics.ensure(broker.internalBootstrapServers(), topics, 2, (short) 1);
        // Credentials and ACLs reach the SASL listener through the metadata log: wait until a principal gets in.
        Await.until(Duration.ofSeconds(30), "the broker to accept the new credentials", () -> {
            try (Admin admin = Admin.create(as("onejob-worker").admin("probe"))) {
                return admin.listTopics().names().get(5, TimeUnit.SECONDS).contains(Topics.ATTEMPT_COMMANDS.name());
            } catch (Exception notYet) {
                return false;
            }
        });

        db = TestDatabase.shared();
        ProviderSimulator primary = ProviderSimulator.start(SimulatorConfig.defaults().withName("primary").withPort(0)
                .withApiKey("sk-acl"));
        started.add(primary);
        Path dir = Files.createTempDirectory("onejob-acl");
        Path principalsFile = dir.resolve("kafka-principals.yaml");
        Files.writeString(principalsFile, """
                owner_from: principal
                analysts: [analytics]
                producers:
                  shop: [alice]
                  search: [bob]
                """);
        Path providers = dir.resolve("providers.yaml");
        Files.writeString(providers, """
                providers:
                  - {id: primary, protocol: openai-chat, base_url: '%s', model: gpt-test,
                     api_key_env: PRIMARY_API_KEY, soft_timeout: 5s, hard_timeout: 15s,
                     prices: {input: 0.15, output: 0.60}}
                """.formatted(primary.baseUrl()));
        Path tokens = dir.resolve("tokens.yaml");
        Files.writeString(tokens, "tokens: []\n");
        Map<String, String> common = new HashMap<>();
        common.put("TOKENS_FILE", tokens.toString());
        common.put("DATABASE_URL", db.jdbcUrl());
        common.put("DATABASE_USER", db.user());
        common.put("PROVIDERS_FILE", providers.toString());
        common.put("PRIMARY_API_KEY", "sk-acl");
        common.put("CONTRACTS_DIR", Path.of("../config/contracts").toAbsolutePath().toString());
        common.put(Env.METRICS_PORT, "-1");
        common.put("KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers());
        common.put("KAFKA_SECURITY_PROTOCOL", "SASL_PLAINTEXT");
        Database database = Database.connect(new DatabaseConfig(db.jdbcUrl(), db.user(),
                System.getenv("DATABASE_PASSWORD"), 8), "acl-it");
        started.add(database);
        Database.migrate(database.dataSource());

        Map<String, String> ingestEnv = principal(common, "onejob-ingest");
        ingestEnv.put("HTTP_HOST", "127.0.0.1");
        ingestEnv.put("HTTP_PORT", "0");
        ingestEnv.put(Env.KAFKA_PRINCIPALS_FILE, principalsFile.toString());
        ingestEnv.put(Env.INSTANCE_ID, "acl-ingest");
        startService(new IngestService(IngestConfig.fromEnv(ingestEnv), database, ingestEnv, OutboxRelay.Hooks.NONE,
                deadLoops::add));
        Map<String, String> workerEnv = principal(common, "onejob-worker");
        workerEnv.put(Env.INSTANCE_ID, "acl-worker");
        startService(new WorkerService(WorkerConfig.fromEnv(workerEnv), database, workerEnv, deadLoops::add));
        Map<String, String> reconcilerEnv = principal(common, "onejob-reconciler");
        reconcilerEnv.put(Env.INSTANCE_ID, "acl-reconciler");
        reconcilerEnv.put(Env.STREAMS_STATE_DIR, dir.resolve("streams").toString());
        startService(new ReconcilerService(ReconcilerConfig.fromEnv(reconcilerEnv), database, reconcilerEnv,
                deadLoops::add));
    }

    private static Map<String, String> principal(Map<String, String> common, String user) {
        Map<String, String> env = new HashMap<>(common);
        env.put("KAFKA_SASL_USERNAME", user);
        env.put("KAFKA_SASL_PASSWORD", user + PASSWORD_SUFFIX);
        return env;
    }

    private static KafkaConfig as(String user) {
        return KafkaConfig.fromEnv(Map.of("KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers(),
                "KAFKA_SECURITY_PROTOCOL", "SASL_PLAINTEXT", "KAFKA_SASL_USERNAME", user,
                "KAFKA_SASL_PASSWORD", user + PASSWORD_SUFFIX));
    }

    private static void startService(ServiceMain.Service service) throws Exception {
        started.add(service);
        service.start();
    }

    @AfterAll
    static void stop() {
        Closeables.closeEachInReverse(started, (part, e) -> System.err.println("stopping " + part + " failed: " + e));
    }

    @Test
    void aProducersRequestRunsThroughEveryServiceAsItsOwnPrincipal() throws Exception {
        String key = "acl-" + System.nanoTime();
        send("shop", KafkaPrincipals.requestTopic("shop"), "alice", key);

        JobRequestOutcome answer = outcome("shop", key);
        assertEquals("CREATED", answer.outcome(), String.valueOf(answer.problem()));
        Await.until(Duration.ofSeconds(60), "alice's job to succeed", () -> "SUCCEEDED".equals(status("alice", key)));
        assertEquals(List.of(), deadLoops, "no service loop died of a refused permission");
    }

    @Test
    void aRecordForAnOwnerItsProducerIsNotMappedToIsRejectedAndWritesNothing() throws Exception {
        String key = "acl-forged-" + System.nanoTime();
        send("shop", KafkaPrincipals.requestTopic("shop"), "bob", key);

        JobRequestOutcome answer = outcome("shop", key);
        assertEquals("REJECTED", answer.outcome());
        assertTrue(answer.problem().type().endsWith("/owner-not-permitted"), answer.problem().type());
        assertEquals(null, status("bob", key), "no job was written for bob");
    }

    @Test
    void theBrokerRefusesWhatAPrincipalWasNotGranted() {
        // Only workers write completions: a producer cannot forge one.
        assertRefused(() -> send("shop", Topics.ATTEMPT_COMPLETIONS.name(), "alice", "forged"));
        // Nor write the shared request topic, or another producer's.
        assertRefused(() -> send("shop", Topics.JOB_REQUESTS.name(), "alice", "shared"));
        assertRefused(() -> send("shop", KafkaPrincipals.requestTopic("search"), "bob", "squat"));
        // A worker cannot publish results.
        assertRefused(() -> send("onejob-worker", Topics.JOB_RESULTS.name(), "alice", "result"));
        // An analyst reads race-audit, and not the results or another producer's answers.
        assertEquals(0, read("analytics", Topics.RACE_AUDIT.name()));
        assertRefused(() -> read("analytics", Topics.JOB_RESULTS.name()));
        assertRefused(() -> read("search", KafkaPrincipals.outcomesTopic("shop")));
    }

    private static void assertRefused(Executable action) {
        Throwable refused = assertThrows(Throwable.class, action);
        Throwable cause = refused instanceof ExecutionException ? refused.getCause() : refused;
        assertTrue(cause instanceof TopicAuthorizationException || cause instanceof GroupAuthorizationException,
                "refused for its permissions, not another reason: " + refused);
    }

    private static void send(String user, String topic, String owner, String key) throws Exception {
        Map<String, Object> props = as(user).producer(user + "-producer");
        props.put("max.block.ms", 10_000);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props, new StringSerializer(),
                new StringSerializer())) {
            JobRequest request = new JobRequest(owner, key, Json.parse(
                    "{\"contract\":\"sentiment\",\"variables\":{\"text\":\"I loved it\"},\"target\":\"primary\"}"));
            producer.send(new ProducerRecord<>(topic, owner, Json.write(request.toJson()))).get(20, TimeUnit.SECONDS);
        }
    }

    /** Reads {@code topic} from the start for a few seconds in group {@code <user>.reader}; returns the count. */
    private static int read(String user, String topic) {
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(as(user).consumer(user + ".reader",
                user + "-reader"), new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            int count = 0;
            long until = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (System.nanoTime() < until) {
                count += consumer.poll(Duration.ofMillis(200)).count();
            }
            return count;
        }
    }

    private static JobRequestOutcome outcome(String user, String key) {
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(as(user).consumer(user + ".outcomes-" + key,
                user + "-outcomes"), new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(KafkaPrincipals.outcomesTopic(user)));
            long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() < until) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    JobRequestOutcome outcome = JobRequestOutcome.fromJson(Json.parse(record.value()));
                    if (key.equals(outcome.idempotencyKey())) {
                        return outcome;
                    }
                }
            }
            throw new AssertionError("no answer for " + key + " on " + KafkaPrincipals.outcomesTopic(user));
        }
    }

    private static String status(String owner, String key) {
        try (Connection connection = db.dataSource().getConnection();
             PreparedStatement statement = connection.prepareStatement(
                     "SELECT status FROM jobs WHERE owner_id = ? AND idempotency_key = ?")) {
            statement.setString(1, owner);
            statement.setString(2, key);
            try (ResultSet rows = statement.executeQuery()) {
                return rows.next() ? rows.getString(1) : null;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
