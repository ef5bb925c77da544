package dev.onejob.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.json.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The routes the server answers and the operations the OpenAPI document lists are the same set: the server's route
 * table ({@link IngestService#routes}, which also drives dispatch and labels its metrics) has exactly the document's
 * methods and paths, every documented operation reaches a route (never the "no such resource" 404 or a 405), and a
 * path the document does not have is 404.
 */
class RoutesIT {
    private static final IngestFixture FIXTURE = IngestFixture.shared();
    private static final ApiDocument DOCUMENT = ApiDocument.load();

    @Test
    void theServersRoutesAreTheDocumentsOperations() {
        Set<String> documented = new TreeSet<>();
        DOCUMENT.operations().forEach(o -> documented.add(o.method() + " " + o.path()));
        Set<String> routed = new TreeSet<>();
        FIXTURE.service.routes().forEach(r -> routed.add(r.method() + " " + r.template()));
        assertEquals(documented, routed);
    }

    @Test
    void everyDocumentedOperationIsRouted() {
        List<String> unrouted = new ArrayList<>();
        for (ApiDocument.Operation operation : DOCUMENT.operations()) {
            String path = operation.path().replace("{id}", UUID.randomUUID().toString())
                    .replace("{file}", "index.html").replace("{model}", "fast");
            var answer = FIXTURE.send(operation.method(), path, IngestFixture.BOSS, Map.of(),
                    operation.method().equals("POST") ? "{}" : null);
            boolean notRouted = answer.statusCode() == 405 || answer.statusCode() == 404
                    && Json.parse(answer.body()).path("detail").asText().equals("no such resource");
            if (notRouted) {
                unrouted.add(operation.name() + " -> " + answer.statusCode() + " " + answer.body());
            }
        }
        assertEquals(List.of(), unrouted);
    }

    @Test
    void aPathTheDocumentDoesNotHaveIsNotFound() {
        for (String path : List.of("/v1/nope", "/v1/jobs/" + UUID.randomUUID() + "/nope", "/v2/jobs", "/console/a/b")) {
            var answer = FIXTURE.send("GET", path, IngestFixture.BOSS, Map.of(), null);
            assertEquals(404, answer.statusCode(), path + ": " + answer.body());
            assertTrue(answer.headers().firstValue("Content-Type").orElse("").startsWith("application/problem+json"));
            assertFalse(answer.body().contains("Exception"), answer.body());
        }
    }
}
