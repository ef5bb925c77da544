package dev.onejob.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.json.Json;
import dev.onejob.core.ledger.IdempotencyKey;
import dev.onejob.core.ledger.Job;
import dev.onejob.core.ledger.Ledger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

/**
 * The fuzzed {@code POST /v1/jobs} requests whose owner and key the server saw unambiguously, with their answers,
 * so the run can check the ledger afterwards: a job exists for (owner, key) exactly when one of them was answered
 * 201/200, it holds the request exactly as sent, and every refused request left no row. Also makes the exact
 * replays (200, same job) and conflicting reuses (409) of earlier submissions.
 */
final class FuzzSubmissions {
    enum Kind { FIRST, REPLAY, CONFLICT }

    static final class Submission {
        final FuzzTargets.Caller caller;
        final String key;
        final JsonNode sent;
        final Kind kind;
        int status;
        String jobId;

        Submission(FuzzTargets.Caller caller, String key, JsonNode sent, Kind kind) {
            this.caller = caller;
            this.key = key;
            this.sent = sent;
            this.kind = kind;
        }

        /** Records the answer; returns what is wrong with it beyond the document. */
        List<String> answered(RawHttp.Response response) {
            status = response.status();
            JsonNode body = ApiFuzzer.parseOrNull(response.body());
            if (status != 200 && status != 201 || body == null) {
                return List.of();
            }
            jobId = body.path("id").asText();
            List<String> wrong = new ArrayList<>();
            if (!("/v1/jobs/" + jobId).equals(response.header("Location"))) {
                wrong.add("a " + status + " without Location /v1/jobs/" + jobId);
            }
            if (status == 200 && !"true".equals(response.header("Idempotent-Replayed"))) {
                wrong.add("a replay without Idempotent-Replayed: true");
            }
            if (status == 201 && sent != null && !sent.equals(body.path("request"))) {
                wrong.add("the job's request " + FuzzText.abbreviate(body.path("request").toString())
                        + " is not the request sent " + FuzzText.abbreviate(sent.toString()));
            }
            return wrong;
        }
    }

    private final List<Submission> all = new ArrayList<>();
    private final Random random;

    FuzzSubmissions(Random random) {
        this.random = random;
    }

    /** Tracks a submission the server must attribute to one owner and one valid key; null when it cannot. */
    Submission track(FuzzAuth.Choice credentials, String key, byte[] body) {
        FuzzTargets.Caller caller = credentials.caller();
        if (caller == null || credentials.ambiguous() || !caller.submit() || key == null) {
            return null;
        }
        String seen = FuzzText.withoutPadding(key);
        if (IdempotencyKey.problem(seen).isPresent()) {
            return null;
        }
        Submission submission = new Submission(caller, seen, ApiFuzzer.parseOrNull(body), Kind.FIRST);
        all.add(submission);
        return submission;
    }

    /** Now and then the exact replay (200) or a changed request (409) under the key of an earlier new job. */
    ApiFuzzer.Request replayOrConflict(int number) {
        List<Submission> created = all.stream().filter(s -> s.status == 201 && s.sent != null).toList();
        int r = random.nextInt(100);
        if (created.isEmpty() || r >= 12) {
            return null;
        }
        Submission original = created.get(random.nextInt(created.size()));
        boolean conflict = r < 4;
        JsonNode body = original.sent.deepCopy();
        if (conflict) {
            ((ObjectNode) body.path("variables")).put("text", "changed by request " + number);
        }
        Submission again = new Submission(original.caller, original.key, body, conflict ? Kind.CONFLICT : Kind.REPLAY);
        all.add(again);
        List<RawHttp.Header> headers = List.of(FuzzAuth.authorization("Bearer " + original.caller.token()),
                new RawHttp.Header("Idempotency-Key", original.key),
                new RawHttp.Header("Content-Type", "application/json"));
        return new ApiFuzzer.Request(number, "POST", "/v1/jobs", "/v1/jobs", headers,
                Json.write(body).getBytes(StandardCharsets.UTF_8), true,
                List.of(conflict ? "conflicting reuse of a key" : "exact replay"), conflict ? 409 : 200, again);
    }

    int size() {
        return all.size();
    }

    /** Every (owner, key) whose row in the ledger does not match what its requests were answered. */
    List<String> ledgerViolations(Ledger ledger) {
        Map<String, List<Submission>> byKey = new LinkedHashMap<>();
        all.forEach(s -> byKey.computeIfAbsent(s.caller.owner() + "\u0000" + s.key, k -> new ArrayList<>()).add(s));
        List<String> violations = new ArrayList<>();
        for (List<Submission> group : byKey.values()) {
            Submission first = group.get(0);
            Optional<Job> job = ledger.lookups().jobForKey(first.caller.owner(), first.key);
            long created = group.stream().filter(s -> s.status == 201).count();
            boolean accepted = group.stream().anyMatch(s -> s.status == 200 || s.status == 201);
            String name = first.caller.owner() + "/" + FuzzText.abbreviate(first.key);
            if (created > 1) {
                violations.add(name + ": " + created + " answers 201 for one key");
            }
            if (accepted != job.isPresent()) {
                violations.add(name + ": answered " + group.stream().map(s -> s.status).toList() + " but the ledger "
                        + (job.isPresent() ? "holds job " + job.get().id() : "holds no job"));
                continue;
            }
            if (job.isPresent()) {
                for (Submission s : group) {
                    if ((s.status == 200 || s.status == 201) && !job.get().id().toString().equals(s.jobId)) {
                        violations.add(name + ": answered job " + s.jobId + ", the ledger holds " + job.get().id());
                    }
                }
                Submission winner = group.stream().filter(s -> s.status == 201).findFirst().orElse(null);
                if (winner != null && winner.sent != null && !winner.sent.equals(job.get().request())) {
                    violations.add(name + ": the ledger's request is not the one sent");
                }
            }
        }
        return violations;
    }
}
