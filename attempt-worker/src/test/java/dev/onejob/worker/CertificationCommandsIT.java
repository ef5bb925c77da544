package dev.onejob.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.certification.CertificationRequests;
import dev.onejob.core.db.Database;
import dev.onejob.core.events.CertificationCommand;
import dev.onejob.core.events.Headers;
import dev.onejob.core.json.Json;
import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.kafka.KafkaTopics;
import dev.onejob.core.kafka.Topics;
import dev.onejob.core.outbox.OutboxStore;
import dev.onejob.testing.Await;
import dev.onejob.testing.TestDatabase;
import dev.onejob.testing.TestKafka;
import dev.onejob.testing.TopicProbe;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Certification is the worker's work: a request recorded by {@link CertificationRequests} (its command queued in the
 * outbox) is run once by a worker's {@link Certifications} loop on a real broker and PostgreSQL, however often its
 * command is delivered; a command that does not read is dead-lettered with the reason, and a request for a provider
 * the worker does not know finishes with that error, having called nothing.
 */
class CertificationCommandsIT {
    private final String bootstrap = TestKafka.shared().bootstrapServers();
    private final Database database = Database.wrap(TestDatabase.shared().dataSource());
    private final CertificationRequests requests = new CertificationRequests(database);
    private final Map<UUID, AtomicInteger> runs = new ConcurrentHashMap<>();
    private KafkaProducer<byte[], byte[]> producer;
    private Certifications loop;
    private Thread thread;

    @BeforeEach
    void start() {
        KafkaTopics.ensure(bootstrap, KafkaTopics.allNames(), 3, (short) 1);
        producer = new KafkaProducer<>(new KafkaConfig(bootstrap).producer("certification-test"),
                new ByteArraySerializer(), new ByteArraySerializer());
        loop = new Certifications(new KafkaConfig(bootstrap), "test-worker", requests, (id, provider, contract) -> {
            if (provider.isPresent() && provider.get().equals("nowhere")) {
                throw new IllegalArgumentException("no provider 'nowhere' in the providers file; known: primary");
            }
            runs.computeIfAbsent(id, key -> new AtomicInteger()).incrementAndGet();
            return List.of("provider=" + provider.orElse("all") + " passed=true");
        });
        thread = new Thread(loop, "certifications-under-test");
        thread.start();
    }

    @AfterEach
    void stop() throws InterruptedException {
        loop.close();
        thread.join(15_000);
        producer.close();
    }

    @Test
    void aRequestDeliveredTwiceRunsItsGoldenCallsOnce() throws Exception {
        CertificationCommand command = requests.request(Optional.of("primary"), Optional.of("sentiment"),
                "operator:ops");
        try (var connection = database.dataSource().getConnection()) {
            assertEquals(1, OutboxStore.eventsFor(connection, Topics.CERTIFICATION_COMMANDS.name(),
                    command.requestId().toString()).size(), "the command is queued with the request");
        }
        send(command.toJson().toString());
        send(command.toJson().toString());
        CertificationCommand sentinel = requests.request(Optional.empty(), Optional.empty(), "schedule");
        send(sentinel.toJson().toString());

        Await.until(Duration.ofSeconds(60), "the sentinel request to finish",
                () -> requests.find(sentinel.requestId()).orElseThrow().finished());
        CertificationRequests.Request finished = requests.find(command.requestId()).orElseThrow();
        assertTrue(finished.finished(), "the request is finished");
        assertEquals(Optional.of("test-worker"), finished.claimedBy());
        assertEquals(Optional.empty(), finished.error());
        assertEquals(1, runs.get(command.requestId()).get(), "the second delivery called nothing");
        assertFalse(requests.claim(command.requestId(), "another-worker"), "a finished request is not claimed again");
    }

    @Test
    void aCommandThatDoesNotReadIsDeadLetteredWithTheReasonAndItsNeighbourStillRuns() throws Exception {
        String marker = UUID.randomUUID().toString();
        send("{\"request_id\": \"" + marker + "\"}");
        CertificationCommand neighbour = requests.request(Optional.of("primary"), Optional.empty(), "operator:ops");
        send(neighbour.toJson().toString());

        List<ConsumerRecord<byte[], byte[]>> letters = TopicProbe.await(bootstrap,
                Topics.CERTIFICATION_COMMANDS_DLQ.name(), r -> TopicProbe.text(r.value()).contains(marker), 1,
                Duration.ofSeconds(60));
        assertEquals(1, letters.size());
        String reason = TopicProbe.text(letters.get(0).headers().lastHeader(Headers.DLQ_REASON).value());
        assertTrue(reason.startsWith("not a valid certification command: ") && reason.contains("requested_by"), reason);
        Await.until(Duration.ofSeconds(60), "the neighbour to finish",
                () -> requests.find(neighbour.requestId()).orElseThrow().finished());
        assertEquals(1, runs.get(neighbour.requestId()).get());
    }

    @Test
    void aProviderTheWorkerDoesNotKnowFinishesTheRequestWithTheReasonAndCallsNothing() throws Exception {
        CertificationCommand command = requests.request(Optional.of("nowhere"), Optional.empty(), "operator:ops");
        send(command.toJson().toString());

        Await.until(Duration.ofSeconds(60), "the request to finish",
                () -> requests.find(command.requestId()).orElseThrow().finished());
        assertEquals(Optional.of("no provider 'nowhere' in the providers file; known: primary"),
                requests.find(command.requestId()).orElseThrow().error());
        assertEquals(null, runs.get(command.requestId()));
    }

    /** Every record on partition 0, so they are read in the order sent. */
    private void send(String value) throws Exception {
        String key = Json.parse(value).path("request_id").asText("none");
        producer.send(new ProducerRecord<>(Topics.CERTIFICATION_COMMANDS.name(), 0,
                key.getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8))).get();
    }
}
