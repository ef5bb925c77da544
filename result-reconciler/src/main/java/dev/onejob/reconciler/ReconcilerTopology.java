package dev.onejob.reconciler;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.db.DatabaseException;
import dev.onejob.core.events.AttemptCompletion;
import dev.onejob.core.events.Headers;
import dev.onejob.core.json.Json;
import dev.onejob.core.json.StorableText;
import dev.onejob.core.kafka.Topics;
import dev.onejob.core.service.Backoff;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;
import org.apache.kafka.streams.state.WindowStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reconciler's topology, built here so {@code TopologyTestDriver} can run it:
 * <ol>
 *   <li>{@code attempt-completions} -> each completion applied to the ledger by {@link CompletionHandler}; a record
 *       that cannot be read, cannot be stored (U+0000, an unpaired surrogate), names an attempt the ledger does not
 *       know, or that PostgreSQL refuses for its data goes to {@code attempt-completions.dlq} with the reason in the
 *       {@code onejob-dlq-reason} header, and the records behind it flow on;</li>
 *   <li>{@code race-audit} -> lost races counted per (winning provider, losing provider) per hour ->
 *       {@code race-audit-stats}.</li>
 * </ol>
 */
public final class ReconcilerTopology {
    static final Duration STATS_WINDOW = Duration.ofHours(1);
    /** How long one completion is tried again in place; Kafka Streams' EOS transaction timeout is 10 s. */
    static final Duration RETRY_BUDGET = Duration.ofSeconds(4);
    private static final Logger log = LoggerFactory.getLogger(ReconcilerTopology.class);

    private ReconcilerTopology() {
    }

    public static Topology build(CompletionHandler handler) {
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(Topics.ATTEMPT_COMPLETIONS.name(), Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()))
                .processValues(() -> new ApplyCompletion(handler))
                .filter((key, rejected) -> rejected != null)
                .to(Topics.ATTEMPT_COMPLETIONS_DLQ.name(), Produced.with(Serdes.ByteArray(), Serdes.ByteArray()));

        // Completions are read as bytes (one that does not parse is dead-lettered as it came); race-audit and its
        // stats are onejob's own records, read and written with the registry's serdes.
        builder.stream(Topics.RACE_AUDIT.name(), Consumed.with(Topics.RACE_AUDIT.keySerde(),
                        Topics.RACE_AUDIT.valueSerde()))
                .map((jobId, audit) -> KeyValue.pair(providerPair(audit), audit))
                .groupByKey(Grouped.with(Topics.RACE_AUDIT.keySerde(), Topics.RACE_AUDIT.valueSerde()))
                .windowedBy(TimeWindows.ofSizeWithNoGrace(STATS_WINDOW))
                .count(Materialized.<String, Long, WindowStore<Bytes, byte[]>>as("lost-races-per-provider-pair-hour"))
                .toStream()
                .map((window, count) -> KeyValue.pair(window.key() + "@" + window.window().startTime(),
                        (JsonNode) stats(window, count)))
                .to(Topics.RACE_AUDIT_STATS.name(), Produced.with(Topics.RACE_AUDIT_STATS.keySerde(),
                        Topics.RACE_AUDIT_STATS.valueSerde()));
        return builder.build();
    }

    /** "winner->loser"; a race lost to no winner (the job was cancelled) counts under "none". */
    static String providerPair(JsonNode audit) {
        JsonNode winner = audit.path("winning_attempt");
        String winnerProvider = winner.isObject() ? winner.path("provider").asText("none") : "none";
        return winnerProvider + "->" + audit.path("losing_attempt").path("provider").asText("unknown");
    }

    private static ObjectNode stats(Windowed<String> window, Long count) {
        String[] pair = window.key().split("->", 2);
        ObjectNode stats = Json.object();
        stats.put("winning_provider", pair[0]);
        stats.put("losing_provider", pair.length > 1 ? pair[1] : "unknown");
        stats.put("window_start", window.window().startTime().toString());
        stats.put("window_end", window.window().endTime().toString());
        stats.put("lost_races", count);
        return stats;
    }

    /**
     * Applies one completion; the value passed on is the original record for the dead-letter topic (with the reason
     * in a header) or null when the ledger took it.
     */
    private static final class ApplyCompletion implements FixedKeyProcessor<byte[], byte[], byte[]> {
        private final CompletionHandler handler;
        private FixedKeyProcessorContext<byte[], byte[]> context;

        ApplyCompletion(CompletionHandler handler) {
            this.handler = handler;
        }

        @Override
        public void init(FixedKeyProcessorContext<byte[], byte[]> context) {
            this.context = context;
        }

        @Override
        public void process(FixedKeyRecord<byte[], byte[]> record) {
            String reason = reasonToReject(record);
            if (reason == null) {
                context.forward(record.withValue(null));
                return;
            }
            record.headers().add(Headers.DLQ_REASON, reason.getBytes(StandardCharsets.UTF_8));
            record.headers().add(Headers.DLQ_DETECTED_AT, Instant.now().toString().getBytes(StandardCharsets.UTF_8));
            context.forward(record);
        }

        private String reasonToReject(FixedKeyRecord<byte[], byte[]> record) {
            if (record.value() == null) {
                return "the record has no value";
            }
            AttemptCompletion completion;
            try {
                JsonNode tree = Json.MAPPER.readTree(record.value());
                Optional<String> unstorable = StorableText.problem(tree);
                if (unstorable.isPresent()) {
                    return "the completion cannot be stored: " + unstorable.get();
                }
                completion = AttemptCompletion.fromJson(tree);
            } catch (IOException e) {
                return "the value is not valid JSON: " + e.getMessage().lines().findFirst().orElse("");
            } catch (IllegalArgumentException e) {
                return e.getMessage();
            }
            if (record.key() == null || !completion.jobId().toString().equals(new String(record.key(),
                    StandardCharsets.UTF_8))) {
                return "the record key must be the job id " + completion.jobId();
            }
            try {
                return applyRetrying(completion) instanceof CompletionHandler.Rejected rejected ? rejected.reason()
                        : null;
            } catch (DatabaseException e) {
                if (DatabaseException.isDataRefusal(e)) {
                    // The same completion fails the same way on every replay: park it, keep the partition moving.
                    return "PostgreSQL refused to store it: " + e.getMessage();
                }
                throw e;
            }
        }

        /**
         * Applies the completion, trying again with backoff while PostgreSQL fails for a reason that may pass (it is
         * away, a serialization failure, a timeout) for at most {@link #RETRY_BUDGET}: well inside the stream
         * thread's transaction timeout, so a short blip costs a pause, not a replaced thread and a rebalance. Past
         * the budget the failure goes up, and the thread is replaced after its own backoff
         * ({@link ThreadRestarts}). Each try is a whole transaction, and a replay of an applied completion is
         * answered as such, so trying again doubles nothing.
         */
        private CompletionHandler.Applied applyRetrying(AttemptCompletion completion) {
            Backoff backoff = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1));
            long deadline = System.nanoTime() + RETRY_BUDGET.toNanos();
            while (true) {
                try {
                    return handler.apply(completion);
                } catch (DatabaseException e) {
                    Duration wait = backoff.next();
                    if (DatabaseException.isDataRefusal(e) || System.nanoTime() + wait.toNanos() > deadline) {
                        throw e;
                    }
                    log.warn("event=database_retry attempt_id={} error=\"{}\" failures={} action=retry_in_{}ms",
                            completion.attemptId(), e.getMessage(), backoff.failures(), wait.toMillis());
                    try {
                        Thread.sleep(wait.toMillis());
                    } catch (InterruptedException interrupted) {
                        Thread.currentThread().interrupt();
                        throw e;
                    }
                }
            }
        }
    }
}
