package dev.onejob.bench.loadgen;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One step of a load plan. {@code closed}: {@code concurrency} clients, each sending its next request when the
 * previous answered, for {@code seconds} or until {@code requests} were sent. {@code open}: requests at fixed
 * intended times ({@code rate} per second, or {@code rateOfMax} times the best sustained rate of the closed steps
 * before it), whatever the answers do; latency is measured from the intended time, so a stalled server is charged
 * for the requests it held back (no coordinated omission). {@code hangEvery} > 0 marks every n-th new job for the
 * hanging simulator. Unrecorded steps warm the JIT and connection pools. {@code awaitEach} (closed steps): each client
 * waits for its job's result, not only for the answer to its request, before it sends the next, as a client of a
 * system that answers only when the work is done does (the peer's clients do).
 */
public record LoadStep(String name, String kind, int concurrency, double seconds, long requests, double rate,
                       double rateOfMax, int hangEvery, boolean record, double awaitSeconds, boolean awaitEach) {

    static LoadStep from(JsonNode node) {
        return new LoadStep(node.path("name").asText(), node.path("kind").asText("closed"),
                node.path("concurrency").asInt(8), node.path("seconds").asDouble(0), node.path("requests").asLong(0),
                node.path("rate").asDouble(0), node.path("rateOfMax").asDouble(0), node.path("hangEvery").asInt(0),
                node.path("record").asBoolean(true), node.path("awaitSeconds").asDouble(120),
                node.path("awaitEach").asBoolean(false));
    }

    boolean closed() {
        return "closed".equals(kind);
    }
}
