package dev.onejob.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.http.ProblemJson;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every problem the service's code can send is in {@code openapi.yaml}: each {@code new Problem(status, "type", ...)}
 * in this module's sources, and each the HTTP server sends itself ({@code ProblemJson.serverTypes}), names a type the
 * Problem schema's enum lists, with the status its table gives, and a
 * status some operation documents as {@code application/problem+json}; and the document lists no type the code no
 * longer sends. The fuzz ({@code ApiFuzzIT}) only sees the types its requests happen to provoke; this sees them all.
 */
class ProblemTypesDocumentedTest {
    private static final Path SOURCES = Path.of(System.getProperty("basedir", ".")).resolve("src/main/java");
    private static final Pattern NEW_PROBLEM = Pattern.compile("new\\s+Problem\\s*\\(");
    private static final Pattern LITERAL_ARGUMENTS = Pattern.compile("\\s*(\\d{3})\\s*,\\s*\"([a-z0-9-]+)\"");
    /** No operation answers 405 for its own method; the document says where it comes from (info, Problem table). */
    private static final Set<Integer> NOT_AN_OPERATION_STATUS = Set.of(405);

    private final ApiDocument document = ApiDocument.load();

    @Test
    void everyProblemTheCodeSendsIsDocumentedWithItsStatus() throws IOException {
        // given every problem the sources construct, as (type, status)
        List<String> unreadable = new ArrayList<>();
        Map<String, Integer> sent = sentProblems(unreadable);
        // and those the HTTP server sends itself, before any route (malformed HTTP, limits, time limits)
        ProblemJson.serverTypes().forEach((type, status) -> {
            Integer before = sent.put(type, status);
            if (before != null && !before.equals(status)) {
                unreadable.add("the server sends " + type + " with " + status + ", the API with " + before);
            }
        });
        assertEquals(List.of(), unreadable, "problems whose status and type are not literals this test can read, "
                + "or a type sent with two statuses");
        assertTrue(sent.containsKey(ApiDocument.PROBLEM_BASE + "internal") && sent.size() > 10,
                "the scan of " + SOURCES.toAbsolutePath() + " found too few problems: " + sent);

        // then the document lists each with the same status, under some operation, and lists nothing more
        assertEquals(List.of(), undocumented(sent, document));
        Set<String> stale = new TreeSet<>(document.problemTypes());
        stale.removeAll(sent.keySet());
        assertEquals(Set.of(), stale, "types openapi.yaml lists but no code sends");
    }

    @Test
    void aTypeTheDocumentDoesNotListOrListsWithAnotherStatusIsFound() {
        // a check that cannot fail proves nothing
        Map<String, Integer> sent = new TreeMap<>(Map.of(ApiDocument.PROBLEM_BASE + "not-found", 404,
                ApiDocument.PROBLEM_BASE + "no-such-type", 404, ApiDocument.PROBLEM_BASE + "forbidden", 409));

        assertEquals(List.of(
                ApiDocument.PROBLEM_BASE + "forbidden (409): openapi.yaml gives it status 403",
                ApiDocument.PROBLEM_BASE + "no-such-type (404): not in the enum of the Problem schema's type",
                ApiDocument.PROBLEM_BASE + "no-such-type (404): no row in the Problem schema's table of types"),
                undocumented(sent, document));
    }

    /** What the document does not say about the problems {@code sent}: one line per gap, empty when none. */
    private static List<String> undocumented(Map<String, Integer> sent, ApiDocument document) {
        Set<String> listed = document.problemTypes();
        Map<String, Integer> statuses = document.problemStatuses();
        List<String> gaps = new ArrayList<>();
        sent.forEach((type, status) -> {
            String problem = type + " (" + status + "): ";
            if (!listed.contains(type)) {
                gaps.add(problem + "not in the enum of the Problem schema's type");
            }
            if (!statuses.containsKey(type)) {
                gaps.add(problem + "no row in the Problem schema's table of types");
            } else if (!statuses.get(type).equals(status)) {
                gaps.add(problem + "openapi.yaml gives it status " + statuses.get(type));
            }
            if (!NOT_AN_OPERATION_STATUS.contains(status) && document.operations().stream()
                    .noneMatch(operation -> answersProblem(document, operation, status))) {
                gaps.add(problem + "no operation documents a " + status + " application/problem+json answer");
            }
        });
        return gaps;
    }

    private static boolean answersProblem(ApiDocument document, ApiDocument.Operation operation, int status) {
        JsonNode response = document.resolve(operation.node().path("responses").path(Integer.toString(status)));
        JsonNode schema = response.path("content").path("application/problem+json").path("schema");
        return schema.path("$ref").asText().equals("#/components/schemas/Problem");
    }

    /**
     * Every {@code new Problem(status, "type", ...)} in the sources, status by full type URI; one whose status and
     * type are not literals goes to {@code unreadable} as file:line.
     */
    private static Map<String, Integer> sentProblems(List<String> unreadable) throws IOException {
        Map<String, Integer> sent = new TreeMap<>();
        List<Path> files;
        try (Stream<Path> walk = Files.walk(SOURCES)) {
            files = walk.filter(p -> p.toString().endsWith(".java")).sorted().toList();
        }
        for (Path file : files) {
            String source = Files.readString(file, StandardCharsets.UTF_8);
            Matcher construction = NEW_PROBLEM.matcher(source);
            while (construction.find()) {
                Matcher arguments = LITERAL_ARGUMENTS.matcher(source).region(construction.end(), source.length());
                String where = SOURCES.relativize(file) + ":" + line(source, construction.start());
                if (!arguments.lookingAt()) {
                    unreadable.add(where);
                    continue;
                }
                String type = ApiDocument.PROBLEM_BASE + arguments.group(2);
                int status = Integer.parseInt(arguments.group(1));
                Integer before = sent.put(type, status);
                if (before != null && before != status) {
                    unreadable.add(where + " sends " + type + " with " + status + " and elsewhere with " + before);
                }
            }
        }
        return sent;
    }

    private static int line(String source, int offset) {
        return (int) source.substring(0, offset).chars().filter(c -> c == '\n').count() + 1;
    }
}
