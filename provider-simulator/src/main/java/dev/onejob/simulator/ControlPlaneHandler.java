package dev.onejob.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The control plane under {@code /_sim/}, for processes that run the simulator out of process.
 *
 * <p>Consumes {@code GET /_sim/health}, {@code GET|DELETE /_sim/ledger}, {@code GET /_sim/usage-export},
 * {@code GET|PUT|DELETE /_sim/behaviour}, {@code PUT|DELETE /_sim/behaviour/{idempotencyKey}},
 * {@code PUT /_sim/refuse} and {@code PUT /_sim/token-count}; produces JSON answers ({@code {"error": "..."}}
 * with 400/404/405 when a call is wrong).
 *
 * <p>{@code GET /_sim/usage-export} is the provider's bill, as a real provider lets a customer export it:
 * {@code application/x-ndjson}, one object per billed request (a 2xx answer with a {@code usage} block, whatever
 * its content; not errors, hangs, resets or token counts) in arrival order, with exactly {@code request_id} (the
 * answer's {@code x-request-id} / {@code request-id} header), {@code idempotency_key} (or null),
 * {@code model}, {@code input_tokens} (cached ones included), {@code output_tokens}, {@code cached_input_tokens},
 * {@code cost_usd} (a number, 10 decimal places, see {@link Price#cost}) and {@code billed_at} (ISO-8601, when the
 * answer's status was set). Each line is a {@link BilledRequest}; {@code DELETE /_sim/ledger} clears it too.
 *
 * <p>Owns nothing: every call is turned into a call on the {@link ProviderSimulator} or its rules. Control-plane
 * calls are not recorded in the ledger.
 */
record ControlPlaneHandler(ProviderSimulator simulator, BehaviourRules rules) implements HttpHandler {
    static final String PREFIX = "/_sim/";
    private static final String KEYED_BEHAVIOUR = PREFIX + "behaviour/";
    private static final Logger LOG = LoggerFactory.getLogger(ControlPlaneHandler.class);

    @Override
    public void handle(HttpExchange exchange) {
        Runnable afterResponse = null;
        try {
            afterResponse = route(exchange, exchange.getRequestURI().getPath(), exchange.getRequestMethod());
        } catch (IllegalArgumentException e) {
            reply(exchange, 400, Json.object().put("error", e.getMessage()));
        } catch (IOException | RuntimeException e) {
            LOG.warn("control-plane call {} {} failed", exchange.getRequestMethod(), exchange.getRequestURI(), e);
            reply(exchange, 500, Json.object().put("error", e.toString()));
        } finally {
            exchange.close();
        }
        if (afterResponse != null) {
            afterResponse.run();
        }
    }

    /** The answer for any path outside the protocol endpoints and the control plane. */
    void notFound(HttpExchange exchange) {
        try {
            exchange.getRequestBody().readAllBytes();
            reply(exchange, 404, Json.object().put("error", "no such endpoint: " + exchange.getRequestURI().getPath()));
        } catch (IOException e) {
            LOG.debug("could not answer 404: {}", e.toString());
        } finally {
            exchange.close();
        }
    }

    /** Answers the call; returns what must run only once the answer is out, or {@code null}. */
    private Runnable route(HttpExchange exchange, String path, String method) throws IOException {
        JsonNode body = readBody(exchange);
        switch (path) {
            case PREFIX + "health" -> requireAndReply(exchange, method, "GET", this::health);
            case PREFIX + "ledger" -> ledger(exchange, method);
            case PREFIX + "usage-export" -> usageExport(exchange, method);
            case PREFIX + "behaviour" -> defaultBehaviour(exchange, method, body);
            case PREFIX + "refuse" -> {
                return refuse(exchange, method, body);
            }
            case PREFIX + "token-count" -> requireAndReply(exchange, method, "PUT", () -> tokenCount(body));
            default -> {
                if (path.startsWith(KEYED_BEHAVIOUR) && path.length() > KEYED_BEHAVIOUR.length()) {
                    keyedBehaviour(exchange, method, path.substring(KEYED_BEHAVIOUR.length()), body);
                } else {
                    reply(exchange, 404, Json.object().put("error", "no such control-plane endpoint: " + path));
                }
            }
        }
        return null;
    }

    private JsonNode health() {
        return Json.object().put("status", "ok").put("name", simulator.name()).put("port", simulator.port());
    }

    private void ledger(HttpExchange exchange, String method) {
        if ("GET".equals(method)) {
            ArrayNode entries = Json.MAPPER.createArrayNode();
            simulator.ledger().forEach(entry -> entries.add(entry.toJson()));
            reply(exchange, 200, entries);
        } else if ("DELETE".equals(method)) {
            simulator.clearLedger();
            reply(exchange, 204, null);
        } else {
            methodNotAllowed(exchange, "GET, DELETE");
        }
    }

    private void usageExport(HttpExchange exchange, String method) {
        if (!"GET".equals(method)) {
            methodNotAllowed(exchange, "GET");
            return;
        }
        byte[] text = BilledRequest.toNdjson(simulator.usageExport()).getBytes(StandardCharsets.UTF_8);
        reply(exchange, 200, BilledRequest.NDJSON, text);
    }

    private void defaultBehaviour(HttpExchange exchange, String method, JsonNode body) {
        switch (method) {
            case "GET" -> reply(exchange, 200, rules.describe());
            case "PUT" -> {
                BehaviourJson.Spec spec = BehaviourJson.parse(body);
                rules.setDefault(spec);
                reply(exchange, 200, BehaviourJson.write(spec));
            }
            case "DELETE" -> {
                rules.reset();
                reply(exchange, 204, null);
            }
            default -> methodNotAllowed(exchange, "GET, PUT, DELETE");
        }
    }

    private void keyedBehaviour(HttpExchange exchange, String method, String idempotencyKey, JsonNode body) {
        if ("PUT".equals(method)) {
            BehaviourJson.Spec spec = BehaviourJson.parse(body);
            rules.setForKey(idempotencyKey, spec);
            reply(exchange, 200, BehaviourJson.write(spec));
        } else if ("DELETE".equals(method)) {
            rules.clearKey(idempotencyKey);
            reply(exchange, 204, null);
        } else {
            methodNotAllowed(exchange, "PUT, DELETE");
        }
    }

    private Runnable refuse(HttpExchange exchange, String method, JsonNode body) {
        if (!"PUT".equals(method)) {
            methodNotAllowed(exchange, "PUT");
            return null;
        }
        if (body == null || !body.path("refuse").isBoolean()) {
            throw new IllegalArgumentException("body must be {\"refuse\": true, \"for_ms\": N}");
        }
        if (!body.get("refuse").asBoolean()) {
            // While refusing, no call can arrive; so "stop refusing" can only ever find the simulator accepting.
            reply(exchange, 200, Json.object().put("refusing", false));
            return null;
        }
        JsonNode forMs = body.get("for_ms");
        if (forMs == null || !forMs.isIntegralNumber() || forMs.asLong() <= 0) {
            throw new IllegalArgumentException("'for_ms' (a positive integer) is required with refuse=true:"
                    + " over the control plane, refusing must end by itself");
        }
        reply(exchange, 202, Json.object().put("refusing", true).put("for_ms", forMs.asLong()));
        return () -> simulator.refuseConnectionsFor(forMs.asLong());
    }

    private JsonNode tokenCount(JsonNode body) {
        if (body == null || !body.path("multiplier").isNumber()) {
            throw new IllegalArgumentException("body must be {\"multiplier\": 1.0, \"offset\": 0}");
        }
        double multiplier = body.get("multiplier").asDouble();
        long offset = body.path("offset").asLong(0);
        simulator.setTokenCountAdjustment(multiplier, offset);
        return Json.object().put("multiplier", multiplier).put("offset", offset);
    }

    private void requireAndReply(HttpExchange exchange, String method, String allowed,
                                 Supplier<JsonNode> answer) {
        if (allowed.equals(method)) {
            reply(exchange, 200, answer.get());
        } else {
            methodNotAllowed(exchange, allowed);
        }
    }

    private static JsonNode readBody(HttpExchange exchange) throws IOException {
        byte[] raw = exchange.getRequestBody().readAllBytes();
        if (raw.length == 0) {
            return null;
        }
        try {
            return Json.parse(raw);
        } catch (IOException e) {
            throw new IllegalArgumentException("body is not JSON: " + e.getMessage());
        }
    }

    private static void methodNotAllowed(HttpExchange exchange, String allowed) {
        exchange.getResponseHeaders().set("Allow", allowed);
        reply(exchange, 405, Json.object().put("error", "method not allowed; use " + allowed));
    }

    private static void reply(HttpExchange exchange, int status, JsonNode body) {
        try {
            if (body == null) {
                exchange.sendResponseHeaders(status, -1);
                return;
            }
            reply(exchange, status, "application/json", Json.bytes(body));
        } catch (IOException e) {
            LOG.debug("control-plane answer not delivered: {}", e.toString());
        }
    }

    private static void reply(HttpExchange exchange, int status, String contentType, byte[] bytes) {
        try {
            exchange.getResponseHeaders().set("Content-Type", contentType);
            // An empty body must be sent as length -1: a 0 would announce a chunked body.
            exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
            exchange.getResponseBody().write(bytes);
        } catch (IOException e) {
            LOG.debug("control-plane answer not delivered: {}", e.toString());
        }
    }
}
