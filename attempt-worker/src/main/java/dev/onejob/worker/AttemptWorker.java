package dev.onejob.worker;

import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.config.Providers;
import dev.onejob.core.contract.Contract;
import dev.onejob.core.contract.Contracts;
import dev.onejob.core.db.DatabaseException;
import dev.onejob.core.events.AttemptCommand;
import dev.onejob.core.events.AttemptCompletion;
import dev.onejob.core.events.Headers;
import dev.onejob.core.json.Json;
import dev.onejob.core.kafka.BrokerUnavailableException;
import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.kafka.Topics;
import dev.onejob.core.ledger.LedgerStore;
import dev.onejob.core.ledger.TransitionOutcome;
import dev.onejob.core.service.Backoff;
import dev.onejob.core.service.LogContext;
import dev.onejob.core.service.Loops;
import dev.onejob.providers.CallOutcome;
import dev.onejob.providers.ProviderCall;
import dev.onejob.providers.ProviderClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
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
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
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
 * called. Offsets are committed once those transitions are durable. Calls are asynchronous (no thread waits on a
 * provider; {@code WORKER_MAX_IN_FLIGHT} bounds them); their outcomes go to {@code attempt-completions}:
 * UNKNOWN at the soft deadline when no answer came (for a streamed call: when its stream fell silent), then SUCCEEDED
 * or FAILED whenever a late answer arrives, until the call is given up at its hard deadline.
 */
public final class AttemptWorker implements Loops.Loop {
    private static final Logger log = LoggerFactory.getLogger(AttemptWorker.class);
    public static final String GROUP_ID = dev.onejob.core.kafka.Groups.WORKER;

    private final Consumer<byte[], byte[]> consumer;
    private final Producer<byte[], byte[]> deadLetters;
    private final Completions completions;
    private final LedgerStore ledger;
    private final Providers providers;
    private final Contracts contracts;
    private final ProviderClient client;
    private final int maxInFlight;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger startedCount = new AtomicInteger();
    /** Partitions of attempt-commands this worker holds now (updated on the poll thread by rebalances). */
    private final AtomicInteger assigned = new AtomicInteger();
    private final AtomicBoolean running = new AtomicBoolean(true);
    /** Waits between rereads of a poll while PostgreSQL is away; only the poll thread touches it. */
    private final Backoff backoff = Backoff.standard();
    /**
     * Starts in doubt, by attempt id (poll thread only): a start whose transaction failed with a database error may
     * have committed. Each keeps its token, so that this worker, and only it, recognises the start as its own, on
     * the record's next reading or, if the partition moved to another worker meanwhile, in {@link #resolveDoubts}.
     */
    private final Map<UUID, Doubt> doubtful = new HashMap<>();
    /** Counted down when the poll loop has ended: no record is handled, and no call launched, after it. */
    private final java.util.concurrent.CountDownLatch pollLoopEnded = new java.util.concurrent.CountDownLatch(1);

    /** A start in doubt: the token it was written with, and what the call needs. */
    private record Doubt(UUID token, AttemptCommand command, ProviderConfig provider, Contract contract) {
    }

    private final WorkerMetrics metrics;
    private final StreamLeases streamLeases;
    private volatile Duration drain = Duration.ofSeconds(10);

    public AttemptWorker(KafkaConfig kafka, String clientId, LedgerStore ledger, Providers providers,
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
                  LedgerStore ledger, Providers providers, Contracts contracts, ProviderClient client, int maxInFlight,
                  WorkerMetrics metrics) {
        this.consumer = consumer;
        this.deadLetters = deadLetters;
        this.completions = completions;
        this.metrics = metrics;
        metrics.inFlight(inFlight::get);
        // The Kafka clients' own metrics, consumer lag among them, on /metrics.
        if (consumer instanceof KafkaConsumer<byte[], byte[]> kafkaConsumer) {
            new io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics(kafkaConsumer).bindTo(metrics.registry());
        }
        this.ledger = ledger;
        this.providers = providers;
        this.contracts = contracts;
        this.client = client;
        this.maxInFlight = maxInFlight;
        this.streamLeases = new StreamLeases(ledger);
    }

    private static KafkaConsumer<byte[], byte[]> consumer(KafkaConfig kafka, String clientId) {
        Map<String, Object> props = kafka.consumer(GROUP_ID, clientId);
        props.put("max.poll.records", 500);
        return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    @Override
    public void run() {
        try {
            consumer.subscribe(List.of(Topics.ATTEMPT_COMMANDS.name()), new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(java.util.Collection<TopicPartition> partitions) {
                    assigned.addAndGet(-partitions.size());
                }

                @Override
                public void onPartitionsAssigned(java.util.Collection<TopicPartition> partitions) {
                    assigned.addAndGet(partitions.size());
                }

                @Override
                public void onPartitionsLost(java.util.Collection<TopicPartition> partitions) {
                    assigned.addAndGet(-partitions.size());
                }
            });
            while (running.get()) {
                resolveDoubts();
                applyBackpressure();
                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(200));
                if (records.isEmpty()) {
                    continue;
                }
                try {
                    handlePoll(records);
                    backoff.reset();
                } catch (DatabaseException | BrokerUnavailableException e) {
                    // PostgreSQL or the broker is away (or PostgreSQL refused for a while: a serialization failure,
                    // a timeout): read the poll again later; start() makes the records already handled harmless the
                    // second time.
                    Duration wait = backoff.next();
                    log.warn("event={} error=\"{}\" failures={} action=rewind_and_retry_in_{}ms",
                            e instanceof DatabaseException ? "database_unavailable" : "broker_unavailable",
                            e.getMessage(), backoff.failures(), wait.toMillis());
                    rewind(records);
                    pause(wait);
                }
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
            deadLetters.close(Duration.ofSeconds(5));
        }
    }

    /**
     * Settles each start in doubt with its own token: still STARTING with it, the start was ours and the call is
     * made now (another worker reading the record finds a foreign token and skips it); UNKNOWN with it (the sweeper
     * came first), the request never left this worker, which says so with a FAILED completion that is not sent, so
     * the reconciler fails over as for any definite failure instead of leaving a phantom UNKNOWN for an operator;
     * anything else was settled by someone else. A database still away leaves the doubts for the next round.
     */
    private void resolveDoubts() {
        for (Doubt doubt : List.copyOf(doubtful.values())) {
            try (LogContext ignored = LogContext.of(doubt.command().jobId(), doubt.command().attemptId())) {
                settle(doubt);
            } catch (DatabaseException e) {
                return;
            }
        }
    }

    /** Starts the attempt with the doubt's token and acts on the answer; the doubt is settled unless this throws. */
    private void settle(Doubt doubt) {
        AttemptCommand command = doubt.command();
        TransitionOutcome started = ledger.start(command.attemptId(), doubt.provider().softTimeout(),
                abandonAfter(doubt.provider()), doubt.token());
        boolean unsent = started instanceof TransitionOutcome.NotApplied
                && ledger.isUnknownWithToken(command.attemptId(), doubt.token());
        doubtful.remove(command.attemptId());
        if (started instanceof TransitionOutcome.Applied) {
            log.info("event=start_recognised job={} attempt={} action=call", command.jobId(), command.attemptId());
            launch(command, doubt.provider(), doubt.contract(), doubt.token());
        } else if (unsent) {
            String message = "this worker's start of the attempt committed but its acknowledgement was lost, and the"
                    + " attempt was made UNKNOWN before the worker could tell; the request was never sent";
            log.warn("event=start_unsent job={} attempt={} action=fail_not_sent", command.jobId(), command.attemptId());
            publishNow(Completions.notRunnable(command, doubt.token(), NOT_SENT, message));
        }
    }

    /**
     * How long after a start the sweeper may take this worker for vanished: the hard timeout (by when this worker has
     * published the call's last outcome) plus {@link #ABANDON_GRACE}. Not the soft timeout: at the soft deadline this
     * worker reports UNKNOWN itself, and an outcome queued behind the reconciler must not be swept into an UNKNOWN.
     */
    static Duration abandonAfter(ProviderConfig provider) {
        return provider.hardTimeout().plus(ABANDON_GRACE);
    }

    /** The grace past the hard timeout before a STARTING attempt counts as abandoned by its worker. */
    static final Duration ABANDON_GRACE = Duration.ofSeconds(5);

    /** The code of a FAILED completion for an attempt whose start this worker made but whose request it never sent. */
    static final String NOT_SENT = "not_sent";

    /** A command of this poll that may be started: what its call needs, and the token its start is written with. */
    private record Startable(AttemptCommand command, ProviderConfig provider, Contract contract, UUID token,
                             Doubt earlier) {
    }

    /**
     * One poll: every record read (a poison one dead-lettered, one this worker cannot run failed without a call),
     * then PENDING -> STARTING for all the others in one transaction ({@link LedgerStore#startAll}), then the calls
     * of the starts that applied. Offsets are committed after that transaction.
     */
    private void handlePoll(ConsumerRecords<byte[], byte[]> records) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        Map<UUID, Startable> startable = new java.util.LinkedHashMap<>();
        for (ConsumerRecord<byte[], byte[]> record : records) {
            if (!running.get()) {
                // Shutting down: no new call; the records not handled are not committed and go to another worker.
                break;
            }
            Startable start = read(record);
            if (start != null && startable.putIfAbsent(start.command().attemptId(), start) != null) {
                // The same command twice in one poll (a relay's redelivery): the first reading decides.
                metrics.skipped();
            }
            offsets.put(new TopicPartition(record.topic(), record.partition()), new OffsetAndMetadata(record.offset() + 1));
        }
        startAll(List.copyOf(startable.values()));
        // Every STARTING transition of this poll is committed in PostgreSQL by now.
        try {
            consumer.commitSync(offsets);
        } catch (CommitFailedException | RebalanceInProgressException e) {
            // This member was out of the group for longer than max.poll.interval.ms (a long pause, a frozen
            // process) and its partitions went to another; the next poll rejoins. The records come again to
            // whoever owns them now, and the PENDING -> STARTING guard makes them harmless the second time.
            log.warn("event=commit_refused reason=\"{}\" action=rejoin", e.getClass().getSimpleName());
        } catch (org.apache.kafka.common.errors.TimeoutException e) {
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
        if (inFlight.get() >= maxInFlight) {
            consumer.pause(consumer.assignment());
        } else if (!consumer.paused().isEmpty()) {
            consumer.resume(consumer.paused());
        }
    }

    /** The record as a command to start, or null when it was dead-lettered or failed without a call. */
    private Startable read(ConsumerRecord<byte[], byte[]> record) {
        AttemptCommand command;
        try {
            command = AttemptCommand.fromJson(Json.MAPPER.readTree(record.value()));
        } catch (IOException | IllegalArgumentException | NullPointerException e) {
            deadLetter(record, "not a valid attempt command: " + e.getMessage());
            return null;
        }
        try (LogContext ignored = LogContext.of(command.jobId(), command.attemptId())) {
            return startable(command);
        }
    }

    private Startable startable(AttemptCommand command) {
        ProviderConfig provider = providers.find(command.provider()).orElse(null);
        Contract contract = contracts.find(command.contract()).orElse(null);
        if (provider == null || contract == null) {
            // Config skew (a rolling deploy, a provider removed): nothing is sent, and the attempt must not stay
            // PENDING forever. A FAILED completion that says so lets the reconciler fail over or fail the job.
            String code = provider == null ? "unknown_provider" : "unknown_contract";
            String message = provider == null
                    ? "this worker has no provider '" + command.provider() + "' in its providers file"
                    : "this worker has no contract '" + command.contract() + "' in its contracts directory";
            log.warn("event=command_not_runnable job={} attempt={} code={} reason=\"{}\"", command.jobId(),
                    command.attemptId(), code, message);
            metrics.notRunnable(code);
            publishNow(Completions.notRunnable(command, null, code, message));
            return null;
        }
        // The token names this one start. When PostgreSQL committed the start but the answer was lost, the doubt
        // keeps the token, and the start is recognised as this worker's own on the next reading or in resolveDoubts.
        // The doubt stays until the start's outcome is known: a poll that fails later is read again.
        Doubt earlier = doubtful.get(command.attemptId());
        UUID token = earlier == null ? UUID.randomUUID() : earlier.token();
        return new Startable(command, provider, contract, token, earlier);
    }

    /** The starts of one poll in one transaction, then the calls of those that applied. */
    private void startAll(List<Startable> starts) {
        List<TransitionOutcome> outcomes;
        try {
            outcomes = ledger.startAll(starts.stream().map(start -> new LedgerStore.Start(start.command().attemptId(),
                    start.provider().softTimeout(), abandonAfter(start.provider()), start.token())).toList());
        } catch (DatabaseException e) {
            // The transaction may have committed: every start of it is in doubt, each with its token.
            if (doubtful.size() + starts.size() > 10_000) {
                log.warn("event=doubts_dropped count={} reason=\"too many starts in doubt\"", doubtful.size());
                doubtful.clear();
            }
            for (Startable start : starts) {
                doubtful.put(start.command().attemptId(), new Doubt(start.token(), start.command(), start.provider(),
                        start.contract()));
            }
            throw e;
        }
        // Every start that applied is called before anything else can fail: a start left uncalled is a phantom.
        for (int i = 0; i < starts.size(); i++) {
            Startable start = starts.get(i);
            AttemptCommand command = start.command();
            try (LogContext ignored = LogContext.of(command.jobId(), command.attemptId())) {
                if (outcomes.get(i) instanceof TransitionOutcome.NotApplied notApplied) {
                    // An earlier start of ours in doubt that is not STARTING with its token stays a doubt, settled
                    // below (UNKNOWN with our token means the request never left); anything else was someone else's.
                    if (start.earlier() == null) {
                        metrics.skipped();
                        log.info("event=command_skipped job={} attempt={} status={} reason=\"already started or"
                                + " finished\"", command.jobId(), command.attemptId(), notApplied.current());
                    }
                    continue;
                }
                doubtful.remove(command.attemptId());
                launch(command, start.provider(), start.contract(), start.token());
            }
        }
        // Maybe UNKNOWN with our token (the request never left): a database away now leaves it to resolveDoubts.
        resolveDoubts();
    }

    /** Makes the call of a started attempt and publishes its outcome (and a late answer) until the broker has it. */
    private void launch(AttemptCommand command, ProviderConfig provider, Contract contract, UUID startToken) {
        log.info("event=attempt_started job={} attempt={} provider={} soft_timeout={}", command.jobId(),
                command.attemptId(), provider.id(), provider.softTimeout());
        inFlight.incrementAndGet();
        startedCount.incrementAndGet();
        metrics.started(provider.id());
        // A passthrough job may have a drop-in caller streaming it: its call is streamed, the pieces published.
        ProviderCall call = contract.passthrough()
                ? client.call(provider, contract, command.variables(), command.attemptId(),
                        completions.chunkSink(command))
                : client.call(provider, contract, command.variables(), command.attemptId());
        if (contract.passthrough()) {
            // A streamed call's deadlines in the ledger move with its pieces.
            streamLeases.track(command.attemptId(), call, startToken, provider);
        }
        call.atSoftDeadline().whenComplete((outcome, error) -> {
            CallOutcome first = error == null ? outcome
                    : new CallOutcome.Unknown("the call failed inside the worker: " + error, Duration.ZERO);
            var published = completions.publishAsync(Completions.of(command, startToken, provider, first));
            if (first instanceof CallOutcome.Unknown && !call.finalBeforeSoftDeadline()) {
                // A late answer counts however late it comes: it is billed and goes through the compare-and-swap.
                // Only a call given up at its hard deadline (or its whole-answer bound) leaves the attempt UNKNOWN.
                published = published.thenCombine(call.atHardDeadline(), (ignored, late) -> late)
                        .thenCompose(late -> late instanceof CallOutcome.Unknown ? CompletableFuture.completedFuture(null)
                                : completions.publishAsync(Completions.of(command, startToken, provider, late)));
            }
            published.whenComplete((ignored, failure) -> {
                streamLeases.forget(command.attemptId());
                inFlight.decrementAndGet();
            });
        });
    }

    /** Publishes a completion and waits until the broker has it (for outcomes decided on the poll thread). */
    private void publishNow(AttemptCompletion completion) {
        try {
            completions.publishAsync(completion).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while publishing a completion", e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new BrokerUnavailableException("a completion decided without a call was not published: "
                    + e.getCause(), e.getCause());
        }
    }

    private void deadLetter(ConsumerRecord<byte[], byte[]> record, String reason) {
        ProducerRecord<byte[], byte[]> letter = new ProducerRecord<>(Topics.ATTEMPT_COMMANDS_DLQ.name(), null,
                record.key(), record.value(), record.headers());
        letter.headers().add(Headers.DLQ_REASON, reason.getBytes(StandardCharsets.UTF_8));
        try {
            deadLetters.send(letter).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while dead-lettering a command", e);
        } catch (Exception e) {
            throw new BrokerUnavailableException("the broker did not take a dead letter: " + e, e);
        }
        metrics.deadLettered();
        log.warn("event=dead_lettered topic={} partition={} offset={} reason=\"{}\"", record.topic(),
                record.partition(), record.offset(), reason);
    }

    int inFlight() {
        return inFlight.get();
    }

    /** How many partitions of attempt-commands this worker holds now. */
    int assignedPartitions() {
        return assigned.get();
    }

    /** How many attempts this worker started (and so called). */
    int started() {
        return startedCount.get();
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
            if (!pollLoopEnded.await(grace.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
                log.warn("event=poll_loop_not_ended drain_timeout={}", grace);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        int draining = inFlight.get();
        if (draining > 0) {
            log.info("event=draining calls_in_flight={} drain_timeout={}", draining, grace);
        }
        while (inFlight.get() > 0 && System.nanoTime() < deadline) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (inFlight.get() > 0) {
            log.warn("event=drain_timed_out calls_in_flight={} drain_timeout={} action=\"their attempts become"
                    + " UNKNOWN through the sweeper\"", inFlight.get(), grace);
        }
        streamLeases.close();
        completions.close();
    }

    @Override
    public void close() {
        close(drain);
    }
}
