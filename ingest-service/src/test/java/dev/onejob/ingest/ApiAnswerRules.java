package dev.onejob.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.json.Json;
import dev.onejob.core.json.JsonSchemas;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * What every answer of the ingest API must look like, judged against {@code openapi.yaml} alone: a status the
 * operation documents (405 for a method the path does not define, and 401 first when the path needs a token, or a
 * refusal every operation documents, such as malformed HTTP), never
 * a 500, every error an {@code application/problem+json} body with type, title, status and detail and a type the
 * document lists with that status, a documented 2xx body that matches its schema, and no Java stack trace anywhere.
 */
final class ApiAnswerRules {
    private static final Pattern STACK_FRAME = Pattern.compile("\\bat (dev\\.onejob|java\\.|jdk\\.|com\\.|org\\.)"
            + "[\\w.$]+\\(");

    private final ApiDocument document;
    private final Set<String> problemTypes;
    private final Map<String, Integer> problemStatuses;
    private final Map<String, JsonSchemas> schemas = new HashMap<>();

    ApiAnswerRules(ApiDocument document) {
        this.document = document;
        this.problemTypes = document.problemTypes();
        this.problemStatuses = document.problemStatuses();
    }

    Set<String> problemTypes() {
        return problemTypes;
    }

    /** The statuses a request may get: the operation's own, or for a method the path lacks, 405 (and 401). */
    Set<Integer> allowed(String method, String path) {
        for (ApiDocument.Operation operation : document.operations()) {
            if (operation.path().equals(path) && operation.method().equals(method)) {
                return operation.statuses();
            }
        }
        Set<Integer> wrongMethod = new TreeSet<>(Set.of(405));
        if (document.pathSecured(path)) {
            wrongMethod.add(401);
        }
        // and what the server answers before any operation (malformed HTTP, limits): the statuses every operation
        // documents, its 4xx among them
        Set<Integer> everywhere = null;
        for (ApiDocument.Operation operation : document.operations()) {
            if (everywhere == null) {
                everywhere = new TreeSet<>(operation.statuses());
            } else {
                everywhere.retainAll(operation.statuses());
            }
        }
        if (everywhere != null) {
            everywhere.removeIf(status -> status < 400 || status >= 500);
            wrongMethod.addAll(everywhere);
        }
        return wrongMethod;
    }

    /**
     * The one 5xx that is no failure of the server: a drop-in call whose wait ended before its job finished (504
     * job-not-finished, the gateway-timeout answer its SDKs are told not to retry).
     */
    private static boolean isJobNotFinished(int status, String text) {
        return status == 504 && text.contains("\"type\":\"" + ApiDocument.PROBLEM_BASE + "job-not-finished\"");
    }

    /** Every way {@code response} breaks the document; empty when it keeps it. */
    List<String> violations(String method, String path, RawHttp.Response response) {
        List<String> violations = new ArrayList<>();
        int status = response.status();
        if (status < 0) {
            violations.add("no answer: " + response.error());
            return violations;
        }
        Set<Integer> allowed = allowed(method, path);
        if (!allowed.contains(status)) {
            violations.add("status " + status + " is not documented for " + method + " " + path + " " + allowed);
        }
        if (status >= 500 && !isJobNotFinished(status, response.text())) {
            violations.add("a " + status + " answer");
        }
        String text = response.text();
        if (text.contains("at dev.onejob") || text.contains("Exception") || STACK_FRAME.matcher(text).find()) {
            violations.add("the body carries a Java stack trace or exception name");
        }
        if (method.equals("HEAD")) {
            return violations;
        }
        if (status >= 400) {
            violations.addAll(problemViolations(status, response));
        } else if (status >= 200 && status < 300) {
            violations.addAll(successViolations(method, path, status, response));
        }
        return violations;
    }

    private List<String> problemViolations(int status, RawHttp.Response response) {
        List<String> violations = new ArrayList<>();
        String contentType = response.header("Content-Type");
        if (!"application/problem+json".equals(contentType)) {
            violations.add("a " + status + " with Content-Type " + contentType + ", not application/problem+json");
        }
        JsonNode problem;
        try {
            problem = Json.parse(response.text());
        } catch (IllegalArgumentException e) {
            violations.add("the problem body is not JSON");
            return violations;
        }
        for (String member : List.of("type", "title", "detail")) {
            if (!problem.path(member).isTextual() || problem.path(member).asText().isBlank()) {
                violations.add("the problem has no '" + member + "'");
            }
        }
        if (!problem.path("status").isInt() || problem.path("status").asInt() != status) {
            violations.add("the problem's status " + problem.path("status") + " is not the answer's " + status);
        }
        if (!problemTypes.contains(problem.path("type").asText())) {
            violations.add("problem type " + problem.path("type") + " is not one the document lists");
        } else if (!Integer.valueOf(status).equals(problemStatuses.get(problem.path("type").asText()))) {
            violations.add("problem type " + problem.path("type") + " is documented with status "
                    + problemStatuses.get(problem.path("type").asText()) + ", not " + status);
        }
        return violations;
    }

    private List<String> successViolations(String method, String path, int status, RawHttp.Response response) {
        ApiDocument.Operation operation = document.operations().stream()
                .filter(o -> o.method().equals(method) && o.path().equals(path)).findFirst().orElse(null);
        if (operation == null) {
            return List.of("a " + status + " for a method the document does not define on " + path);
        }
        JsonSchemas schema = schemas.computeIfAbsent(operation.name() + " " + status,
                k -> document.responseSchema(operation, status));
        if (schema == null) {
            return List.of();
        }
        String contentType = response.header("Content-Type");
        if (contentType == null || !contentType.startsWith("application/json")) {
            return List.of("a " + status + " JSON answer with Content-Type " + contentType);
        }
        try {
            List<String> broken = schema.violations(Json.parse(response.text()));
            return broken.isEmpty() ? List.of() : List.of("the " + status + " body breaks its documented schema: "
                    + broken);
        } catch (IllegalArgumentException e) {
            return List.of("the " + status + " body is not JSON");
        }
    }
}
