package dev.onejob.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.json.Json;
import dev.onejob.core.ledger.OperatorAction;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Real jobs and attempts for a fuzz run to aim at, made through the API before it starts: each submitter's own
 * jobs (so ids and keys the caller owns, and ones another owner owns, both exist), and attempts in every state an
 * operator can meet: PENDING, STARTING, UNKNOWN, and a job waiting for its owner (NEEDS_ACTION).
 */
final class FuzzTargets {
    /** A fixture token and what it may do. */
    record Caller(String token, String owner, boolean submit, boolean operate) {
    }

    static final List<Caller> CALLERS = List.of(
            new Caller(IngestFixture.ALICE, "alice", true, false),
            new Caller(IngestFixture.BOB, "bob", true, false),
            new Caller(IngestFixture.OPS, "ops", false, true),
            new Caller(IngestFixture.BOSS, "boss", true, true));

    /** Provider and contract ids of the fixture's config (the document names them only in its example). */
    static final List<String> PROVIDERS = List.of("primary", "backup");
    static final List<String> CONTRACTS = List.of("sentiment");

    private final Map<String, List<String>> jobs = new LinkedHashMap<>();
    private final Map<String, List<String>> keys = new LinkedHashMap<>();
    private final List<String> attempts = new ArrayList<>();

    private FuzzTargets() {
    }

    static FuzzTargets create(IngestFixture ingest, String run) {
        FuzzTargets targets = new FuzzTargets();
        String reversed = "{\"contract\":\"sentiment\",\"variables\":{\"text\":\"t\"},\"target\":\"backup\","
                + "\"fallbacks\":[\"primary\"]}";
        for (Caller caller : CALLERS) {
            if (!caller.submit()) {
                continue;
            }
            for (int i = 0; i < 3; i++) {
                targets.submit(ingest, caller, run + "-target-" + i, i == 2 ? reversed : IngestFixture.request("t"));
            }
        }
        List<UUID> alice = targets.firstAttempts(ingest, "alice");
        ingest.ledger.starts().start(alice.get(0), Duration.ofMinutes(10));
        ingest.ledger.starts().start(alice.get(1), Duration.ofMinutes(10));
        ingest.ledger.starts().markUnknown(alice.get(1));
        // the boss's reversed job waits for its owner: the fallback button (with an override) may press
        UUID waiting = targets.firstAttempts(ingest, "boss").get(2);
        ingest.ledger.starts().start(waiting, Duration.ofMinutes(10));
        ingest.ledger.starts().markUnknown(waiting);
        ingest.ledger.interventions().resolveCancelled(waiting,
                OperatorAction.of("test", OperatorAction.RESOLVE_CANCELLED, "fuzz: make room for the fallback button"));
        return targets;
    }

    private void submit(IngestFixture ingest, Caller caller, String key, String body) {
        HttpResponse<String> created = ingest.submit(caller.token(), key, body);
        if (created.statusCode() != 201) {
            throw new IllegalStateException("cannot create a fuzz target: " + created.statusCode() + " "
                    + created.body());
        }
        JsonNode job = Json.parse(created.body());
        jobs.computeIfAbsent(caller.owner(), o -> new ArrayList<>()).add(job.path("id").asText());
        keys.computeIfAbsent(caller.owner(), o -> new ArrayList<>()).add(key);
        attempts.add(job.path("attempts").get(0).path("id").asText());
    }

    private List<UUID> firstAttempts(IngestFixture ingest, String owner) {
        return jobs.get(owner).stream().map(id -> ingest.ledger.lookups().attempts(UUID.fromString(id)).get(0).id()).toList();
    }

    List<String> jobsOf(String owner) {
        return jobs.getOrDefault(owner, List.of());
    }

    List<String> keysOf(String owner) {
        return keys.getOrDefault(owner, List.of());
    }

    /** Jobs owned by anyone but {@code owner}. */
    List<String> jobsNotOf(String owner) {
        List<String> others = new ArrayList<>();
        jobs.forEach((o, ids) -> {
            if (!o.equals(owner)) {
                others.addAll(ids);
            }
        });
        return others;
    }

    List<String> attempts() {
        return attempts;
    }
}
