package dev.onejob.reconciler;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.json.Json;
import dev.onejob.core.kafka.Topics;
import java.time.Duration;
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
import org.apache.kafka.streams.state.WindowStore;

/**
 * The reconciler's Kafka Streams topology, built here so {@code TopologyTestDriver} can run it: {@code race-audit}
 * -> lost races counted per (winning provider, losing provider) per hour -> {@code race-audit-stats}. A windowed
 * count is what Streams is for; the completions themselves are applied by {@link CompletionConsumer}, which commits
 * its offsets only after one set-based PostgreSQL transaction per poll, something a Streams task cannot do.
 */
public final class RaceStatsTopology {
    static final Duration STATS_WINDOW = Duration.ofHours(1);

    private RaceStatsTopology() {
    }

    public static Topology build() {
        StreamsBuilder builder = new StreamsBuilder();
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
}
