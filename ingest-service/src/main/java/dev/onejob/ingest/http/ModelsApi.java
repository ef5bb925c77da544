package dev.onejob.ingest.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.config.Providers;
import dev.onejob.core.http.HttpCall;
import dev.onejob.core.json.Json;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /v1/models} and {@code GET /v1/models/{model}} (role submit): the model aliases of providers.yaml a
 * drop-in call may name, in the shape of the SDK that asks. A request with an {@code anthropic-version} header (every
 * Anthropic SDK sends one) gets Anthropic's {@code ModelInfo} objects and list page ({@code limit}, {@code after_id},
 * {@code before_id}); any other gets OpenAI's {@code model} objects and {@code list}. Beside the providers' members each
 * model names its route: {@code target} and {@code fallbacks} (a fallback serves a call only once certified). An
 * alias has no creation time of its own: {@code created} is when this service loaded providers.yaml; an alias is
 * {@code active} while providers.yaml names it.
 */
final class ModelsApi {
    /** Anthropic's page size when the request names none, and the largest it accepts. */
    private static final int DEFAULT_LIMIT = 20;
    private static final int MAX_LIMIT = 1000;

    private final Providers providers;
    private final Instant loaded;

    ModelsApi(Providers providers, Instant loaded) {
        this.providers = providers;
        this.loaded = loaded.truncatedTo(ChronoUnit.SECONDS);
    }

    void list(HttpCall exchange) throws IOException {
        List<String> ids = new ArrayList<>(providers.aliases().keySet());
        Map<String, String> query = Exchanges.query(exchange);
        if (!anthropic(exchange)) {
            QueryParameters.allowOnly(query);
            ObjectNode answer = Json.object().put("object", "list");
            ArrayNode data = answer.putArray("data");
            ids.forEach(id -> data.add(openAi(id)));
            Exchanges.sendJson(exchange, 200, answer);
            return;
        }
        QueryParameters.allowOnly(query, "limit", "after_id", "before_id");
        int limit = QueryParameters.limit(query, DEFAULT_LIMIT, MAX_LIMIT);
        int from = 0;
        int to = ids.size();
        if (query.containsKey("after_id")) {
            from = position(ids, query.get("after_id"), "after_id") + 1;
            to = Math.min(to, from + limit);
        } else if (query.containsKey("before_id")) {
            to = position(ids, query.get("before_id"), "before_id");
            from = Math.max(0, to - limit);
        } else {
            to = Math.min(to, limit);
        }
        List<String> page = ids.subList(from, to);
        ObjectNode answer = Json.object();
        ArrayNode data = answer.putArray("data");
        page.forEach(id -> data.add(anthropic(id)));
        boolean more = query.containsKey("before_id") ? from > 0 : to < ids.size();
        answer.put("has_more", more);
        answer.put("first_id", page.isEmpty() ? null : page.get(0));
        answer.put("last_id", page.isEmpty() ? null : page.get(page.size() - 1));
        Exchanges.sendJson(exchange, 200, answer);
    }

    /** {@code id} as the path carries it: percent-encoded where the alias needs it (an alias's '/' cannot be). */
    void retrieve(HttpCall exchange, String encoded) throws IOException {
        String id = decoded(encoded);
        if (providers.alias(id).isEmpty()) {
            throw new Problem(404, "model-not-found", "Unknown model alias", "model '" + id + "' is not an alias of "
                    + "providers.yaml; the aliases are " + providers.aliases().keySet());
        }
        Exchanges.sendJson(exchange, 200, anthropic(exchange) ? anthropic(id) : openAi(id));
    }

    /** A path segment's percent-decoding ('+' is itself there); a malformed one names no alias. */
    private static String decoded(String segment) {
        try {
            return URLDecoder.decode(segment.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return segment;
        }
    }

    private static boolean anthropic(HttpCall exchange) {
        return exchange.header("anthropic-version") != null;
    }

    private static int position(List<String> ids, String id, String parameter) {
        int at = ids.indexOf(id);
        if (at < 0) {
            String detail = parameter + " '" + id + "' is not an alias of providers.yaml";
            throw Problem.invalidRequest(detail, List.of(detail));
        }
        return at;
    }

    private ObjectNode openAi(String id) {
        ObjectNode model = Json.object().put("id", id).put("object", "model").put("created", loaded.getEpochSecond())
                .put("owned_by", "onejob");
        return withRoute(model, providers.alias(id).orElseThrow());
    }

    private ObjectNode anthropic(String id) {
        Providers.Route route = providers.alias(id).orElseThrow();
        ObjectNode model = Json.object().put("type", "model").put("id", id)
                .put("display_name", id + " (" + String.join(", then ", routeOf(route)) + ")")
                .put("created_at", loaded.toString()).put("lifecycle", "active");
        return withRoute(model, route);
    }

    private static ObjectNode withRoute(ObjectNode model, Providers.Route route) {
        model.put("target", route.target());
        route.fallbacks().forEach(model.putArray("fallbacks")::add);
        return model;
    }

    private static List<String> routeOf(Providers.Route route) {
        List<String> all = new ArrayList<>(List.of(route.target()));
        all.addAll(route.fallbacks());
        return all;
    }
}
