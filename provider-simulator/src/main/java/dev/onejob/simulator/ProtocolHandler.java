package dev.onejob.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves one protocol endpoint: reads the request, records it in the ledger, then applies the behaviour.
 *
 * <p>Consumes HTTP exchanges on its {@link Wire}'s path; produces protocol-shaped answers (one JSON body, or for a
 * streamed request the same answer as server-sent events, see {@link EventStream}), errors, delays, hangs and
 * dropped connections; writes one ledger entry per request before the behaviour is applied and reports the
 * answered status to it afterwards, with the charge when the answer is billed (a 2xx with a {@code usage} block,
 * priced at its model's {@link Price}). Owns no state: rules, ledger, shaper, token counter and prices belong to
 * the {@link ProviderSimulator}; {@code closed} is released when the simulator closes, which ends every delay and
 * hang.
 *
 * <p>Behaviours act on a streamed request as on any other: errors ({@code status}) are the protocol's JSON error,
 * never a stream, never billed, with {@code Retry-After}, {@code retry-after-ms} and the wire's rate-limit reset
 * header when the behaviour gives them; {@code reset} closes before any byte; every delay ({@code answer}'s,
 * {@code lognormal}'s, {@code hang}'s) is spent before the status line, after which the events follow without pause,
 * except for {@code paced}, whose status line and first events go out at once and whose text pieces follow one per
 * interval (not streamed, it answers after all the intervals); content behaviours shape the answer the events are
 * made from. The ledger entry and charge of a streamed answer are those of the
 * non-streamed one, set before the first byte. {@code fail_mid_stream} sends part of the answer (some events, or
 * half the JSON bytes) and then drops the connection by throwing out of {@link #handle}: the JDK server then closes
 * the socket without ending the response, so the client sees the body stop short.
 */
final class ProtocolHandler implements HttpHandler {

    private static final Logger LOG = LoggerFactory.getLogger(ProtocolHandler.class);
    private static final BehaviourRules.Applied NO_BEHAVIOUR = new BehaviourRules.Applied(Behaviour.answer(), 1);

    private final Wire wire;
    private final BehaviourRules rules;
    private final Ledger ledger;
    private final AnswerShaper shaper;
    private final TokenCounter tokens;
    private final Function<String, Price> prices;
    private final CountDownLatch closed;

    ProtocolHandler(Wire wire, BehaviourRules rules, Ledger ledger, AnswerShaper shaper, TokenCounter tokens,
                    Function<String, Price> prices, CountDownLatch closed) {
        this.wire = wire;
        this.rules = rules;
        this.ledger = ledger;
        this.shaper = shaper;
        this.tokens = tokens;
        this.prices = prices;
        this.closed = closed;
    }

    /** The path this handler serves. */
    String path() {
        return wire.protocol().path();
    }

    @Override
    public void handle(HttpExchange exchange) {
        boolean cut = false;
        try {
            serve(exchange);
        } catch (ConnectionCut e) {
            cut = true;
        } catch (IOException | RuntimeException e) {
            LOG.debug("{} request ended without a complete answer: {}", wire.protocol().wireName(), e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            // Without a response started, closing the exchange closes the connection: that is "reset". With one
            // started, closing would end the body properly, which a cut must not.
            if (!cut) {
                exchange.close();
            }
        }
        if (cut) {
            throw new ConnectionCut();
        }
    }

    private void serve(HttpExchange exchange) throws IOException, InterruptedException {
        byte[] raw = exchange.getRequestBody().readAllBytes();
        String idempotencyKey = exchange.getRequestHeaders().getFirst("Idempotency-Key");
        String bodySha256 = Json.sha256Hex(raw);
        JsonNode body = parseOrNull(raw);
        String path = exchange.getRequestURI().getPath();
        SimRequest request;
        try {
            request = read(exchange, path, body, idempotencyKey, bodySha256);
        } catch (WireRejection rejection) {
            Ledger.Receipt receipt = ledger.record(new Ledger.Arrival(path, wire.protocol(), idempotencyKey,
                    Json.text(body, "model"), bodySha256, LedgerEntry.REJECTED));
            receipt.answered(rejection.status());
            send(exchange, rejection.status(), wire.error(rejection.status(), rejection.getMessage()));
            return;
        }
        Behaviour behaviour = effective(wire.appliesBehaviours() ? rules.resolve(idempotencyKey) : NO_BEHAVIOUR);
        Ledger.Receipt receipt = ledger.record(new Ledger.Arrival(path, wire.protocol(), idempotencyKey,
                request.model(), bodySha256, behaviour.kind()));
        apply(behaviour, request, exchange, receipt);
    }

    private SimRequest read(HttpExchange exchange, String path, JsonNode body, String idempotencyKey,
                            String bodySha256) throws WireRejection {
        if (!wire.protocol().path().equals(path)) {
            throw new WireRejection(404, "Unknown request URL: POST " + path);
        }
        if (!"POST".equals(exchange.getRequestMethod())) {
            throw new WireRejection(405, "Method " + exchange.getRequestMethod() + " is not allowed; use POST");
        }
        if (body == null || !body.isObject()) {
            throw Wire.badRequest("The request body is not a JSON object");
        }
        return wire.read(exchange.getRequestHeaders(), body, idempotencyKey, bodySha256);
    }

    /** A drop_field rule only damages every n-th answer; the others are plain answers, and say so. */
    private static Behaviour effective(BehaviourRules.Applied applied) {
        if (applied.behaviour() instanceof Behaviour.DropField drop && applied.application() % drop.everyNth() != 0) {
            return Behaviour.answer();
        }
        return applied.behaviour();
    }

    private void apply(Behaviour behaviour, SimRequest request, HttpExchange exchange, Ledger.Receipt receipt)
            throws IOException, InterruptedException {
        if (behaviour instanceof Behaviour.Reset) {
            return;
        }
        if (behaviour instanceof Behaviour.Status status) {
            refuse(exchange, status, receipt);
            return;
        }
        boolean streamed = wire.streams(request);
        if (!waitUnlessClosed(behaviour, streamed)) {
            return;
        }
        JsonNode success;
        try {
            success = wire.success(request, shaper.shape(behaviour, request), tokens.inputTokens(request));
        } catch (RuntimeException e) {
            LOG.warn("answer function failed for a {} request", wire.protocol().wireName(), e);
            receipt.answered(500);
            send(exchange, 500, wire.error(500, "The simulator's answer function failed: " + e));
            return;
        }
        // Status and charge first: a client that already holds its answer must find both in the ledger.
        String requestId = Wire.randomId("req_");
        receipt.answered(200, charge(requestId, request.model(), wire.usage(success)));
        if (streamed) {
            stream(exchange, wire.events(request, success, piecesFor(behaviour)), requestId, behaviour);
        } else if (behaviour instanceof Behaviour.FailMidStream) {
            sendHalf(exchange, Json.bytes(success), requestId);
        } else {
            send(exchange, 200, success, requestId);
        }
    }

    /** The protocol's error for {@code status}, with the headers it asks for; not billed. */
    private void refuse(HttpExchange exchange, Behaviour.Status status, Ledger.Receipt receipt) throws IOException {
        Headers headers = exchange.getResponseHeaders();
        if (status.retryAfterSeconds() != null) {
            headers.set("Retry-After", status.retryAfterSeconds().toString());
        }
        if (status.retryAfterMs() != null) {
            headers.set("retry-after-ms", status.retryAfterMs().toString());
        }
        if (status.resetAfterMs() != null) {
            wire.addRateLimitReset(headers, status.resetAfterMs(), Instant.now());
        }
        receipt.answered(status.status());
        send(exchange, status.status(), wire.error(status.status(), "Simulated " + status.status()));
    }

    private static Function<String, List<String>> piecesFor(Behaviour behaviour) {
        if (behaviour instanceof Behaviour.Paced paced) {
            return text -> TextPieces.splitInto(text, paced.pieces());
        }
        return TextPieces::split;
    }

    private void stream(HttpExchange exchange, List<SseEvent> events, String requestId, Behaviour behaviour)
            throws IOException, InterruptedException {
        EventStream.open(exchange, wire.requestIdHeader(), requestId);
        if (behaviour instanceof Behaviour.FailMidStream cut) {
            EventStream.write(exchange, events.subList(0, cut.eventsBeforeCut(events.size())));
            throw new ConnectionCut();
        }
        if (behaviour instanceof Behaviour.Paced paced) {
            if (!EventStream.writePaced(exchange, events, paced.intervalMs(), closed)) {
                throw new ConnectionCut();
            }
            return;
        }
        EventStream.write(exchange, events);
    }

    /** A 200 that promises the whole body in its {@code Content-Length} and delivers half of it. */
    private void sendHalf(HttpExchange exchange, byte[] bytes, String requestId) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.getResponseHeaders().set(wire.requestIdHeader(), requestId);
        exchange.sendResponseHeaders(200, bytes.length);
        exchange.getResponseBody().write(bytes, 0, bytes.length / 2);
        exchange.getResponseBody().flush();
        throw new ConnectionCut();
    }

    /** What the answer is billed, or {@code null} when it reports no usage (a token count). */
    private Ledger.Charge charge(String requestId, String model, Usage usage) {
        if (usage == null) {
            return null;
        }
        return new Ledger.Charge(requestId, usage,
                prices.apply(model).cost(usage.inputTokens(), usage.outputTokens(), usage.cachedInputTokens()));
    }

    /** Waits as the behaviour says; false when the simulator closed first (the connection is then dropped). */
    private boolean waitUnlessClosed(Behaviour behaviour, boolean streamed) throws InterruptedException {
        if (behaviour instanceof Behaviour.Paced paced && !streamed) {
            return paced.streamedOnly() || !closed.await(paced.pieces() * paced.intervalMs(), TimeUnit.MILLISECONDS);
        }
        if (behaviour instanceof Behaviour.Answer answer && answer.delayMs() > 0) {
            return !closed.await(answer.delayMs(), TimeUnit.MILLISECONDS);
        }
        if (behaviour instanceof Behaviour.Lognormal lognormal) {
            return !closed.await(lognormal.drawMs(ThreadLocalRandom.current()),
                    TimeUnit.MILLISECONDS);
        }
        if (behaviour instanceof Behaviour.Hang hang) {
            if (hang.answerAfterMs() == null) {
                closed.await();
                return false;
            }
            return !closed.await(hang.answerAfterMs(), TimeUnit.MILLISECONDS);
        }
        return true;
    }

    private void send(HttpExchange exchange, int status, JsonNode body) throws IOException {
        send(exchange, status, body, Wire.randomId("req_"));
    }

    private void send(HttpExchange exchange, int status, JsonNode body, String requestId) throws IOException {
        byte[] bytes = Json.bytes(body);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.getResponseHeaders().set(wire.requestIdHeader(), requestId);
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }

    /** Ends the exchange by dropping its connection; see {@link #handle}. */
    private static final class ConnectionCut extends RuntimeException {
        ConnectionCut() {
            super("connection cut mid-answer", null, false, false);
        }
    }

    private static JsonNode parseOrNull(byte[] raw) {
        try {
            return Json.parse(raw);
        } catch (IOException e) {
            return null;
        }
    }
}
