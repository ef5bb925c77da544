package dev.onejob.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.json.Json;
import dev.onejob.core.ledger.AttemptFailure;
import dev.onejob.core.ledger.Job;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Object-level authorisation, generated from the OpenAPI document: every documented operation is called by each of
 * two owners, aimed at the other owner's jobs and attempts (and, for the lists, asking for the other owner), and no
 * answer may carry the other owner's job ids, attempt ids, idempotency keys or text (the job's variables and its
 * failures' messages, which can quote a provider's answer). An operation the document gains tomorrow is walked the
 * day it is added; one with a path parameter this suite cannot fill fails it until it can. The positive controls
 * show that each owner's secrets are in the answers that may carry them, so the absence checked is meaningful.
 */
class OwnerScopingIT {
    private static final Pattern PARAMETER = Pattern.compile("\\{([a-z]+)}");
    private static final IngestFixture ingest = IngestFixture.shared();
    private static final ApiDocument document = ApiDocument.load();
    private static final ApiAnswerRules rules = new ApiAnswerRules(document);
    private static Owner alice;
    private static Owner bob;

    /** One owner's things: what another owner must never see. */
    private record Owner(String name, String token, String secret, String key, UUID failedJob, UUID failedAttempt,
                         UUID unknownJob, UUID unknownAttempt) {
        List<String> secrets() {
            return List.of(secret, key, failedJob.toString(), failedAttempt.toString(), unknownJob.toString(),
                    unknownAttempt.toString());
        }
    }

    @BeforeAll
    static void twoOwnersWithAFailedAndAnUnknownAttemptEach() {
        alice = owner("alice", IngestFixture.ALICE);
        bob = owner("bob", IngestFixture.BOB);
    }

    /** A job whose attempt failed with the owner's secret in its message, and one whose attempt is UNKNOWN. */
    private static Owner owner(String name, String token) {
        String secret = name + "-secret-" + UUID.randomUUID();
        String key = "ola-" + UUID.randomUUID();
        UUID failedJob = submit(token, key, secret);
        UUID failedAttempt = firstAttempt(failedJob);
        ingest.ledger.starts().start(failedAttempt, Duration.ofMinutes(5));
        ingest.ledger.failures().fail(failedAttempt, new AttemptFailure("http_500", "the provider answered: " + secret, false),
                (job, provider) -> false);
        UUID unknownJob = submit(token, "ola-" + UUID.randomUUID(), secret);
        UUID unknownAttempt = firstAttempt(unknownJob);
        ingest.ledger.starts().start(unknownAttempt, Duration.ofMinutes(5));
        ingest.ledger.starts().markUnknown(unknownAttempt);
        return new Owner(name, token, secret, key, failedJob, failedAttempt, unknownJob, unknownAttempt);
    }

    private static UUID submit(String token, String key, String text) {
        var created = ingest.submit(token, key, IngestFixture.request(text));
        assertEquals(201, created.statusCode(), created.body());
        return UUID.fromString(Json.parse(created.body()).path("id").asText());
    }

    private static UUID firstAttempt(UUID jobId) {
        return ingest.ledger.lookups().attempts(jobId).get(0).id();
    }

    @Test
    void noDocumentedOperationShowsOneOwnerAnotherOwnersJobsAttemptsOrText() {
        List<Job> before = List.of(job(alice.failedJob()), job(alice.unknownJob()), job(bob.failedJob()),
                job(bob.unknownJob()));
        List<String> leaks = new ArrayList<>();
        List<String> undocumented = new ArrayList<>();
        int calls = 0;
        for (Owner[] pair : new Owner[][] {{alice, bob}, {bob, alice}}) {
            Owner caller = pair[0];
            Owner other = pair[1];
            for (ApiDocument.Operation operation : document.operations()) {
                for (String target : targets(operation, other)) {
                    RawHttp.Response answer = call(caller.token(), operation, target);
                    calls++;
                    undocumented.addAll(rules.violations(operation.method(), operation.path(), answer).stream()
                            .map(v -> caller.name() + " " + operation.method() + " " + target + ": " + v).toList());
                    for (String secret : other.secrets()) {
                        // An id the caller put in its own request may come back (a 404's instance is the path it
                        // asked for); anything else of the other owner's may not.
                        if (target.contains(secret)) {
                            continue;
                        }
                        if (answer.text().contains(secret) || answer.headers().toString().contains(secret)) {
                            leaks.add(caller.name() + " " + operation.method() + " " + target + " (" + answer.status()
                                    + ") shows " + other.name() + "'s " + secret);
                        }
                    }
                }
            }
        }
        assertTrue(calls > 2 * document.operations().size(), "every operation was called by both owners");
        assertEquals(List.of(), leaks);
        assertEquals(List.of(), undocumented);
        // and nothing either owner sent touched the other's jobs
        assertEquals(before, List.of(job(alice.failedJob()), job(alice.unknownJob()), job(bob.failedJob()),
                job(bob.unknownJob())));
    }

    @Test
    void theSecretsAreInTheAnswersThatMayCarryThem() {
        // each owner reads its own job and its own failures; the operator reads every owner's
        for (Owner owner : List.of(alice, bob)) {
            assertTrue(get(owner.token(), "/v1/jobs/" + owner.failedJob()).contains(owner.secret()));
            assertTrue(get(owner.token(), "/v1/providers").contains(owner.secret()),
                    owner.name() + " sees its own job's failure on /v1/providers");
            assertTrue(get(owner.token(), "/v1/attempts?status=UNKNOWN").contains(owner.unknownAttempt().toString()));
        }
        String providers = get(IngestFixture.OPS, "/v1/providers");
        assertTrue(providers.contains(alice.secret()) && providers.contains(bob.secret()), providers);
        String unknown = get(IngestFixture.OPS, "/v1/attempts?status=UNKNOWN&limit=500");
        assertTrue(unknown.contains(alice.unknownAttempt().toString()) && unknown.contains(bob.unknownAttempt()
                .toString()), "the operator's UNKNOWN queue holds both owners'");
    }

    @Test
    void countersOverEveryOwnerAreForOperatorsOnly() {
        for (String path : List.of("/v1/stats", "/metrics")) {
            RawHttp.Response submitter = RawHttp.send(ingest.service.httpPort(), "GET", path,
                    List.of(new RawHttp.Header("Authorization", "Bearer " + IngestFixture.ALICE)), null, false);
            assertEquals(403, submitter.status(), path + ": " + submitter);
            RawHttp.Response operator = RawHttp.send(ingest.service.httpPort(), "GET", path,
                    List.of(new RawHttp.Header("Authorization", "Bearer " + IngestFixture.OPS)), null, false);
            assertEquals(200, operator.status(), path + ": " + operator);
        }
    }

    /**
     * The requests one operation is tried with, aimed at {@code other}: its ids in the path, and for a read the
     * other owner named in the query, as filter and as idempotency key.
     */
    private static List<String> targets(ApiDocument.Operation operation, Owner other) {
        Matcher parameter = PARAMETER.matcher(operation.path());
        StringBuilder path = new StringBuilder();
        while (parameter.find()) {
            String value = switch (parameter.group(1)) {
                case "id" -> operation.path().startsWith("/v1/attempts/") ? other.unknownAttempt().toString()
                        : other.failedJob().toString();
                case "file" -> "index.html";
                case "model" -> "fast"; // an alias of providers.yaml: every submitter's, no owner's
                default -> fail("no value to aim " + operation.name() + "'s {" + parameter.group(1) + "} at another "
                        + "owner: teach this suite what it names");
            };
            parameter.appendReplacement(path, value);
        }
        parameter.appendTail(path);
        String base = path.toString();
        if (!operation.method().equals("GET")) {
            return List.of(base);
        }
        List<String> targets = new ArrayList<>(List.of(base));
        if (operation.hasParameter("query", "owner")) {
            targets.add(base + "?owner=" + other.name());
        }
        if (operation.hasParameter("query", "idempotency_key")) {
            targets.add(base + "?idempotency_key=" + other.key());
        }
        if (operation.hasParameter("query", "status")) {
            targets.add(base + "?status=UNKNOWN");
        }
        return targets;
    }

    /** The operation as its documented example has it, with a key of the caller's own and no long wait. */
    private static RawHttp.Response call(String token, ApiDocument.Operation operation, String target) {
        List<RawHttp.Header> headers = new ArrayList<>(List.of(
                new RawHttp.Header("Authorization", "Bearer " + token),
                new RawHttp.Header("Idempotency-Key", "ola-own-" + UUID.randomUUID()),
                new RawHttp.Header("Prefer", "wait=1")));
        byte[] body = null;
        if (!operation.method().equals("GET")) {
            JsonNode example = operation.requestExample();
            body = (example == null ? "{}" : Json.write(example)).getBytes(StandardCharsets.UTF_8);
            headers.add(new RawHttp.Header("Content-Type", "application/json"));
        }
        return RawHttp.send(ingest.service.httpPort(), operation.method(), target, headers, body, true);
    }

    private static String get(String token, String target) {
        RawHttp.Response answer = RawHttp.send(ingest.service.httpPort(), "GET", target,
                List.of(new RawHttp.Header("Authorization", "Bearer " + token)), null, false);
        assertEquals(200, answer.status(), target + ": " + answer);
        return answer.text();
    }

    private static Job job(UUID id) {
        return ingest.ledger.lookups().job(id).orElseThrow();
    }
}
