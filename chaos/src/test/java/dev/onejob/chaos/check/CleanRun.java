package dev.onejob.chaos.check;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.chaos.check.RunRecord.AttemptCommand;
import dev.onejob.chaos.check.RunRecord.AttemptRow;
import dev.onejob.chaos.check.RunRecord.Completion;
import dev.onejob.chaos.check.RunRecord.DeadLetter;
import dev.onejob.chaos.check.RunRecord.JobResult;
import dev.onejob.chaos.check.RunRecord.JobRow;
import dev.onejob.chaos.check.RunRecord.ProviderCall;
import dev.onejob.chaos.check.RunRecord.RaceAudit;
import dev.onejob.chaos.check.RunRecord.RequestOutcome;
import dev.onejob.chaos.history.Op;
import dev.onejob.core.billing.Usage;
import dev.onejob.core.json.Json;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * A small, realistic record of a chaos run in which every invariant holds, as mutable lists so a test can break
 * exactly one thing before {@link #build()}. Six intents: A (HTTP, replayed, a refused conflict; succeeded), B
 * (Kafka, redelivered; its first attempt went UNKNOWN, was resolved FAILED, and its late answer lost to the second),
 * C (HTTP after a timeout; cancelled before starting), D (Kafka, a refused Kafka conflict; NEEDS_ACTION), E (one
 * HTTP timeout that never arrived) and F (UNKNOWN, awaiting an operator); one poison record; three faults.
 */
final class CleanRun {
    static final String FP_A = "a".repeat(64);
    static final String FP_B = "b".repeat(64);
    static final String FP_C = "c".repeat(64);
    static final String FP_D = "d".repeat(64);
    static final String FP_E = "e".repeat(64);
    static final String FP_F = "f".repeat(64);
    static final String FP_CONFLICT = "0".repeat(64);

    static final String JOB_A = id("job-a");
    static final String JOB_B = id("job-b");
    static final String JOB_C = id("job-c");
    static final String JOB_D = id("job-d");
    static final String JOB_F = id("job-f");
    static final String ATT_A1 = id("att-a1");
    static final String ATT_B1 = id("att-b1");
    static final String ATT_B2 = id("att-b2");
    static final String ATT_C1 = id("att-c1");
    static final String ATT_D1 = id("att-d1");
    static final String ATT_F1 = id("att-f1");
    static final Instant T0 = Instant.parse("2025-01-01T00:00:00Z");

    final List<Op> ops = new ArrayList<>();
    final List<JobRow> jobs = new ArrayList<>();
    final List<AttemptRow> attempts = new ArrayList<>();
    final List<RequestOutcome> outcomes = new ArrayList<>();
    final List<JobResult> results = new ArrayList<>();
    final List<RaceAudit> raceAudits = new ArrayList<>();
    final List<Completion> completions = new ArrayList<>();
    final List<AttemptCommand> commands = new ArrayList<>();
    final List<DeadLetter> deadLetters = new ArrayList<>();
    final List<ProviderCall> calls = new ArrayList<>();
    final List<String> unreadable = new ArrayList<>();
    private long nextOp = 1;
    String requestB;
    String requestBAgain;
    String requestD;
    String requestDConflict;

    CleanRun() {
        history();
        intentA();
        intentB();
        intentC();
        intentD();
        intentF();
        poisonAndCertification();
    }

    RunRecord build() {
        return new RunRecord(ops, jobs, attempts, outcomes, results, raceAudits, completions, commands, deadLetters,
                calls, unreadable);
    }

    static String id(String name) {
        return UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8)).toString();
    }

    static Instant t(int seconds) {
        return T0.plusSeconds(seconds);
    }

    static JsonNode json(String text) {
        return Json.parse(text);
    }

    private void history() {
        fault("kill-worker worker-1 at 12s");
        http("alice", "k-a", FP_A, Op.OK, JOB_A, 201);
        requestB = kafka("bob", "k-b", FP_B, Op.OK).requestId();
        http("alice", "k-c", FP_C, Op.UNKNOWN, null, null);
        requestD = kafka("bob", "k-d", FP_D, Op.OK).requestId();
        http("alice", "k-e", FP_E, Op.UNKNOWN, null, null);
        http("carol", "k-f", FP_F, Op.OK, JOB_F, 201);
        fault("restart-broker broker-1");
        http("alice", "k-a", FP_A, Op.OK, JOB_A, 200);
        requestBAgain = kafka("bob", "k-b", FP_B, Op.UNKNOWN).requestId();
        http("alice", "k-c", FP_C, Op.OK, JOB_C, 200);
        http("alice", "k-a", FP_CONFLICT, Op.FAIL, null, 409);
        requestDConflict = kafka("bob", "k-d", FP_CONFLICT, Op.OK).requestId();
        poison("poison-1", Op.OK);
        fault("kill-worker worker-2");
        operator("resolve", null, ATT_B1, null, Op.OK);
        operator("fallback", "bob", null, JOB_D, Op.FAIL);
    }

    /** Answered 201 then 200; won by its only attempt, whose answer is stored with other key order and 1 as 1.0. */
    private void intentA() {
        jobs.add(new JobRow(JOB_A, "alice", "k-a", "SUCCEEDED", ATT_A1, json("{\"answer\": \"a\", \"n\": 1}")));
        // billed by the provider as the ledger recorded it
        attempts.add(new AttemptRow(ATT_A1, JOB_A, 1, "openai", "SUCCEEDED", t(0), t(1), t(2), null, null, "req-a1",
                new Usage(100, 10, 0), new BigDecimal("0.000021")));
        commands.add(new AttemptCommand(ATT_A1, JOB_A));
        calls.add(new ProviderCall("openai", ATT_A1, "openai-chat", 200, ProviderCall.ANSWER, null, "req-a1",
                new Usage(100, 10, 0), new BigDecimal("0.000021")));
        completions.add(new Completion(ATT_A1, JOB_A, "SUCCEEDED", json("{\"n\": 1.0, \"answer\": \"a\"}")));
        results.add(new JobResult(JOB_A, "alice", "k-a", "SUCCEEDED", ATT_A1, json("{\"answer\":\"a\",\"n\":1}")));
    }

    /** Two Kafka sends, both answered; attempt 1 UNKNOWN, resolved FAILED, then its late answer (twice) lost. */
    private void intentB() {
        outcomes.add(new RequestOutcome(requestB, "bob", "k-b", "CREATED", JOB_B));
        outcomes.add(new RequestOutcome(requestBAgain, "bob", "k-b", "REPLAYED", JOB_B));
        jobs.add(new JobRow(JOB_B, "bob", "k-b", "SUCCEEDED", ATT_B2, json("{\"answer\": \"b\"}")));
        attempts.add(new AttemptRow(ATT_B1, JOB_B, 1, "openai", "DISCARDED", t(0), t(1), t(5)));
        attempts.add(new AttemptRow(ATT_B2, JOB_B, 2, "anthropic", "SUCCEEDED", t(5), t(6), t(7)));
        commands.add(new AttemptCommand(ATT_B1, JOB_B));
        commands.add(new AttemptCommand(ATT_B2, JOB_B));
        calls.add(new ProviderCall("openai", ATT_B1, "openai-chat", null));
        calls.add(new ProviderCall("anthropic", ATT_B2, "anthropic-count-tokens", 200));
        calls.add(new ProviderCall("anthropic", ATT_B2, "anthropic-messages", 200));
        completions.add(new Completion(ATT_B1, JOB_B, "UNKNOWN", null));
        completions.add(new Completion(ATT_B2, JOB_B, "SUCCEEDED", json("{\"answer\": \"b\"}")));
        completions.add(new Completion(ATT_B1, JOB_B, "SUCCEEDED", json("{\"answer\": \"late\"}")));
        completions.add(new Completion(ATT_B1, JOB_B, "SUCCEEDED", json("{\"answer\": \"late\"}")));
        raceAudits.add(new RaceAudit(JOB_B, ATT_B2, ATT_B1, "attempt-failed"));
        results.add(new JobResult(JOB_B, "bob", "k-b", "SUCCEEDED", ATT_B2, json("{\"answer\": \"b\"}")));
    }

    /** Cancelled while its attempt was still PENDING: a command, but no call. */
    private void intentC() {
        jobs.add(new JobRow(JOB_C, "alice", "k-c", "CANCELLED", null, null));
        attempts.add(new AttemptRow(ATT_C1, JOB_C, 1, "openai", "CANCELLED", t(0), null, t(3)));
        commands.add(new AttemptCommand(ATT_C1, JOB_C));
        results.add(new JobResult(JOB_C, "alice", "k-c", "CANCELLED", null, null));
    }

    /** Its only provider failed and no fallback is certified: NEEDS_ACTION; the conflicting resend was refused. */
    private void intentD() {
        outcomes.add(new RequestOutcome(requestD, "bob", "k-d", "CREATED", JOB_D));
        outcomes.add(new RequestOutcome(requestDConflict, "bob", "k-d", "CONFLICT", JOB_D));
        jobs.add(new JobRow(JOB_D, "bob", "k-d", "NEEDS_ACTION", null, null));
        attempts.add(new AttemptRow(ATT_D1, JOB_D, 1, "openai", "FAILED", t(0), t(1), t(2)));
        commands.add(new AttemptCommand(ATT_D1, JOB_D));
        calls.add(new ProviderCall("openai", ATT_D1, "openai-chat", 500));
        completions.add(new Completion(ATT_D1, JOB_D, "FAILED", null));
    }

    /** The provider never answered: UNKNOWN, waiting for an operator. */
    private void intentF() {
        jobs.add(new JobRow(JOB_F, "carol", "k-f", "UNKNOWN", null, null));
        attempts.add(new AttemptRow(ATT_F1, JOB_F, 1, "anthropic", "UNKNOWN", t(0), t(1), null));
        commands.add(new AttemptCommand(ATT_F1, JOB_F));
        calls.add(new ProviderCall("anthropic", ATT_F1, "anthropic-messages", null));
        completions.add(new Completion(ATT_F1, JOB_F, "UNKNOWN", null));
    }

    private void poisonAndCertification() {
        outcomes.add(new RequestOutcome(null, null, null, "INVALID", null));
        deadLetters.add(new DeadLetter("poison-1", "the value is not valid JSON (7 bytes)", "job-requests/0/17"));
        calls.add(new ProviderCall("openai", id("certification-call"), "openai-chat", 200));
    }

    Op http(String owner, String key, String fingerprint, String outcome, String jobId, Integer status) {
        Op invoke = new Op(0, nextOp++, Op.INVOKE, "submit", "http", owner, key, fingerprint, null, null, null,
                null);
        return record(invoke, outcome, jobId, status);
    }

    /** A Kafka submit sent with request_id {@code chaos-<op>}. */
    Op kafka(String owner, String key, String fingerprint, String outcome) {
        long op = nextOp++;
        Op invoke = new Op(0, op, Op.INVOKE, "submit", "kafka", owner, key, fingerprint, null, null, "chaos-" + op,
                null);
        return record(invoke, outcome, null, null);
    }

    void poison(String recordKey, String outcome) {
        record(new Op(0, nextOp++, Op.INVOKE, "poison", null, null, recordKey, null, null, null, null, null),
                outcome, null, null);
    }

    void fault(String detail) {
        ops.add(new Op(0, nextOp++, Op.INFO, "fault", null, null, null, null, null, null, null, detail));
    }

    private void operator(String f, String owner, String key, String jobId, String outcome) {
        record(new Op(0, nextOp++, Op.INVOKE, f, null, owner, key, null, jobId, null, null, null), outcome, jobId,
                null);
    }

    private Op record(Op invoke, String outcome, String jobId, Integer status) {
        ops.add(invoke);
        if (outcome != null) {
            ops.add(invoke.outcome(0, outcome, jobId, status, null));
        }
        return invoke;
    }
}
