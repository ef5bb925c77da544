package dev.onejob.bench.loadgen;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.json.Json;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Makes the benchmark's job requests: the {@code sentiment} contract on a target provider ({@code primary}, with
 * {@code backup} as the fallback, unless the plan names others), one owner per key chosen round robin. A share of requests repeat a recent earlier request with the same
 * owner, key and payload (a double click: the ledger answers REPLAYED); every {@code hangEvery}-th new job carries the
 * marker the benchmark's primary simulator hangs on. The payload is a pure function of the key's number, so a
 * repeated request is byte-for-byte the same intent.
 */
public final class JobRequestFactory {
    /** What one request is: who sends it, under which key, with which body, and whether it repeats an earlier one. */
    public record JobRequest(long number, String owner, String key, String body, boolean repeat) {
    }

    private static final int RECENT = 256;

    private final String keyPrefix;
    private final List<String> owners;
    private final double repeatShare;
    private final int hangEvery;
    private final String hangMarker;
    private final AtomicLong next = new AtomicLong();
    private final String target;
    private final List<String> fallbacks;

    public JobRequestFactory(String keyPrefix, List<String> owners, double repeatShare, int hangEvery,
                             String hangMarker) {
        this(keyPrefix, owners, repeatShare, hangEvery, hangMarker, "primary", List.of("backup"));
    }

    public JobRequestFactory(String keyPrefix, List<String> owners, double repeatShare, int hangEvery,
                             String hangMarker, String target, List<String> fallbacks) {
        this.target = target;
        this.fallbacks = List.copyOf(fallbacks);
        this.keyPrefix = keyPrefix;
        this.owners = List.copyOf(owners);
        this.repeatShare = repeatShare;
        this.hangEvery = hangEvery;
        this.hangMarker = hangMarker;
    }

    /** The next request: a new job, or (with probability {@code repeatShare}) a repeat of one of the last few. */
    public JobRequest next() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long issued = next.get();
        if (issued > 0 && random.nextDouble() < repeatShare) {
            long earlier = Math.max(0, issued - 1 - random.nextLong(Math.min(issued, RECENT)));
            return request(earlier, true);
        }
        return request(next.getAndIncrement(), false);
    }

    /** How many distinct jobs (keys) were issued so far. */
    public long distinctJobs() {
        return next.get();
    }

    public JobRequest request(long number, boolean repeat) {
        String owner = owners.get((int) (number % owners.size()));
        String key = keyPrefix + "-" + number;
        return new JobRequest(number, owner, key, body(number, key), repeat);
    }

    /** Whether the job with this number carries the hang marker. */
    public boolean hangs(long number) {
        return hangEvery > 0 && number % hangEvery == 0;
    }

    private String body(long number, String key) {
        ObjectNode body = Json.object();
        body.put("contract", "sentiment");
        String text = "Benchmark request " + key + ": I loved it, the support team was quick."
                + (hangs(number) ? " " + hangMarker : "");
        body.putObject("variables").put("text", text);
        body.put("target", target);
        var chain = body.putArray("fallbacks");
        fallbacks.forEach(chain::add);
        return Json.write(body);
    }

    /** The Kafka envelope of {@code job-requests} for this request. */
    public String envelope(JobRequest request) {
        ObjectNode envelope = Json.object();
        envelope.put("owner_id", request.owner());
        envelope.put("idempotency_key", request.key());
        envelope.set("request", Json.parse(request.body()));
        return Json.write(envelope);
    }
}
