package dev.onejob.bench.loadgen;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.json.Json;
import java.util.Arrays;

/**
 * Latency samples in nanoseconds, thread safe, and their percentiles in milliseconds. Every sample is kept (loads
 * here are at most a few hundred thousand requests), so percentiles are exact, not bucketed.
 */
public final class Latencies {
    private long[] samples = new long[1024];
    private int size;

    public synchronized void add(long nanos) {
        if (size == samples.length) {
            samples = Arrays.copyOf(samples, size * 2);
        }
        samples[size++] = nanos;
    }

    public synchronized int count() {
        return size;
    }

    /** {@code {count, p50_ms, p90_ms, p99_ms, p999_ms, max_ms, mean_ms}}; percentiles by the nearest-rank method. */
    public synchronized ObjectNode summary() {
        long[] sorted = Arrays.copyOf(samples, size);
        Arrays.sort(sorted);
        ObjectNode node = Json.object();
        node.put("count", size);
        if (size == 0) {
            return node;
        }
        node.put("p50_ms", ms(rank(sorted, 0.50)));
        node.put("p90_ms", ms(rank(sorted, 0.90)));
        node.put("p99_ms", ms(rank(sorted, 0.99)));
        node.put("p999_ms", ms(rank(sorted, 0.999)));
        node.put("max_ms", ms(sorted[size - 1]));
        node.put("mean_ms", ms((long) Arrays.stream(sorted).average().orElse(0)));
        return node;
    }

    private static long rank(long[] sorted, double quantile) {
        int index = (int) Math.ceil(quantile * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    private static double ms(long nanos) {
        return Math.round(nanos / 1_000.0) / 1_000.0;
    }
}
