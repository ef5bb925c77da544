package dev.onejob.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.json.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * Generates hostile requests for the operations of {@link ApiDocument}: bad or duplicate credentials
 * ({@link FuzzAuth}), foreign and malformed path ids, hostile query values, missing, duplicate and invalid
 * idempotency keys, random content types and junk headers, wrong methods, chunked bodies, and the bodies of
 * {@link FuzzBodies}. Where the outcome is certain (a bad credential, a wrong method, a replay, an over-limit body
 * with a valid key) the request carries the exact status expected.
 */
final class ApiFuzzer {
    /** IngestFixture runs the service with HTTP_MAX_BODY_BYTES = 64 KiB. */
    static final int BODY_LIMIT = 64 * 1024;
    /** What a {@code {model}} is aimed at: aliases, and names that are none (a path Jetty refuses is not one). */
    private static final List<String> MODELS = List.of("fast", "careful", "primary-only", "FAST", "gpt-4o",
            "claude-sonnet-4-5", "fast%20", "%E2%80%8Bfast");
    private static final List<String> METHODS = List.of("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD",
            "get", "PROPFIND", "FOO");

    /** One request as sent; {@code expected} is an exact status when the fuzzer knows it, else null. */
    record Request(int number, String method, String path, String target, List<RawHttp.Header> headers, byte[] body,
                   boolean contentLength, List<String> notes, Integer expected, FuzzSubmissions.Submission tracked) {
        String describe() {
            StringBuilder text = new StringBuilder("#" + number + " " + method + " " + FuzzText.abbreviate(target)
                    + " " + notes);
            headers.forEach(h -> text.append(" [").append(h.name()).append(": ")
                    .append(FuzzText.abbreviate(h.value())).append(']'));
            return text.append(" body=").append(FuzzText.abbreviate(body)).toString();
        }
    }

    private final ApiDocument document;
    private final FuzzTargets targets;
    private final HostileValues hostile;
    private final FuzzAuth auth;
    private final FuzzSubmissions submissions;
    private final FuzzBodies bodies;
    private final Random random;
    private final String run;
    private int count;

    ApiFuzzer(ApiDocument document, FuzzTargets targets, Random random, String run) {
        this.document = document;
        this.targets = targets;
        this.random = random;
        this.run = run;
        this.hostile = new HostileValues(random);
        this.auth = new FuzzAuth(random);
        this.submissions = new FuzzSubmissions(random);
        this.bodies = new FuzzBodies(document, hostile, random);
    }

    FuzzSubmissions submissions() {
        return submissions;
    }

    Request next(ApiDocument.Operation operation) {
        int number = ++count;
        if (operation.name().equals("POST /v1/jobs")) {
            Request again = submissions.replayOrConflict(number);
            if (again != null) {
                return again;
            }
        }
        List<String> notes = new ArrayList<>();
        FuzzAuth.Choice credentials = auth.choose(notes);
        String method = operation.method();
        boolean wrongMethod = random.nextInt(100) < 8;
        if (wrongMethod) {
            List<String> others = METHODS.stream().filter(m -> !document.methodsOf(operation.path()).contains(m))
                    .toList();
            method = hostile.pick(others);
            notes.add("wrong method");
        }
        String target = operation.path().replace("{id}", FuzzText.encode(pathId(operation, credentials, notes)))
                .replace("{file}", hostile.pick(CONSOLE_FILES))
                .replace("{model}", hostile.pick(MODELS))
                + query(operation, credentials, notes);
        List<RawHttp.Header> headers = new ArrayList<>(credentials.headers());
        String key = idempotencyKey(operation, headers, number, notes);
        headers.addAll(otherHeaders(notes));
        if (WAITS_BY_DEFAULT.contains(operation.path())) {
            // A drop-in call waits for its job (60 s by default), and no worker runs here: ask for no wait.
            headers.add(new RawHttp.Header("Prefer", "wait=0"));
        }
        byte[] body = bodies.body(operation, notes);
        if (operation.name().equals("POST /v1/certifications") && credentials.caller() != null
                && credentials.caller().operate()) {
            body = FuzzText.neverCertify(body, notes);
        }
        FuzzSubmissions.Submission tracked = !wrongMethod && operation.name().equals("POST /v1/jobs")
                ? submissions.track(credentials, key, body) : null;
        boolean chunked = body != null && random.nextInt(100) < 5;
        if (chunked) {
            headers.add(new RawHttp.Header("Transfer-Encoding", "chunked"));
            notes.add("chunked");
        }
        int refused = refusedByServer(method, target, headers);
        Integer expected = refused == PASSES ? expected(operation, credentials, wrongMethod, tracked, body)
                : refused == TOO_LARGE ? null : Integer.valueOf(refused);
        return new Request(number, method, operation.path(), target, headers, chunked ? FuzzText.chunk(body) : body,
                !chunked, notes, expected, tracked);
    }

    /**
     * What the HTTP server answers before any operation sees the request: 400 for a control character in a header
     * value; for a head over the server's limit, a 414 or a 431 (both documented for every operation), so no exact
     * status ({@link #TOO_LARGE}); {@link #PASSES} when the server lets the request through.
     */
    private static int refusedByServer(String method, String target, List<RawHttp.Header> headers) {
        int headBytes = method.length() + target.length() + 64;
        boolean control = false;
        for (RawHttp.Header header : headers) {
            String value = header.value();
            for (int i = 0; i < value.length(); i++) {
                char c = value.charAt(i);
                control |= (c < 0x20 && c != '\t') || c == 0x7f;
            }
            headBytes += header.name().length() + value.getBytes(StandardCharsets.UTF_8).length + 4;
        }
        // The request line and the head's size are judged before the values in it.
        if (headBytes > SERVER_HEAD_LIMIT - 256) {
            return TOO_LARGE;
        }
        return control ? 400 : PASSES;
    }

    /** The console's files, one that does not exist, and the empty name (index.html). */
    private static final List<String> CONSOLE_FILES = List.of("index.html", "console.js", "console.css",
            "no-such-file.js", "");

    /** The operations whose answer waits for the job unless told otherwise. */
    private static final Set<String> WAITS_BY_DEFAULT = Set.of("/v1/chat/completions",
            "/v1/messages");

    private static final int PASSES = 0;
    private static final int TOO_LARGE = -1;

    /** HTTP_MAX_HEADER_BYTES's default: the largest request head the server reads. */
    private static final int SERVER_HEAD_LIMIT = 16 * 1024;

    private Integer expected(ApiDocument.Operation operation, FuzzAuth.Choice credentials, boolean wrongMethod,
                             FuzzSubmissions.Submission tracked, byte[] body) {
        if (credentials.invalid() && document.pathSecured(operation.path())) {
            return 401;
        }
        if (wrongMethod && (!credentials.ambiguous() || !document.pathSecured(operation.path()))) {
            return 405;
        }
        if (tracked != null && body != null && body.length > BODY_LIMIT) {
            return 413;
        }
        return null;
    }

    private String pathId(ApiDocument.Operation operation, FuzzAuth.Choice credentials, List<String> notes) {
        int r = random.nextInt(100);
        if (operation.path().startsWith("/v1/attempts/")) {
            if (r < 60) {
                notes.add("a real attempt");
                return hostile.pick(targets.attempts());
            }
        } else {
            String owner = credentials.caller() == null ? "" : credentials.caller().owner();
            if (r < 55 && !targets.jobsOf(owner).isEmpty()) {
                notes.add("own job");
                return hostile.pick(targets.jobsOf(owner));
            }
            if (r < 75) {
                notes.add("another owner's job");
                return hostile.pick(targets.jobsNotOf(owner));
            }
        }
        return hostile.foreignId();
    }

    private String query(ApiDocument.Operation operation, FuzzAuth.Choice credentials, List<String> notes) {
        StringBuilder query = new StringBuilder();
        if (operation.hasParameter("query", "idempotency_key")) {
            String owner = credentials.caller() == null ? "alice" : credentials.caller().owner();
            List<String> keys = targets.keysOf(random.nextBoolean() ? owner : "bob");
            String valid = keys.isEmpty() ? run + "-unused" : hostile.pick(keys);
            int r = random.nextInt(10);
            if (r == 0) {
                notes.add("no idempotency_key");
            } else if (r == 1) {
                query.append("idempotency_key=").append(FuzzText.encode(valid)).append("&idempotency_key=x");
                notes.add("idempotency_key twice");
            } else {
                query.append("idempotency_key=").append(FuzzText.encode(hostile.queryValue(valid)));
            }
        }
        if (random.nextInt(100) < 8) {
            query.append(query.length() == 0 ? "" : "&").append(FuzzText.encode(hostile.key())).append('=')
                    .append(FuzzText.encode(hostile.string()));
        }
        return query.length() == 0 ? "" : "?" + query;
    }

    /** Adds the Idempotency-Key header(s) the operation documents; returns the one key sent, or null. */
    private String idempotencyKey(ApiDocument.Operation operation, List<RawHttp.Header> headers, int number,
                                  List<String> notes) {
        if (!operation.hasParameter("header", "Idempotency-Key")) {
            return null;
        }
        String fresh = run + "-" + number;
        int r = random.nextInt(100);
        if (r < 8) {
            notes.add("no Idempotency-Key");
            return null;
        }
        if (r < 13) {
            headers.add(new RawHttp.Header("Idempotency-Key", fresh));
            headers.add(new RawHttp.Header("Idempotency-Key", fresh + "-second"));
            notes.add("Idempotency-Key twice");
            return null;
        }
        String key = hostile.idempotencyKey(fresh);
        headers.add(new RawHttp.Header("Idempotency-Key", key));
        return key;
    }

    private List<RawHttp.Header> otherHeaders(List<String> notes) {
        List<RawHttp.Header> headers = new ArrayList<>();
        int r = random.nextInt(10);
        if (r < 7) {
            headers.add(new RawHttp.Header("Content-Type", "application/json"));
        } else if (r < 9) {
            String type = hostile.contentType();
            headers.add(new RawHttp.Header("Content-Type", type));
        }
        if (random.nextInt(10) == 0) {
            headers.add(new RawHttp.Header("X-Fuzz", FuzzText.headerSafe(hostile.string())));
            notes.add("junk header");
        }
        return headers;
    }

    static JsonNode parseOrNull(byte[] body) {
        try {
            return body == null ? null : Json.MAPPER.readTree(body);
        } catch (IOException e) {
            return null;
        }
    }
}
