package dev.onejob.worker;

import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.config.Providers;
import dev.onejob.core.contract.Contracts;
import dev.onejob.core.db.DatabaseException;
import dev.onejob.core.kafka.BrokerUnavailableException;
import dev.onejob.core.kafka.Groups;
import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.kafka.Topics;
import dev.onejob.core.ledger.Ledger;
import dev.onejob.core.service.Backoff;
import dev.onejob.core.service.Loops;
import dev.onejob.providers.ProviderClient;
import dev.onejob.worker.StartsInDoubt.Startable;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes {@code attempt-commands} as consumer group {@code attempt-worker} (one thread, one consumer; scale by
 * adding instances) and calls each attempt's provider at most once: before calling, the attempt moves
 * PENDING -> STARTING in PostgreSQL with a conditional update (one statement for the whole poll), so a redelivered
 * command (a retry, a rebalance, a second worker) finds it started and does not call again; a start whose commit
 * succeeded while its acknowledgement was lost is recognised by its start token when the poll is read again, and
 * called ({@link StartsInDoubt}). Offsets are committed once those transitions are durable. Calls are asynchronous
 * (no thread waits on a provider; {@code WORKER_MAX_IN_FLIGHT} bounds them); their outcomes go to
 * {@code attempt-completions} ({@link AttemptCalls}): UNKNOWN at the soft deadline when no answer came (for a streamed
 * call: when its stream fell silent), then SUCCEEDED or FAILED whenever a late answer arrives, until the call is
 * given up at its hard deadline. Records are read into commands by {@link CommandReader}.
 */
public final class AttemptWorker implements Loops.Loop {
    private static final Logger log = LoggerFactory.getLogger(AttemptWorker.class);
    public static final String GROUP_ID = Groups.WORKER;

    /** The grace past the hard timeout before a STARTING attempt counts as abandoned by its worker. */
    static final Duration ABANDON_GRACE = Duration.ofSeconds(5);

    private final Consumer<byte[], byte[]> consumer;
    private final CommandReader commands;
    private final StartsInDoubt starts;
    private final AttemptCalls calls;
    private final WorkerMetrics metrics;
    private final int maxInFlight;
    /** Partitions of attempt-commands this worker holds now (updated on the poll thread by rebalances). */
    private final AtomicInteger assigned = new AtomicInteger();
    private final AtomicBoolean running = new AtomicBoolean(true);
    /** Waits between rereads of a poll while PostgreSQL is away; only the poll thread touches it. */
    private final Backoff backoff = Backoff.standard();
    /** Counted down when the poll loop has ended: no record is handled, and no call launched, after it. */
    private final CountDownLatch pollLoopEnded = new CountDownLatch(1);
    private volatile Duration drain = Duration.ofSeconds(10);

    public AttemptWorker(KafkaConfig kafka, String clientId, Ledger ledger, Providers providers,
                         Contracts contracts, ProviderClient client, int maxInFlight, WorkerMetrics metrics) {
        this(consumer(kafka, clientId), new KafkaProducer<>(kafka.producer(clientId + "-dlq"),
                new ByteArraySerializer(), new ByteArraySerializer()),
                new Completions(kafka, clientId + "-completions", metrics), ledger, providers, contracts, client,
                maxInFlight, metrics);
    }

    /**
     * How long {@link #close()} lets calls in flight finish and publish their outcomes (default 10 s); a call still
     * running after it ends UNKNOWN through the sweeper. {@code WORKER_DRAIN_TIMEOUT}, by default the longest hard
     * timeout of the providers plus 5 s, so a stopping worker loses no answer it was going to get.
     */
    public AttemptWorker drainFor(Duration drain) {
        this.drain = drain;
        return this;
    }

    /**
     * Over given Kafka clients (Kafka's {@code MockConsumer} and {@code MockProducer} in the loop's unit tests),
     * which the worker owns and closes: the consumer of {@code attempt-commands}, the dead-letter producer, and the
     * completions publisher.
     */
    AttemptWorker(Consumer<byte[], byte[]> consumer, Producer<byte[], byte[]> deadLetters, Completions completions,
                  Ledger ledger, Providers providers, Contracts contracts, ProviderClient client, int maxInFlight,
                  WorkerMetrics metrics) {
        this.consumer = consumer;
        this.metrics = metrics;
        this.maxInFlight = maxInFlight;
        this.calls = new AttemptCalls(client, completions, new StreamLeases(ledger), metrics);
        this.starts = new StartsInDoubt(ledger, calls, metrics);
        this.commands = new CommandReader(deadLetters, providers, contracts, starts, calls, metrics);
        // The Kafka clients' own metrics, consumer lag among them, on /metrics.
        if (consumer instanceof KafkaConsumer<byte[], byte[]> kafkaConsumer) {
            new KafkaClientMetrics(kafkaConsumer).bindTo(metrics.registry());
        }
    }

    private static KafkaConsumer<byte[], byte[]> consumer(KafkaConfig kafka, String clientId) {
        Map<String, Object> props = kafka.consumer(GROUP_ID, clientId);
        props.put("max.poll.records", 500);
        return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /**
     * How long after a start the sweeper may take this worker for vanished: the hard timeout (by when this worker has
     * published the call's last outcome) plus {@link #ABANDON_GRACE}. Not the soft timeout: at the soft deadline this
     * worker reports UNKNOWN itself, and an outcome queued behind the reconciler must not be swept into an UNKNOWN.
     */
    static Duration abandonAfter(ProviderConfig provider) {
        return provider.hardTimeout().plus(ABANDON_GRACE);
    }

    @Override
    public void run() {
        try {
            consumer.subscribe(List.of(Topics.ATTEMPT_COMMANDS.name()), new AssignmentCount());
            while (running.get()) {
                pollOnce();
            }
        } catch (WakeupException e) {
            if (running.get()) {
                throw e;
            }
        } catch (RuntimeException e) {
            log.error("event=worker_stopped error=\"{}\"", e.toString(), e);
            throw e;
        } finally {
            pollLoopEnded.countDown();
            consumer.close(Duration.ofSeconds(5));
            commands.close();
        }
    }

    /** Settles the starts in doubt, then reads and handles one poll; a poll that fails for now is read again. */
    private void pollOnce() {
        starts.resolveDoubts();
        applyBackpressure();
        ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(200));
        if (records.isEmpty()) {
            return;
        }
        try {
            handlePoll(records);
            backoff.reset();
        } catch (DatabaseException | BrokerUnavailableException e) {
            // PostgreSQL or the broker is away (or PostgreSQL refused for a while: a serialization failure, a
            // timeout): read the poll again later; start() makes the records already handled harmless the second time.
            Duration wait = backoff.next();
            log.warn("event={} error=\"{}\" failures={} action=rewind_and_retry_in_{}ms",
                    e instanceof DatabaseException ? "database_unavailable" : "broker_unavailable",
                    e.getMessage(), backoff.failures(), wait.toMillis());
            rewind(records);
            pause(wait);
        }
    }

    /** Counts the partitions of attempt-commands this worker holds as rebalances give and take them. */
    private final class AssignmentCount implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            assigned.addAndGet(-partitions.size());
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            assigned.addAndGet(partitions.size());
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            assigned.addAndGet(-partitions.size());
        }
    }

    /**
     * One poll: every record read (a poison one dead-lettered, one this worker cannot run failed without a call),
     * then PENDING -> STARTING for all the others in one transaction ({@link StartsInDoubt#startAll}), then the calls
     * of the starts that applied. Offsets are committed after that transaction.
     */
    private void handlePoll(ConsumerRecords<byte[], byte[]> records) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        Map<UUID, Startable> startable = new LinkedHashMap<>();
        for (ConsumerRecord<byte[], byte[]> record : records) {
            if (!running.get()) {
                // Shutting down: no new call; the records not handled are not committed and go to another worker.
                break;
            }
            Startable start = commands.read(record);
            if (start != null && startable.putIfAbsent(start.command().attemptId(), start) != null) {
                // The same command twice in one poll (a relay's redelivery): the first reading decides.
                metrics.skipped();
            }
            offsets.put(new TopicPartition(record.topic(), record.partition()), new OffsetAndMetadata(record.offset() + 1));
        }
        starts.startAll(List.copyOf(startable.values()));
        // Every STARTING transition of this poll is committed in PostgreSQL by now.
        commit(offsets);
    }

    private void commit(Map<TopicPartition, OffsetAndMetadata> offsets) {
        try {
            consumer.commitSync(offsets);
        } catch (CommitFailedException | RebalanceInProgressException e) {
            // This member was out of the group for longer than max.poll.interval.ms (a long pause, a frozen
            // process) and its partitions went to another; the next poll rejoins. The records come again to
            // whoever owns them now, and the PENDING -> STARTING guard makes them harmless the second time.
            log.warn("event=commit_refused reason=\"{}\" action=rejoin", e.getClass().getSimpleName());
        } catch (TimeoutException e) {
            // The broker is away (an outage longer than the commit's timeout): go on polling, with the calls of
            // this poll in flight. The next commit covers these offsets; if none comes first, the records come
            // again after a rebalance, harmless behind the same guard. Dying here would lose their answers.
            log.warn("event=commit_timed_out error=\"{}\" action=poll_on", e.getMessage());
        }
    }

    private void rewind(ConsumerRecords<byte[], byte[]> records) {
        for (TopicPartition partition : records.partitions()) {
            consumer.seek(partition, records.records(partition).get(0).offset());
        }
    }

    private static void pause(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops fetching while too many calls are in flight; a slow provider must not pile up unbounded work. */
    private void applyBackpressure() {
        if (calls.inFlight() >= maxInFlight) {
            consumer.pause(consumer.assignment());
        } else if (!consumer.paused().isEmpty()) {
            consumer.resume(consumer.paused());
        }
    }

    int inFlight() {
        return calls.inFlight();
    }

    /** How many partitions of attempt-commands this worker holds now. */
    int assignedPartitions() {
        return assigned.get();
    }

    /** How many attempts this worker started (and so called). */
    int started() {
        return calls.started();
    }

    /**
     * Stops taking commands, then waits (up to {@code grace}) for calls in flight to finish and their outcomes to be
     * published; what is still unpublished after that is given up (the sweeper makes those attempts UNKNOWN).
     */
    public void close(Duration grace) {
        running.set(false);
        consumer.wakeup();
        long deadline = System.nanoTime() + grace.toNanos();
        // The poll thread may be inside a poll's records: wait until it launched its last call, or it would start
        // calls after the drain counted none and closed the publisher, and their paid answers would be lost.
        try {
            if (!pollLoopEnded.await(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                log.warn("event=poll_loop_not_ended drain_timeout={}", grace);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        calls.drainUntil(deadline, grace);
        calls.close();
    }

    @Override
    public void close() {
        close(drain);
    }
}
