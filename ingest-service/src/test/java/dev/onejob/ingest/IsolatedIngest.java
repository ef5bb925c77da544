package dev.onejob.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.config.Settings;
import dev.onejob.core.db.Database;
import dev.onejob.core.db.DatabaseConfig;
import dev.onejob.core.json.Json;
import dev.onejob.core.json.JsonSchemas;
import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.kafka.KafkaTopics;
import dev.onejob.core.kafka.Topics;
import dev.onejob.core.outbox.OutboxRelay;
import dev.onejob.core.service.Loops;
import dev.onejob.infra.EmbeddedKafka;
import dev.onejob.ingest.http.FrontDoor;
import dev.onejob.testing.TestDatabase;
import dev.onejob.testing.TopicProbe;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * An ingest service with a broker of its own (on the run's database), for records that have stopped or stalled
 * the {@code job-requests} consumer: on the shared fixture such a record would stop the consumer every other test
 * in the JVM needs, and stay on its partition for every later one.
 */
final class IsolatedIngest implements AutoCloseable {
    private static final JsonSchemas OUTCOME_SCHEMA =
            JsonSchemas.fromClasspath("events/job-request-outcome.v2.schema.json");
    private final EmbeddedKafka broker;
    private final IngestService service;
    private final JobRequestPublisher upstream;

    IsolatedIngest() throws IOException {
        this(0);
    }

    /** With {@code RATE_LIMIT_PER_OWNER} at {@code ratePerOwner} (0: off). */
    IsolatedIngest(int ratePerOwner) throws IOException {
        broker = EmbeddedKafka.start(null, Map.of());
        KafkaTopics.ensure(broker.bootstrapServers(), KafkaTopics.allNames(), 3, (short) 1);
        Path tokens = new TokensFile().token("alice", "[submit]", IngestFixture.ALICE).write("onejob-isolated");
        TestDatabase db = TestDatabase.shared();
        DatabaseConfig database = new DatabaseConfig(db.jdbcUrl(), db.user(), System.getenv("DATABASE_PASSWORD"), 2);
        service = new IngestService(new IngestConfig(database, new KafkaConfig(broker.bootstrapServers()),
                IngestConfig.http(Settings.of(Map.of("HTTP_HOST", "127.0.0.1", "HTTP_PORT", "0", "HTTP_THREADS", "2"))), 64 * 1024, tokens, Path.of("../config/providers.yaml"),
                Path.of("../config/contracts"), false, Duration.ZERO, "ingest-isolated-test", FrontDoor.defaults().withRatePerOwner(ratePerOwner)),
                Database.wrap(db.dataSource()), Map.of(), OutboxRelay.Hooks.NONE,
                Loops.REPORT_ONLY);
        service.start();
        upstream = new JobRequestPublisher(broker.bootstrapServers());
    }

    void publish(List<JobRequestPublisher.Hostile> records) {
        records.forEach(upstream::publish);
    }

    /**
     * The outcomes of {@code run}'s requests (request ids starting with it), by request id. Answers are keyed by
     * owner, so those of one partition's requests may sit on different partitions: their order says nothing.
     */
    Map<String, List<String>> outcomes(String run, int expected, Duration timeout) {
        Map<String, List<String>> outcomes = new TreeMap<>();
        TopicProbe.await(broker.bootstrapServers(), Topics.JOB_REQUEST_OUTCOMES.name(),
                        r -> TopicProbe.text(r.value()).contains("\"request_id\":\"" + run), expected, timeout)
                .forEach(r -> {
                    JsonNode answer = Json.parse(TopicProbe.text(r.value()));
                    assertEquals(List.of(), OUTCOME_SCHEMA.violations(answer), answer.toString());
                    outcomes.computeIfAbsent(answer.path("request_id").asText(), k -> new ArrayList<>())
                            .add(answer.path("outcome").asText());
                });
        return outcomes;
    }

    /** The dead letters of the request {@code requestId}. */
    List<ConsumerRecord<byte[], byte[]>> deadLetters(String requestId, Duration timeout) {
        return TopicProbe.await(broker.bootstrapServers(), Topics.JOB_REQUESTS_DLQ.name(),
                r -> requestId.equals(JobRequestPublisher.header(r, "request_id")), 1, timeout);
    }

    @Override
    public void close() {
        upstream.close();
        service.close();
        broker.close();
    }
}
