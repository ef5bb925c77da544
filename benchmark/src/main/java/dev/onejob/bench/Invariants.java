package dev.onejob.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.json.Json;
import dev.onejob.core.kafka.Topics;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Checks what onejob promises, after phases 3 to 9, from the database, the topics and the simulators' ledgers: one
 * job per (owner, key) and one per distinct key sent; one {@code job-results} record per finished job and none for
 * unfinished ones; every end-to-end job SUCCEEDED; one provider call per started attempt (ledger entries by
 * Idempotency-Key, which is the attempt id) and none for an attempt never started; one {@code attempt-commands}
 * record per attempt; every poison record dead-lettered once. And after the peer's run, the same two promises for
 * DBOS (one workflow per key, one provider call per workflow).
 */
final class Invariants {
    private final BenchContext context;

    Invariants(BenchContext context) {
        this.context = context;
    }

    void checkOnejob() {
        oneJobPerKey();
        oneResultPerJob();
        oneCallPerAttempt();
        oneCommandPerAttempt();
        poisonDeadLettered();
    }

    private void oneJobPerKey() {
        long duplicated = context.database().count("SELECT count(*) FROM (SELECT owner_id, idempotency_key FROM jobs "
                + "GROUP BY 1, 2 HAVING count(*) > 1) d");
        StringBuilder detail = new StringBuilder(duplicated + " (owner, key) pairs with more than one job");
        boolean holds = duplicated == 0;
        Map<String, Long> expected = new HashMap<>(context.expectedJobs());
        expected.remove("dbos");
        for (Map.Entry<String, Long> prefix : expected.entrySet()) {
            long jobs = context.database().count("SELECT count(*) FROM jobs WHERE idempotency_key LIKE ?",
                    prefix.getKey() + "-%");
            holds &= jobs == prefix.getValue();
            detail.append("; ").append(prefix.getKey()).append(": ").append(jobs).append(" jobs for ")
                    .append(prefix.getValue()).append(" distinct keys sent");
        }
        context.results().invariant("one job per (owner, idempotency key)", holds, detail.toString());
    }

    private void oneResultPerJob() {
        Set<String> jobs = new HashSet<>();
        context.database().query("SELECT id FROM jobs").forEach(row -> jobs.add(row.get(0)));
        Set<String> finished = new HashSet<>();
        context.database().query("SELECT id FROM jobs WHERE status IN ('SUCCEEDED', 'FAILED', 'CANCELLED')")
                .forEach(row -> finished.add(row.get(0)));
        Map<String, Integer> results = countBy(Topics.JOB_RESULTS.name(),
                record -> new String(record.key(), StandardCharsets.UTF_8));
        results.keySet().retainAll(jobs);
        long repeated = results.values().stream().filter(n -> n > 1).count();
        boolean same = results.keySet().equals(finished);
        context.results().invariant("one result per job", repeated == 0 && same, results.size()
                + " jobs with a job-results record, " + finished.size() + " finished jobs in the ledger, " + repeated
                + " jobs with more than one record" + (same ? "" : "; the two sets differ"));
        long e2e = context.expectedJobs().getOrDefault("e2e", 0L);
        long succeeded = context.database().count("SELECT count(*) FROM jobs WHERE idempotency_key LIKE 'e2e-%' "
                + "AND status = 'SUCCEEDED'");
        long finishedE2e = context.database().count("SELECT count(*) FROM jobs WHERE idempotency_key LIKE 'e2e-%' "
                + "AND status IN ('SUCCEEDED', 'FAILED', 'CANCELLED')");
        context.results().invariant("every end-to-end job finished", e2e > 0 && finishedE2e == e2e,
                finishedE2e + " of " + e2e + " end-to-end jobs finished, " + succeeded + " SUCCEEDED");
    }

    /**
     * Two invariants from the simulators' ledgers and the attempts table: no attempt reached a provider twice (nor was
     * a call made for an attempt that never started), and every started attempt either reached its provider or ended
     * FAILED with its request known never to have left ({@code request_sent = false}). An attempt UNKNOWN with no call
     * at the provider is a violation: it is an operator's work that a worker could have settled.
     */
    private void oneCallPerAttempt() {
        Map<String, Integer> calls = new HashMap<>();
        for (String simulator : List.of(context.services().primaryUrl(), context.services().backupUrl())) {
            for (JsonNode entry : ledger(simulator)) {
                String key = entry.path("idempotency_key").asText("");
                boolean job = !key.contains(":") && !context.certificationCalls().contains(key)
                        && !"anthropic-count-tokens".equals(entry.path("protocol").asText());
                if (job) {
                    calls.merge(key, 1, Integer::sum);
                }
            }
        }
        Map<String, String> started = new HashMap<>();
        context.database().query("SELECT id, status, coalesce(request_sent::text, '') FROM attempts"
                        + " WHERE started_at IS NOT NULL")
                .forEach(row -> started.put(row.get(0), row.get(1) + ("false".equals(row.get(2)) ? " not sent" : "")));
        long repeated = calls.values().stream().filter(n -> n > 1).count();
        long unstartedCalled = calls.keySet().stream().filter(key -> !started.containsKey(key)).count();
        context.results().invariant("no attempt called twice", repeated == 0 && unstartedCalled == 0,
                calls.size() + " distinct Idempotency-Keys in the simulators' ledgers, " + repeated
                + " called more than once, " + unstartedCalled + " for an attempt that never started (the"
                + " certification runs' " + context.certificationCalls().size() + " calls before the end-to-end runs"
                + " and token counting are not attempts and are left out)");
        Map<String, Long> uncalled = started.entrySet().stream().filter(e -> !calls.containsKey(e.getKey()))
                .collect(Collectors.groupingBy(Map.Entry::getValue, TreeMap::new, Collectors.counting()));
        long unsent = uncalled.getOrDefault("FAILED not sent", 0L);
        long stray = uncalled.values().stream().mapToLong(Long::longValue).sum() - unsent;
        context.results().invariant("every started attempt reached its provider or ended FAILED not sent",
                stray == 0, started.size() + " started attempts, " + (started.size() - unsent - stray)
                + " reached their provider, " + unsent + " FAILED not sent, " + stray + " neither"
                + (stray == 0 ? "" : " " + uncalled));
    }

    private void oneCommandPerAttempt() {
        Set<String> attempts = new HashSet<>();
        context.database().query("SELECT id FROM attempts").forEach(row -> attempts.add(row.get(0)));
        Map<String, Integer> commands = countBy(Topics.ATTEMPT_COMMANDS.name(),
                record -> Json.parse(new String(record.value(), StandardCharsets.UTF_8)).path("attempt_id").asText());
        commands.keySet().retainAll(attempts);
        long repeated = commands.values().stream().filter(n -> n > 1).count();
        // Commands are relayed at least once (no Kafka transaction): a copy is repeated only when a relay died
        // between the broker's acknowledgement and its mark, and a repeat starts nothing (the invariants above count
        // the calls), so a repeat is reported, not a violation.
        context.results().invariant("an attempt command for every attempt", commands.size() == attempts.size(),
                attempts.size() + " attempts, " + commands.size() + " with an attempt-commands record, " + repeated
                + " with more than one (relayed at least once; a repeat starts nothing)");
    }

    private void poisonDeadLettered() {
        BenchSettings settings = context.settings();
        long expected = (settings.kafkaRecords() + settings.kafkaWarmupRecords()) / settings.poisonEvery();
        long letters = KafkaSupport.readAll(context.kafka().bootstrapServers(), Topics.JOB_REQUESTS_DLQ.name())
                .stream().filter(r -> r.key() != null && new String(r.key(), StandardCharsets.UTF_8)
                        .matches("(kafka|kwarm)-\\d+")).count();
        context.results().invariant("every poison record dead-lettered once", letters == expected,
                letters + " dead letters for " + expected + " poison records");
    }

    /** After the peer's run: one workflow per (owner, key), one provider call per workflow. */
    void checkPeer(String primaryUrl) {
        long expected = context.expectedJobs().getOrDefault("dbos", 0L)
                + context.expectedJobs().getOrDefault("dbos-ai", 0L);
        if (expected == 0) {
            return;
        }
        long workflows;
        try {
            workflows = context.database().count("SELECT count(*) FROM dbos.workflow_status WHERE workflow_uuid LIKE "
                    + "'%:dbos-%'");
        } catch (RuntimeException e) {
            context.results().invariant("peer: one workflow per (owner, key)", false, e.getMessage());
            return;
        }
        context.results().invariant("peer: one workflow per (owner, key)", workflows == expected,
                workflows + " DBOS workflows for " + expected + " distinct keys sent");
        Map<String, Integer> calls = new HashMap<>();
        for (JsonNode entry : ledger(primaryUrl)) {
            String key = entry.path("idempotency_key").asText("");
            if (key.contains(":dbos-")) {
                calls.merge(key, 1, Integer::sum);
            }
        }
        long repeated = calls.values().stream().filter(n -> n > 1).count();
        context.results().invariant("peer: one provider call per workflow", repeated == 0 && calls.size() == workflows,
                calls.size() + " workflows called the provider, " + repeated + " more than once");
    }

    private Map<String, Integer> countBy(String topic,
                                         Function<ConsumerRecord<byte[], byte[]>, String> key) {
        Map<String, Integer> counts = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> record : KafkaSupport.readAll(context.kafka().bootstrapServers(), topic)) {
            counts.merge(key.apply(record), 1, Integer::sum);
        }
        return counts;
    }

    static JsonNode ledger(String simulatorUrl) {
        try {
            HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create(simulatorUrl + "/_sim/ledger")).GET().build(), HttpResponse.BodyHandlers.ofString());
            return Json.parse(response.body());
        } catch (Exception e) {
            throw new IllegalStateException("cannot read the ledger of the simulator at " + simulatorUrl + ": " + e, e);
        }
    }
}
