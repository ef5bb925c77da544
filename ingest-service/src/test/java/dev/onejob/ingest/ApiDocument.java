package dev.onejob.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.onejob.core.json.JsonSchemas;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The HTTP API as {@code openapi.yaml} (from the schema jar) documents it, read the way a test needs it: every
 * operation with the statuses it may answer, whether it needs a token, its parameters and request body schema,
 * and the problem types the document lists. Nothing here is copied from the server's code.
 */
final class ApiDocument {
    static final String PROBLEM_BASE = "https://onejob.dev/problems/";
    private static final Pattern PROBLEM_ROW = Pattern.compile("(?m)^\\|\\s*`([a-z0-9-]+)`\\s*\\|\\s*(\\d{3})\\s*\\|");
    private static final List<String> HTTP_METHODS = List.of("get", "put", "post", "delete", "options", "head",
            "patch", "trace");

    /** One documented operation: {@code method} upper case, {@code path} the template as written. */
    record Operation(String method, String path, JsonNode node, Set<Integer> statuses, boolean secured,
                     List<JsonNode> parameters, JsonNode requestBody, JsonNode requestExample) {
        String name() {
            return method + " " + path;
        }

        boolean hasParameter(String in, String name) {
            return parameters.stream().anyMatch(p -> in.equals(p.path("in").asText())
                    && name.equalsIgnoreCase(p.path("name").asText()));
        }
    }

    private final JsonNode root;
    private final List<Operation> operations = new ArrayList<>();

    private ApiDocument(JsonNode root) {
        this.root = root;
        boolean securedByDefault = root.path("security").size() > 0;
        for (Iterator<Map.Entry<String, JsonNode>> paths = root.path("paths").fields(); paths.hasNext(); ) {
            Map.Entry<String, JsonNode> path = paths.next();
            for (Iterator<Map.Entry<String, JsonNode>> ops = path.getValue().fields(); ops.hasNext(); ) {
                Map.Entry<String, JsonNode> op = ops.next();
                if (!HTTP_METHODS.contains(op.getKey())) {
                    continue;
                }
                JsonNode node = op.getValue();
                Set<Integer> statuses = new TreeSet<>();
                node.path("responses").fieldNames().forEachRemaining(code -> statuses.add(Integer.parseInt(code)));
                boolean secured = node.has("security") ? node.path("security").size() > 0 : securedByDefault;
                List<JsonNode> parameters = new ArrayList<>();
                node.path("parameters").forEach(p -> parameters.add(resolve(p)));
                JsonNode json = node.path("requestBody").path("content").path("application/json");
                JsonNode body = resolve(json.path("schema"));
                operations.add(new Operation(op.getKey().toUpperCase(Locale.ROOT), path.getKey(), node,
                        Set.copyOf(statuses), secured, List.copyOf(parameters), body.isMissingNode() ? null : body,
                        json.has("example") ? json.get("example") : null));
            }
        }
    }

    static ApiDocument load() {
        try (InputStream in = ApiDocument.class.getClassLoader().getResourceAsStream("openapi.yaml")) {
            if (in == null) {
                throw new IllegalStateException("openapi.yaml is not on the test classpath (the schema jar)");
            }
            return new ApiDocument(new ObjectMapper(new YAMLFactory()).readTree(in));
        } catch (IOException e) {
            throw new IllegalStateException("openapi.yaml is not valid YAML: " + e.getMessage(), e);
        }
    }

    List<Operation> operations() {
        return operations;
    }

    /** The methods the document defines on {@code path}, upper case. */
    Set<String> methodsOf(String path) {
        Set<String> methods = new LinkedHashSet<>();
        operations.stream().filter(o -> o.path().equals(path)).forEach(o -> methods.add(o.method()));
        return methods;
    }

    /** Whether any operation on {@code path} needs a token (then a wrong method without one may answer 401). */
    boolean pathSecured(String path) {
        return operations.stream().anyMatch(o -> o.path().equals(path) && o.secured());
    }

    /** The problem types the document lists: the {@code enum} of the Problem schema's {@code type}. */
    Set<String> problemTypes() {
        JsonNode listed = root.at("/components/schemas/Problem/properties/type/enum");
        if (!listed.isArray() || listed.isEmpty()) {
            throw new IllegalStateException("the Problem schema no longer lists its types in an enum");
        }
        Set<String> types = new TreeSet<>();
        listed.forEach(type -> types.add(type.asText()));
        return types;
    }

    /**
     * The status of each problem type, as the table in the Problem schema's {@code type} description gives it
     * ("| `not-found` | 404 | ..."), keyed by the full type URI.
     */
    Map<String, Integer> problemStatuses() {
        String description = root.at("/components/schemas/Problem/properties/type/description").asText();
        Map<String, Integer> statuses = new TreeMap<>();
        Matcher row = PROBLEM_ROW.matcher(description);
        while (row.find()) {
            if (statuses.put(PROBLEM_BASE + row.group(1), Integer.parseInt(row.group(2))) != null) {
                throw new IllegalStateException("the Problem type table has two rows for " + row.group(1));
            }
        }
        if (statuses.isEmpty()) {
            throw new IllegalStateException("the Problem schema no longer has its table of types: " + description);
        }
        return statuses;
    }

    /** The schema of {@code operation}'s JSON answer with {@code status}, or null when it documents none. */
    JsonSchemas responseSchema(Operation operation, int status) {
        JsonNode response = resolve(operation.node().path("responses").path(Integer.toString(status)));
        JsonNode schema = null;
        for (Iterator<Map.Entry<String, JsonNode>> types = response.path("content").fields(); types.hasNext(); ) {
            Map.Entry<String, JsonNode> type = types.next();
            if (type.getKey().endsWith("json")) {
                schema = type.getValue().path("schema");
            }
        }
        if (schema == null || schema.isMissingNode()) {
            return null;
        }
        // The document's own components travel with the schema, so its "#/components/..." references resolve.
        ObjectNode standalone = schema.deepCopy();
        standalone.put("$schema", "https://json-schema.org/draft/2020-12/schema");
        standalone.set("components", root.path("components"));
        return JsonSchemas.fromShipped(standalone);
    }

    /** Follows a local {@code $ref} ("#/components/...") to what it names. */
    JsonNode resolve(JsonNode node) {
        JsonNode current = node;
        while (current.has("$ref")) {
            String ref = current.get("$ref").asText();
            if (!ref.startsWith("#/")) {
                throw new IllegalStateException("only local references are expected in openapi.yaml: " + ref);
            }
            current = root.at(ref.substring(1));
        }
        return current;
    }
}
