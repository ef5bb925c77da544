package dev.onejob.core.outbox;

import dev.onejob.core.db.Database;
import dev.onejob.core.kafka.Groups;
import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.service.Loops;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes the outbox to Kafka so that read_committed consumers see each event exactly once:
 * <ol>
 *   <li>lease a batch of unsent rows in a PostgreSQL transaction of its own ({@code FOR UPDATE SKIP LOCKED}, so
 *       several relays share the work; the lease outlives the Kafka transaction timeout);</li>
 *   <li>for rows claimed before (a relay died holding them), look on the topic for their event id and skip those
 *       already there ({@link PublishedEvents});</li>
 *   <li>publish the rest in one Kafka transaction (key: the event's message key, the job id);</li>
 *   <li>mark the batch sent.</li>
 * </ol>
 * A crash before the Kafka commit aborts the transaction (invisible to read_committed consumers) and the rows are
 * published again once the lease runs out; a crash after it finds them on the topic. Nothing is lost, nothing is
 * seen twice. Attempt commands take a shorter path without a transaction ({@link UntransactedSends}): at least once,
 * since a second copy of one starts nothing. An idle relay sleeps until this process commits an event
 * ({@link OutboxWakeup}), or a second at most.
 */
public final class OutboxRelay implements Loops.Loop {
    private static final Logger log = LoggerFactory.getLogger(OutboxRelay.class);
    private static final int BATCH = 500;
    /** How long an idle relay waits for a wake-up before it looks anyway (events of other processes, due ones). */
    private static final Duration IDLE_WAIT = Duration.ofSeconds(1);
    /** Longer than the producer's transaction timeout: a lease never runs out while its transaction can commit. */
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(60);
    private static final int TRANSACTION_TIMEOUT_MS = 20_000;

    /** Seams for tests that play a crash at either side of the Kafka commit. */
    public interface Hooks {
        Hooks NONE = new Hooks() {
        };

        default void beforeKafkaCommit(List<OutboxEvent> events) {
        }

        default void afterKafkaCommit(List<OutboxEvent> events) {
        }
    }

    private final Database database;
    private final KafkaConfig kafka;
    private final String clientId;
    private final Counter relayed;
    private final Counter parked;
    private final Hooks hooks;
    private final Duration lease;
    private final PublishedEvents published;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private KafkaProducer<String, byte[]> producer;
    private final UntransactedSends untransactedSends;

    public OutboxRelay(Database database, KafkaConfig kafka, String clientId,
                       MeterRegistry metrics, Hooks hooks, Duration lease) {
        this.database = database;
        this.kafka = kafka;
        this.clientId = clientId;
        this.relayed = Counter.builder("onejob_outbox_relayed").description("outbox events published to Kafka")
                .register(metrics);
        this.parked = Counter.builder("onejob_outbox_parked").description("outbox rows the broker refused for what"
                + " they are, set aside with the reason").register(metrics);
        this.hooks = hooks;
        this.lease = lease;
        this.published = new PublishedEvents(kafka, clientId + "-verifier");
        this.producer = newProducer();
        this.untransactedSends = new UntransactedSends(database, kafka, clientId, relayed, parked);
    }

    /** One transactional id per relay: a restarted relay with the same id fences its dead predecessor. */
    private KafkaProducer<String, byte[]> newProducer() {
        Map<String, Object> props = kafka.producer(clientId);
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, Groups.OUTBOX_RELAY_TRANSACTIONS + clientId);
        props.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, TRANSACTION_TIMEOUT_MS);
        // A send gives up before its transaction could time out on the coordinator.
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, TRANSACTION_TIMEOUT_MS - 5_000);
        KafkaProducer<String, byte[]> created = new KafkaProducer<>(props, new StringSerializer(),
                new ByteArraySerializer());
        created.initTransactions();
        return created;
    }

    @Override
    public void run() {
        try {
            long seen = OutboxWakeup.generation();
            while (running.get()) {
                try {
                    int sent = relayOnce();
                    if (sent < BATCH) {
                        // Nothing more right now: sleep until this process commits an event, or until the poll for
                        // events other processes queued and deferred ones that came due.
                        seen = OutboxWakeup.awaitAfter(seen, IDLE_WAIT);
                    } else {
                        seen = OutboxWakeup.generation();
                    }
                } catch (RuntimeException e) {
                    if (!running.get()) {
                        break;
                    }
                    log.warn("event=relay_error error=\"{}\" action=retry_in_1s", e.toString());
                    pause();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            producer.close(Duration.ofSeconds(5));
            untransactedSends.close();
            published.close();
        }
    }

    /**
     * One lease-publish-mark round; returns how many events it settled (published now, found published, or parked).
     * The lease is named by a token of its own. The Kafka transaction is committed inside a PostgreSQL transaction
     * that first locks the leased rows and checks the token still holds every one of them: a relay that was paused
     * past its lease finds a row taken over, aborts, and publishes nothing, while the relay that took it over cannot
     * lease it during the commit. Rows are marked sent in that same PostgreSQL transaction.
     */
    public int relayOnce() {
        UUID holder = UUID.randomUUID();
        List<OutboxEvent> leased = OutboxLeases.lease(database, BATCH, lease, holder);
        if (leased.isEmpty()) {
            return 0;
        }
        List<OutboxEvent> untransacted = new ArrayList<>();
        List<OutboxEvent> transacted = new ArrayList<>(leased.size());
        leased.forEach(event -> (UntransactedSends.TOPICS.contains(event.topic()) ? untransacted : transacted)
                .add(event));
        int settled = untransacted.isEmpty() ? 0 : untransactedSends.publish(untransacted, holder, hooks);
        return transacted.isEmpty() ? settled : settled + relayTransacted(transacted, holder);
    }

    /** The transactional round of {@link #relayOnce} for the leased rows of every other topic. */
    private int relayTransacted(List<OutboxEvent> leased, UUID holder) {
        List<OutboxEvent> toSend = new ArrayList<>(leased.size());
        for (OutboxEvent event : leased) {
            if (event.publishAttempts() > 1 && published.contains(event)) {
                log.info("event=outbox_already_published event_id={} action=mark_sent_without_resending",
                        event.eventId());
            } else {
                toSend.add(event);
            }
        }
        if (toSend.isEmpty()) {
            return OutboxLeases.markSent(database, leased, holder);
        }
        return publish(toSend, leased, holder);
    }

    private int publish(List<OutboxEvent> events, List<OutboxEvent> leased, UUID holder) {
        List<Future<RecordMetadata>> sends = new ArrayList<>(events.size());
        boolean[] committed = {false};
        try {
            producer.beginTransaction();
            for (OutboxEvent event : events) {
                sends.add(producer.send(record(event)));
            }
            hooks.beforeKafkaCommit(events);
            int marked = database.inTransaction(connection -> {
                if (!committed[0]) {
                    Set<Long> held = OutboxLeases.lockHeld(connection, leased, holder);
                    if (held.size() < leased.size()) {
                        throw new LeaseLost(leased.size() - held.size());
                    }
                    producer.commitTransaction();
                    committed[0] = true;
                    hooks.afterKafkaCommit(events);
                }
                return OutboxLeases.markSent(connection, leased, holder);
            });
            relayed.increment(events.size());
            return marked;
        } catch (LeaseLost e) {
            log.warn("event=outbox_lease_lost rows={} action=\"aborted; the relay that took them over publishes them\"",
                    e.rows);
            if (abortQuietly()) {
                OutboxLeases.releaseUnpublished(database, leased, holder);
            }
            return 0;
        } catch (ProducerFencedException | OutOfOrderSequenceException | AuthorizationException e) {
            // Fatal for this producer: start a new one; the rows stay leased and are published again later.
            producer.close(Duration.ZERO);
            producer = newProducer();
            throw e;
        } catch (RuntimeException e) {
            if (committed[0] || !abortQuietly()) {
                throw e;
            }
            int refused = RefusedSends.park(database, events, sends, holder, parked);
            OutboxLeases.releaseUnpublished(database, leased, holder);
            if (refused == 0) {
                throw e;
            }
            return refused;
        }
    }

    /** An event as a Kafka record: its key, its stored JSON text as the value, its headers. */
    static ProducerRecord<String, byte[]> record(OutboxEvent event) {
        ProducerRecord<String, byte[]> record = new ProducerRecord<>(event.topic(), event.messageKey(),
                event.payload().getBytes(StandardCharsets.UTF_8));
        event.headers().forEach((k, v) -> record.headers().add(k, v.getBytes(StandardCharsets.UTF_8)));
        return record;
    }

    /** The rows of a lease were taken over by another relay before this one could commit. */
    private static final class LeaseLost extends RuntimeException {
        private final int rows;

        LeaseLost(int rows) {
            super(rows + " leased row(s) were taken over by another relay", null, false, false);
            this.rows = rows;
        }
    }

    /** True when the transaction was certainly aborted; false leaves the rows to their lease and the check. */
    private boolean abortQuietly() {
        try {
            producer.abortTransaction();
            return true;
        } catch (RuntimeException abortFailed) {
            producer.close(Duration.ZERO);
            producer = newProducer();
            return false;
        }
    }

    private static void pause() {
        try {
            Thread.sleep(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        running.set(false);
    }
}
