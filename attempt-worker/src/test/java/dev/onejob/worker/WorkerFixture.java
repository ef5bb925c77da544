package dev.onejob.worker;

import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.config.ProviderProtocol;
import dev.onejob.core.config.Providers;
import dev.onejob.core.contract.Contracts;
import dev.onejob.core.db.Database;
import dev.onejob.core.events.AttemptCompletion;
import dev.onejob.core.json.Json;
import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.kafka.KafkaTopics;
import dev.onejob.core.kafka.Topics;
import dev.onejob.core.ledger.Attempt;
import dev.onejob.core.ledger.Ledger;
import dev.onejob.core.ledger.NewJob;
import dev.onejob.core.ledger.SubmitOutcome;
import dev.onejob.core.outbox.OutboxEvent;
import dev.onejob.core.outbox.OutboxLeases;
import dev.onejob.providers.ProviderClients;
import dev.onejob.simulator.ProviderSimulator;
import dev.onejob.simulator.SimulatorConfig;
import dev.onejob.testing.TestDatabase;
import dev.onejob.testing.TestKafka;
import dev.onejob.testing.TopicProbe;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The worker's world for tests: the run's database and broker, two provider simulators (primary speaks
 * openai-chat, backup anthropic-messages), the shipped contracts, and workers started and stopped at will. Commands
 * reach attempt-commands the way production sends them: from the outbox rows the ledger wrote.
 */
final class WorkerFixture implements AutoCloseable {
    final Database database = Database.wrap(TestDatabase.shared().dataSource());
    final Ledger ledger = new Ledger(database);
    final String bootstrap = TestKafka.shared().bootstrapServers();
    final ProviderSimulator primary = simulator("primary");
    final ProviderSimulator backup = simulator("backup");
    final Contracts contracts = Contracts.load(Path.of("../config/contracts"));
    final ProviderClients clients = ProviderClients.create(ProviderClients.defaultHttpClient(), Map.of());
    final KafkaProducer<byte[], byte[]> producer;
    private final List<Running> workers = new ArrayList<>();

    record Running(AttemptWorker worker, Thread thread) {
    }

    WorkerFixture() {
        KafkaTopics.ensure(bootstrap, KafkaTopics.allNames(), 3, (short) 1);
        producer = new KafkaProducer<>(new KafkaConfig(bootstrap).producer("test-relay"), new ByteArraySerializer(),
                new ByteArraySerializer());
    }

    private static ProviderSimulator simulator(String name) {
        try {
            return ProviderSimulator.start(SimulatorConfig.defaults().withName(name));
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the " + name + " simulator", e);
        }
    }

    Providers providers(Duration soft, Duration hard) {
        return Providers.of(List.of(
                new ProviderConfig("primary", ProviderProtocol.OPENAI_CHAT, URI.create(primary.baseUrl()), "gpt-test",
                        null, "o200k_base", 128_000, soft, hard),
                new ProviderConfig("backup", ProviderProtocol.ANTHROPIC_MESSAGES, URI.create(backup.baseUrl()),
                        "claude-test", null, "anthropic", 200_000, soft, hard)));
    }

    AttemptWorker startWorker(Providers providers) {
        return startWorker(providers, new KafkaConfig(bootstrap));
    }

    AttemptWorker startWorker(Providers providers, KafkaConfig kafka) {
        return startWorker(providers, kafka, ledger);
    }

    /** A worker writing its transitions through {@code workerLedger} (one with a fault injected, say). */
    AttemptWorker startWorker(Providers providers, KafkaConfig kafka, Ledger workerLedger) {
        return startWorker(providers, kafka, workerLedger, 256);
    }

    /** A worker that holds at most {@code maxInFlight} calls at once. */
    AttemptWorker startWorker(Providers providers, KafkaConfig kafka, Ledger workerLedger, int maxInFlight) {
        AttemptWorker worker = new AttemptWorker(kafka, "test-worker-" + workers.size(), workerLedger,
                providers, contracts, clients, maxInFlight, new WorkerMetrics());
        Thread thread = new Thread(worker, "test-worker-" + workers.size());
        thread.start();
        workers.add(new Running(worker, thread));
        return worker;
    }

    void stopWorkers() throws InterruptedException {
        for (Running running : workers) {
            running.worker().close(Duration.ofSeconds(15));
            running.thread().join(15_000);
        }
        workers.clear();
    }

    /** Creates n jobs and returns their first attempts; their commands are in the outbox, not yet on Kafka. */
    List<Attempt> submit(int n, String text) {
        List<Attempt> attempts = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            SubmitOutcome.Created created = (SubmitOutcome.Created) ledger.submissions().submit(new NewJob("owner-w",
                    "w-" + UUID.randomUUID(), Json.parse("{\"contract\":\"sentiment\",\"variables\":{\"text\":\""
                    + text + "\"},\"target\":\"primary\",\"fallbacks\":[\"backup\"]}"), "sentiment", "primary",
                    List.of("backup")));
            attempts.add(created.firstAttempt());
        }
        return attempts;
    }

    /** Publishes every queued outbox event, {@code copies} times each (copies > 1 plays redelivery). */
    void relay(int copies) {
        List<OutboxEvent> events;
        UUID holder = UUID.randomUUID();
        while (!(events = OutboxLeases.lease(database, 500, Duration.ofSeconds(30), holder)).isEmpty()) {
            List<Future<?>> acks = new ArrayList<>();
            for (int copy = 0; copy < copies; copy++) {
                for (OutboxEvent event : events) {
                    acks.add(producer.send(new ProducerRecord<>(event.topic(),
                            event.messageKey().getBytes(StandardCharsets.UTF_8),
                            event.payload().getBytes(StandardCharsets.UTF_8))));
                }
            }
            for (Future<?> ack : acks) {
                try {
                    ack.get();
                } catch (Exception e) {
                    throw new IllegalStateException("the test relay could not publish", e);
                }
            }
            OutboxLeases.markSent(database, events, holder);
        }
    }

    /** The completions published for these attempts, in topic order, once at least {@code expected} arrived. */
    List<AttemptCompletion> completions(Collection<Attempt> attempts, int expected, Duration timeout) {
        Set<String> ids = attempts.stream().map(a -> a.id().toString()).collect(Collectors.toSet());
        Set<String> jobs = attempts.stream().map(a -> a.jobId().toString()).collect(Collectors.toSet());
        List<ConsumerRecord<byte[], byte[]>> records = TopicProbe.await(bootstrap, Topics.ATTEMPT_COMPLETIONS.name(),
                r -> jobs.contains(TopicProbe.text(r.key())), expected, timeout);
        return records.stream().map(r -> AttemptCompletion.fromJson(Json.parse(TopicProbe.text(r.value()))))
                .filter(c -> ids.contains(c.attemptId().toString())).toList();
    }

    /** The ids of those of {@code attempts} with a completion FAILED and not sent, read for up to 5 s. */
    Set<UUID> reportedNotSent(Collection<Attempt> attempts) {
        Set<String> jobs = attempts.stream().map(a -> a.jobId().toString()).collect(Collectors.toSet());
        Set<UUID> ids = attempts.stream().map(Attempt::id).collect(Collectors.toSet());
        return TopicProbe.await(bootstrap, Topics.ATTEMPT_COMPLETIONS.name(),
                        r -> jobs.contains(TopicProbe.text(r.key())), Integer.MAX_VALUE, Duration.ofSeconds(5)).stream()
                .map(r -> AttemptCompletion.fromJson(Json.parse(TopicProbe.text(r.value()))))
                .filter(c -> ids.contains(c.attemptId()) && c.outcome() == AttemptCompletion.Outcome.FAILED
                        && !c.error().sent())
                .map(AttemptCompletion::attemptId).collect(Collectors.toSet());
    }

    @Override
    public void close() throws InterruptedException {
        stopWorkers();
        producer.close();
        clients.close();
        primary.close();
        backup.close();
    }
}
