package dev.onejob.chaos.check;

import static dev.onejob.chaos.check.CleanRun.ATT_A1;
import static dev.onejob.chaos.check.CleanRun.ATT_B1;
import static dev.onejob.chaos.check.CleanRun.ATT_B2;
import static dev.onejob.chaos.check.CleanRun.ATT_C1;
import static dev.onejob.chaos.check.CleanRun.ATT_F1;
import static dev.onejob.chaos.check.CleanRun.FP_A;
import static dev.onejob.chaos.check.CleanRun.JOB_A;
import static dev.onejob.chaos.check.CleanRun.JOB_C;
import static dev.onejob.chaos.check.CleanRun.JOB_D;
import static dev.onejob.chaos.check.CleanRun.JOB_F;
import static dev.onejob.chaos.check.CleanRun.json;
import static dev.onejob.chaos.check.CleanRun.t;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import java.math.BigDecimal;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class HistoryCheckerTest {

    @Test
    void aCleanRunPassesWithItsFigures() {
        CheckReport report = HistoryChecker.check(new CleanRun().build());

        assertTrue(report.passed(), report::render);
        Map<String, Long> expected = new LinkedHashMap<>();
        expected.put("intents", 6L);
        expected.put("submissions", 11L);
        expected.put("submissions via http", 7L);
        expected.put("submissions via kafka", 4L);
        expected.put("re-submissions", 5L);
        expected.put("conflicting submissions", 2L);
        expected.put("submit outcomes ok", 7L);
        expected.put("submit outcomes fail", 1L);
        expected.put("submit outcomes unknown", 3L);
        expected.put("poison records sent", 1L);
        expected.put("dead letters", 1L);
        expected.put("resolves", 1L);
        expected.put("fallback presses", 1L);
        expected.put("faults injected", 3L);
        expected.put("faults kill-worker", 2L);
        expected.put("faults restart-broker", 1L);
        expected.put("jobs", 5L);
        expected.put("jobs QUEUED", 0L);
        expected.put("jobs RUNNING", 0L);
        expected.put("jobs UNKNOWN", 1L);
        expected.put("jobs NEEDS_ACTION", 1L);
        expected.put("jobs SUCCEEDED", 2L);
        expected.put("jobs FAILED", 0L);
        expected.put("jobs CANCELLED", 1L);
        expected.put("attempts", 6L);
        expected.put("attempts PENDING", 0L);
        expected.put("attempts STARTING", 0L);
        expected.put("attempts UNKNOWN", 1L);
        expected.put("attempts SUCCEEDED", 2L);
        expected.put("attempts FAILED", 1L);
        expected.put("attempts CANCELLED", 1L);
        expected.put("attempts DISCARDED", 1L);
        expected.put("provider calls", 5L);
        expected.put("paid provider calls", 2L);
        expected.put("jobs paid more than once", 0L);
        expected.put("jobs paid twice after a resolve overtook an answer", 0L);
        expected.put("lost races", 1L);
        expected.put("intents awaiting resolution", 2L);
        expected.put(RunFigures.DEAD_LETTERS_REPEATED, 0L);
        expected.put(RunFigures.COMMANDS_REPEATED, 0L);
        expected.put(RetryChecks.RETRIES, 0L);
        expected.put(BillingChecks.BILLED_CALLS, 1L);
        expected.put(BillingChecks.BILLED_MICRO_USD, 21L);
        expected.put(BillingChecks.UNRECORDED_CHARGES, 0L);
        expected.put(BillingChecks.CERTIFICATION_CHARGES, 0L);
        expected.put("anomalies", 0L);
        Map<String, Long> actual = new LinkedHashMap<>();
        report.figures().forEach(f -> actual.put(f.name(), f.value()));
        assertEquals(expected, actual);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("brokenRuns")
    void eachBrokenInvariantIsReportedAsItsOwnKind(String what, AnomalyKind kind, Consumer<CleanRun> breakIt) {
        CleanRun run = new CleanRun();
        breakIt.accept(run);

        CheckReport report = HistoryChecker.check(run.build());

        assertEquals(Set.of(kind), report.counts().keySet(), report::render);
        assertEquals(report.anomalies().size(), report.figure("anomalies"));
    }

    @Test
    void everyAnomalyKindHasABrokenRunThatProducesIt() {
        Set<AnomalyKind> covered = brokenRuns().map(a -> (AnomalyKind) a.get()[1])
                .collect(Collectors.toCollection(() -> EnumSet.noneOf(AnomalyKind.class)));
        assertEquals(EnumSet.allOf(AnomalyKind.class), covered);
    }

    @Test
    void aKafkaSubmitAnsweredInvalidIsNoEvidenceOfAJob() {
        CleanRun run = new CleanRun();
        Op sent = run.kafka("dave", "k-invalid", FP_A, Op.OK);
        run.outcomes.add(new RequestOutcome(sent.requestId(), "dave", "k-invalid", "INVALID", null));

        assertTrue(HistoryChecker.check(run.build()).passed());
    }

    @Test
    void aPoisonSendOfUnknownOutcomeMayBeDeadLetteredOnceOrNever() {
        CleanRun never = new CleanRun();
        never.poison("poison-2", Op.UNKNOWN);
        CleanRun once = new CleanRun();
        once.poison("poison-2", Op.UNKNOWN);
        once.deadLetters.add(new DeadLetter("poison-2", "not JSON"));

        assertTrue(HistoryChecker.check(never.build()).passed());
        assertTrue(HistoryChecker.check(once.build()).passed());
    }

    @Test
    void aCommandRelayedTwiceIsCountedNotAnAnomaly() {
        CleanRun run = new CleanRun();
        run.commands.add(new AttemptCommand(ATT_B2, CleanRun.JOB_B));

        CheckReport report = HistoryChecker.check(run.build());

        assertTrue(report.passed(), report.render());
        assertEquals(1, report.figure(RunFigures.COMMANDS_REPEATED));
    }

    @Test
    void aPoisonRecordRedeliveredAfterACrashIsOneDeadLetterRepeated() {
        CleanRun run = new CleanRun();
        run.deadLetters.add(new DeadLetter("poison-1", "the value is not valid JSON (7 bytes)", "job-requests/0/17"));

        CheckReport report = HistoryChecker.check(run.build());

        assertTrue(report.passed(), report.render());
        assertEquals(1, report.figure(RunFigures.DEAD_LETTERS_REPEATED));
    }

    static Stream<Arguments> brokenRuns() {
        return Stream.of(brokenIntents(), brokenResults(), brokenAttempts()).flatMap(s -> s);
    }

    private static Stream<Arguments> brokenIntents() {
        return Stream.of(
                broken("a second job row for one (owner, key)", AnomalyKind.DUPLICATE_JOB,
                        r -> r.jobs.add(new JobRow(CleanRun.id("job-a2"), "alice", "k-a", "NEEDS_ACTION", null,
                                null))),
                broken("an acknowledged Kafka submit without a job", AnomalyKind.LOST_INTENT,
                        r -> r.kafka("dave", "k-lost", FP_A, Op.OK)),
                broken("an unknown Kafka submit answered CREATED, without a job", AnomalyKind.LOST_INTENT, r -> {
                    Op sent = r.kafka("dave", "k-lost", FP_A, Op.UNKNOWN);
                    r.outcomes.add(new RequestOutcome(sent.requestId(), "dave", "k-lost", "CREATED",
                            CleanRun.id("job-lost")));
                }),
                broken("an HTTP answer naming another job", AnomalyKind.ANSWER_NAMES_OTHER_JOB,
                        r -> r.http("alice", "k-a", FP_A, Op.OK, JOB_C, 200)),
                broken("an outcome record naming another job", AnomalyKind.ANSWER_NAMES_OTHER_JOB,
                        r -> r.outcomes.add(new RequestOutcome(null, "alice", "k-a", "REPLAYED", JOB_D))),
                broken("a conflicting HTTP submit answered 200", AnomalyKind.CONFLICT_ACCEPTED,
                        r -> r.http("alice", "k-a", "9".repeat(64), Op.OK, JOB_A, 200)),
                broken("a conflicting Kafka submit answered REPLAYED", AnomalyKind.CONFLICT_ACCEPTED,
                        r -> replaceOutcome(r, r.requestDConflict, "REPLAYED")),
                broken("a job nobody submitted", AnomalyKind.JOB_WITHOUT_SUBMISSION,
                        r -> r.jobs.add(new JobRow(CleanRun.id("job-z"), "zed", "k-z", "NEEDS_ACTION", null, null))),
                broken("an acknowledged poison record not dead-lettered", AnomalyKind.POISON_NOT_DEAD_LETTERED,
                        r -> r.deadLetters.clear()),
                broken("a dead letter without a reason", AnomalyKind.POISON_NOT_DEAD_LETTERED,
                        r -> r.deadLetters.replaceAll(d -> new DeadLetter(d.key(), ""))),
                broken("a poison record dead-lettered twice", AnomalyKind.POISON_DEAD_LETTERED_TWICE,
                        r -> r.deadLetters.add(new DeadLetter("poison-1", "again", "job-requests/1/3"))));
    }

    private static Stream<Arguments> brokenResults() {
        return Stream.of(
                broken("two job-results records for one job", AnomalyKind.DUPLICATE_RESULT,
                        r -> r.results.add(r.results.get(0))),
                broken("a cancelled job without a job-results record", AnomalyKind.MISSING_RESULT,
                        r -> r.results.removeIf(x -> x.jobId().equals(JOB_C))),
                broken("a job-results record for a NEEDS_ACTION job", AnomalyKind.RESULT_FOR_UNFINISHED_JOB,
                        r -> r.results.add(new JobResult(JOB_D, "bob", "k-d", "FAILED", null, null))),
                broken("a job-results record with another status", AnomalyKind.RESULT_STATUS_DIFFERS,
                        r -> r.results.replaceAll(x -> x.jobId().equals(JOB_C)
                                ? new JobResult(JOB_C, "alice", "k-c", "FAILED", null, null) : x)),
                broken("a published result that is not the winner's", AnomalyKind.RESULT_NOT_WINNERS,
                        r -> r.results.replaceAll(x -> x.jobId().equals(JOB_A)
                                ? new JobResult(JOB_A, "alice", "k-a", "SUCCEEDED", ATT_A1, json("{\"answer\":\"b\"}"))
                                : x)),
                broken("a published result naming another winner", AnomalyKind.RESULT_NOT_WINNERS,
                        r -> r.results.replaceAll(x -> x.jobId().equals(JOB_A)
                                ? new JobResult(JOB_A, "alice", "k-a", "SUCCEEDED", ATT_B2, x.result()) : x)),
                broken("a stored result that is not the winner's", AnomalyKind.RESULT_NOT_WINNERS,
                        r -> r.jobs.replaceAll(j -> j.id().equals(JOB_A)
                                ? new JobRow(JOB_A, "alice", "k-a", "SUCCEEDED", ATT_A1, json("{\"answer\":\"x\"}"))
                                : j)),
                broken("a succeeded job whose winner never completed", AnomalyKind.RESULT_NOT_WINNERS,
                        r -> r.completions.removeIf(c -> c.attemptId().equals(ATT_A1))),
                broken("a discarded result without a race-audit", AnomalyKind.RACE_AUDIT_MISSING,
                        r -> r.raceAudits.clear()),
                broken("a discarded result audited twice", AnomalyKind.RACE_AUDIT_DUPLICATED,
                        r -> r.raceAudits.add(r.raceAudits.get(0))),
                broken("a race-audit naming the winner as loser", AnomalyKind.RACE_AUDIT_NAMES_WINNER,
                        r -> r.raceAudits.add(new RaceAudit(JOB_A, null, ATT_A1, "lost-cas"))));
    }

    private static Stream<Arguments> brokenAttempts() {
        return Stream.of(
                broken("two calls with one attempt id", AnomalyKind.DOUBLE_CALL,
                        r -> r.calls.add(new ProviderCall("anthropic", ATT_A1, "anthropic-messages", 200))),
                broken("a call for an attempt never started", AnomalyKind.CALL_WITHOUT_START,
                        r -> r.calls.add(new ProviderCall("openai", ATT_C1, "openai-chat", 200))),
                broken("an UNKNOWN attempt no provider saw a call for", AnomalyKind.OUTCOME_WITHOUT_CALL,
                        r -> r.calls.removeIf(c -> c.idempotencyKey().equals(CleanRun.ATT_F1))),
                broken("an attempt resolved FAILED out of band that no provider saw", AnomalyKind.OUTCOME_WITHOUT_CALL,
                        r -> {
                            r.calls.removeIf(c -> c.idempotencyKey().equals(CleanRun.ATT_D1));
                            replaceAttempt(r, CleanRun.ATT_D1, a -> new AttemptRow(a.id(), a.jobId(), a.number(),
                                    a.provider(), "FAILED", a.createdAt(), a.startedAt(), a.finishedAt(),
                                    "resolved_failed", "resolved by ops: looked stuck"));
                        }),
                broken("a usable answer sent in time that never became a completion", AnomalyKind.PAID_ANSWER_LOST,
                        r -> answerInTime(r, CleanRun.ATT_F1, ProviderCall.ANSWER)),
                broken("a late answer, before the hard timeout, that never became a completion",
                        AnomalyKind.PAID_ANSWER_LOST, r -> answerInTime(r, CleanRun.ATT_F1, "hang")),
                broken("a long stream that never became a completion", AnomalyKind.PAID_ANSWER_LOST,
                        r -> answerInTime(r, CleanRun.ATT_F1, ProviderCall.PACED)),
                broken("a usable answer, no operator's resolve, and a second paid attempt", AnomalyKind.SECOND_PAID_CALL,
                        r -> {
                            answerInTime(r, CleanRun.ATT_B1, ProviderCall.ANSWER);
                            forgetResolves(r, CleanRun.ATT_B1);
                        }),
                broken("a job FAILED on a 429 while its provider allowed another attempt",
                        AnomalyKind.FAILED_WITH_RETRIES_LEFT, r -> {
                            r.jobs.replaceAll(j -> j.id().equals(CleanRun.JOB_D)
                                    ? new JobRow(CleanRun.JOB_D, "bob", "k-d", "FAILED", null, null) : j);
                            r.results.add(new JobResult(CleanRun.JOB_D, "bob", "k-d", "FAILED", null, null));
                            replaceAttempt(r, CleanRun.ATT_D1, a -> new AttemptRow(a.id(), a.jobId(), a.number(),
                                    a.provider(), "FAILED", a.createdAt(), a.startedAt(), a.finishedAt(), "http_429",
                                    "the provider answered HTTP 429"));
                            r.calls.replaceAll(c -> CleanRun.ATT_D1.equals(c.idempotencyKey())
                                    ? new ProviderCall("openai", CleanRun.ATT_D1, "openai-chat", 429) : c);
                        }),
                broken("a second attempt created before the first finished", AnomalyKind.OVERLAPPING_ATTEMPTS,
                        r -> replaceAttempt(r, ATT_B2, a -> new AttemptRow(a.id(), a.jobId(), a.number(),
                                a.provider(), a.status(), t(4), a.startedAt(), a.finishedAt()))),
                broken("a job still RUNNING", AnomalyKind.STUCK,
                        r -> r.jobs.replaceAll(j -> j.id().equals(JOB_F)
                                ? new JobRow(JOB_F, "carol", "k-f", "RUNNING", null, null) : j)),
                broken("an attempt still PENDING", AnomalyKind.STUCK,
                        r -> replaceAttempt(r, ATT_C1, a -> new AttemptRow(a.id(), a.jobId(), a.number(),
                                a.provider(), "PENDING", a.createdAt(), null, null))),
                broken("a job UNKNOWN without an UNKNOWN attempt", AnomalyKind.STUCK,
                        r -> replaceAttempt(r, ATT_F1, a -> new AttemptRow(a.id(), a.jobId(), a.number(),
                                a.provider(), "FAILED", a.createdAt(), a.startedAt(), t(9)))),
                broken("a started attempt without a command", AnomalyKind.ATTEMPT_COMMAND_MISSING,
                        r -> r.commands.removeIf(c -> c.attemptId().equals(ATT_A1))),
                broken("an unreadable completion", AnomalyKind.UNREADABLE_RECORD,
                        r -> r.unreadable.add("attempt-completions/0/42: 'attempt_id' is missing or not a string")),
                broken("a charge for the winner's request id under no key", AnomalyKind.BILLED_TWICE,
                        r -> chargeA1(r, null, "req-a1")),
                broken("a charge no attempt explains", AnomalyKind.BILLED_WITHOUT_ATTEMPT,
                        r -> chargeA1(r, null, "req-stranger")),
                broken("a charge that differs from the recorded cost", AnomalyKind.BILLED_COST_MISMATCH,
                        r -> r.calls.replaceAll(c -> c.idempotencyKey() != null && c.idempotencyKey()
                                .equals(CleanRun.ATT_A1) ? new ProviderCall(c.simulator(), c.idempotencyKey(),
                                c.protocol(), c.status(), c.behaviour(), c.receivedAt(), "req-a1", A1_USAGE,
                                new BigDecimal("0.5")) : c)),
                broken("usage recorded that no charge shows", AnomalyKind.RECORDED_NOT_BILLED,
                        r -> r.calls.replaceAll(c -> c.idempotencyKey() != null && c.idempotencyKey()
                                .equals(CleanRun.ATT_A1) ? new ProviderCall(c.simulator(), c.idempotencyKey(),
                                c.protocol(), c.status(), c.behaviour(), c.receivedAt()) : c)));
    }

    private static final Usage A1_USAGE = new Usage(100, 10, 0);

    /** A charge on the openai simulator's bill, named by {@code key} and {@code requestId} only. */
    private static void chargeA1(CleanRun run, String key, String requestId) {
        run.calls.add(new ProviderCall("openai", key, "openai-chat", 200, ProviderCall.ANSWER, null, requestId,
                A1_USAGE, new BigDecimal("0.000021")));
    }

    private static Arguments broken(String what, AnomalyKind kind, Consumer<CleanRun> breakIt) {
        return Arguments.of(what, kind, breakIt);
    }

    private static void replaceOutcome(CleanRun run, String requestId, String outcome) {
        run.outcomes.replaceAll(o -> requestId.equals(o.requestId())
                ? new RequestOutcome(o.requestId(), o.ownerId(), o.idempotencyKey(), outcome, o.jobId()) : o);
    }

    private static void replaceAttempt(CleanRun run, String attemptId, UnaryOperator<AttemptRow> change) {
        run.attempts.replaceAll(a -> a.id().equals(attemptId) ? change.apply(a) : a);
    }

    /** The attempt's call answered 200 with {@code behaviour}, in place of what the clean run has. */
    private static void answerInTime(CleanRun run, String attemptId, String behaviour) {
        run.calls.removeIf(c -> c.idempotencyKey().equals(attemptId) && !AttemptChecks.COUNT_TOKENS_PROTOCOL.equals(
                c.protocol()));
        run.calls.add(new ProviderCall("openai", attemptId, "openai-chat", 200, behaviour));
    }

    /** The run without the operator's resolve of {@code attemptId}. */
    private static void forgetResolves(CleanRun run, String attemptId) {
        run.ops.removeIf(op -> "resolve".equals(op.f()) && attemptId.equals(op.key()));
    }

    @Test
    void aSecondPaidCallAfterAnOperatorsResolveIsCountedNotFlagged() {
        // given attempt 1 of job B sent a usable answer in time, and the operator resolved it before it was applied
        CleanRun run = new CleanRun();
        answerInTime(run, CleanRun.ATT_B1, ProviderCall.ANSWER);

        // then the second paid attempt was the operator's call: a figure, not an anomaly
        CheckReport report = HistoryChecker.check(run.build());
        assertTrue(report.passed(), report::render);
        assertEquals(1, report.figure(RunFigures.JOBS_PAID_TWICE));
        assertEquals(1, report.figure(RunFigures.PAID_TWICE_AFTER_A_RESOLVE));
    }

    @Test
    void aSecondPaidCallAfterAnUnusableAnswerOrAWorkerLostWithTheAnswerIsDesignedFailover() {
        // given attempt 1 of job B paid for an answer that broke its contract (no operator involved)
        CleanRun violated = new CleanRun();
        answerInTime(violated, CleanRun.ATT_B1, "drop_field");
        forgetResolves(violated, CleanRun.ATT_B1);
        // and attempt 1 answered in time, but its worker was killed while the attempt was live
        CleanRun killed = new CleanRun();
        answerInTime(killed, CleanRun.ATT_B1, ProviderCall.ANSWER);
        forgetResolves(killed, CleanRun.ATT_B1);
        killed.ops.add(new Op(CleanRun.t(3).toEpochMilli(), 997,
                Op.INFO, "fault", null, null, null, null, null, null, null,
                "kill-worker worker-2 kill -9, started again after 2 s"));
        // and the same with a worker frozen from before the start until after it
        CleanRun frozen = new CleanRun();
        answerInTime(frozen, CleanRun.ATT_B1, ProviderCall.ANSWER);
        forgetResolves(frozen, CleanRun.ATT_B1);
        frozen.ops.add(new Op(CleanRun.t(0).toEpochMilli(), 996,
                Op.INFO, "fault", null, null, null, null, null, null, null,
                "stop-worker worker-1 SIGSTOP for 40 s, then SIGCONT"));

        // then none of them is an anomaly, though each job was paid twice
        for (CleanRun run : List.of(violated, killed, frozen)) {
            CheckReport report = HistoryChecker.check(run.build());
            assertTrue(report.passed(), report::render);
            assertEquals(1, report.figure(RunFigures.JOBS_PAID_TWICE));
        }
    }

    @Test
    void aWorkerKilledAfterAnOperatorsResolveButBeforeTheLateAnswerLosesItExcused() {
        // given attempt 1 of job B, resolved by the operator (finished at 5 s) before its late answer arrived (4 s
        // after the call at 3 s), whose late answer never became a completion, and a worker killed at 6 s
        CleanRun run = new CleanRun();
        run.calls.removeIf(c -> CleanRun.ATT_B1.equals(c.idempotencyKey()));
        run.calls.add(new ProviderCall("openai", CleanRun.ATT_B1, "openai-chat", 200, "hang", CleanRun.t(3)));
        run.completions.removeIf(c -> c.attemptId().equals(CleanRun.ATT_B1) && "SUCCEEDED".equals(c.outcome()));
        run.raceAudits.clear();
        CheckReport alive = HistoryChecker.check(run.build());
        run.ops.add(new Op(CleanRun.t(6).toEpochMilli(), 994,
                Op.INFO, "fault", null, null, null, null, null, null, null,
                "kill-worker worker-1 kill -9, started again after 2 s"));

        // then with no worker lost the answer is lost; with the kill before it came, it died with its worker
        assertTrue(alive.counts().containsKey(AnomalyKind.PAID_ANSWER_LOST), alive::render);
        assertTrue(!HistoryChecker.check(run.build()).counts().containsKey(AnomalyKind.PAID_ANSWER_LOST));
    }

    @Test
    void aPaidAnswerLostWithItsWorkerIsExcused() {
        // given the UNKNOWN attempt of job F was sent a usable answer, and a worker was killed while it was live
        CleanRun run = new CleanRun();
        answerInTime(run, CleanRun.ATT_F1, ProviderCall.ANSWER);
        run.ops.add(new Op(CleanRun.t(30).toEpochMilli(), 995,
                Op.INFO, "fault", null, null, null, null, null, null, null,
                "kill-worker worker-1 kill -9, started again after 2 s"));

        // then its answer was in that worker's memory only
        CheckReport report = HistoryChecker.check(run.build());
        assertTrue(report.passed(), report::render);
    }

    @Test
    void aPaidAnswerDueWhileItsProviderDroppedConnectionsIsExcusedButNotOnAnotherProvider() {
        // given the UNKNOWN attempt of job F (on anthropic) logged 200 at the simulator during an anthropic outage
        CleanRun during = new CleanRun();
        during.calls.removeIf(c -> c.idempotencyKey().equals(CleanRun.ATT_F1));
        during.calls.add(new ProviderCall("anthropic", CleanRun.ATT_F1, "anthropic-messages", 200,
                ProviderCall.ANSWER, CleanRun.t(1)));
        during.ops.add(new Op(CleanRun.t(1).toEpochMilli() - 5_000, 994,
                Op.INFO, "fault", null, null, null, null, null, null, null,
                "provider-outage anthropic refuses connections for 20 s"));
        // and the same during an outage of another provider
        CleanRun elsewhere = new CleanRun();
        elsewhere.calls.removeIf(c -> c.idempotencyKey().equals(CleanRun.ATT_F1));
        elsewhere.calls.add(new ProviderCall("anthropic", CleanRun.ATT_F1, "anthropic-messages", 200,
                ProviderCall.ANSWER, CleanRun.t(1)));
        elsewhere.ops.add(new Op(CleanRun.t(1).toEpochMilli() - 5_000, 994,
                Op.INFO, "fault", null, null, null, null, null, null, null,
                "provider-outage openai refuses connections for 20 s"));

        // then the answer may have been written onto a closing connection in the first case only
        CheckReport excused = HistoryChecker.check(during.build());
        assertTrue(excused.passed(), excused::render);
        assertEquals(Set.of(AnomalyKind.PAID_ANSWER_LOST), HistoryChecker.check(elsewhere.build()).counts().keySet());
    }

    @Test
    void aLongStreamCutByAWorkersSigtermIsExcusedButAPlainAnswerIsNot() {
        // given the attempt of job F sent a long stream, and a plain answer, each while a worker was told to stop
        CleanRun stream = new CleanRun();
        stream.calls.removeIf(c -> c.idempotencyKey().equals(CleanRun.ATT_F1));
        stream.calls.add(new ProviderCall("anthropic", CleanRun.ATT_F1, "anthropic-messages", 200,
                ProviderCall.PACED, CleanRun.t(1)));
        stream.ops.add(new Op(CleanRun.t(1).toEpochMilli() + 20_000, 995,
                Op.INFO, "note", null, null, null, null, null, null, null,
                "worker-2 SIGTERM, left the group"));
        CleanRun plain = new CleanRun();
        plain.calls.removeIf(c -> c.idempotencyKey().equals(CleanRun.ATT_F1));
        plain.calls.add(new ProviderCall("anthropic", CleanRun.ATT_F1, "anthropic-messages", 200,
                ProviderCall.ANSWER, CleanRun.t(1)));
        plain.ops.add(new Op(CleanRun.t(1).toEpochMilli() + 20_000, 995,
                Op.INFO, "note", null, null, null, null, null, null, null,
                "worker-2 SIGTERM, left the group"));

        // then only the stream may have outlasted the worker's drain
        CheckReport excused = HistoryChecker.check(stream.build());
        assertTrue(excused.passed(), excused::render);
        assertEquals(Set.of(AnomalyKind.PAID_ANSWER_LOST), HistoryChecker.check(plain.build()).counts().keySet());
    }

    @Test
    void aLateResultDeliveredTwiceStillNeedsOnlyOneAudit() {
        CleanRun run = new CleanRun();
        run.completions.add(new Completion(ATT_B1, CleanRun.JOB_B, "SUCCEEDED", json("{\"answer\": \"late\"}")));

        assertTrue(HistoryChecker.check(run.build()).passed());
    }

    @Test
    void anAttemptCutOffByAWorkerKilledRightAfterItsStartIsNoPhantom() {
        // given the UNKNOWN attempt without a call, and a worker killed half a second after it started
        CleanRun run = new CleanRun();
        run.calls.removeIf(c -> c.idempotencyKey().equals(CleanRun.ATT_F1));
        run.ops.add(new Op(CleanRun.t(1).toEpochMilli() + 500, 999,
                Op.INFO, "fault", null, null, null, null, null, null, null,
                "kill-worker worker-1 kill -9, started again after 2 s"));

        // then that crash may have come between the start and the call: no anomaly
        CheckReport report = HistoryChecker.check(run.build());
        assertTrue(report.anomalies().stream().noneMatch(a -> a.kind() == AnomalyKind.OUTCOME_WITHOUT_CALL),
                report.anomalies().toString());
    }

    @Test
    void anUnknownAttemptOnAProviderDroppingItsConnectionsIsNoPhantomButOneOnAnotherProviderIs() {
        // given the UNKNOWN attempt (on anthropic) without a call, during an outage of anthropic
        CleanRun during = new CleanRun();
        during.calls.removeIf(c -> c.idempotencyKey().equals(CleanRun.ATT_F1));
        during.ops.add(new Op(CleanRun.t(1).toEpochMilli() - 5_000, 998,
                Op.INFO, "fault", null, null, null, null, null, null, null,
                "provider-outage anthropic refuses connections for 20 s"));
        // and the same during an outage of another provider
        CleanRun elsewhere = new CleanRun();
        elsewhere.calls.removeIf(c -> c.idempotencyKey().equals(CleanRun.ATT_F1));
        elsewhere.ops.add(new Op(CleanRun.t(1).toEpochMilli() - 5_000, 998,
                Op.INFO, "fault", null, null, null, null, null, null, null,
                "provider-outage openai refuses connections for 20 s"));

        // then the request may have gone onto a dropped connection in the first case, not in the second
        assertTrue(HistoryChecker.check(during.build()).anomalies().stream()
                .noneMatch(a -> a.kind() == AnomalyKind.OUTCOME_WITHOUT_CALL));
        assertTrue(HistoryChecker.check(elsewhere.build()).anomalies().stream()
                .anyMatch(a -> a.kind() == AnomalyKind.OUTCOME_WITHOUT_CALL));
    }

    /** Attempt A1's call billed as the ledger recorded it, unless a test changes one side. */
    private static CleanRun billed(String ledgerCost, String charged) {
        CleanRun run = new CleanRun();
        Usage usage = new Usage(100, 10, 0);
        replaceAttempt(run, CleanRun.ATT_A1, a -> new AttemptRow(a.id(), a.jobId(), a.number(), a.provider(),
                a.status(), a.createdAt(), a.startedAt(), a.finishedAt(), null, null, "req-a1",
                ledgerCost == null ? null : usage, ledgerCost == null ? null : new BigDecimal(ledgerCost)));
        run.calls.removeIf(c -> c.idempotencyKey().equals(CleanRun.ATT_A1));
        run.calls.add(new ProviderCall("openai", CleanRun.ATT_A1, "openai-chat", 200, ProviderCall.ANSWER, null,
                "req-a1", charged == null ? null : usage, charged == null ? null : new BigDecimal(charged)));
        return run;
    }

    @Test
    void theProvidersBillIsReconciledWithTheLedger() {
        // a bill that matches, and one whose usage onejob never learnt (a timeout): no anomaly
        CheckReport matching = HistoryChecker.check(billed("0.000021", "0.000021").build());
        assertTrue(matching.passed(), matching::render);
        assertEquals(1, matching.figure(BillingChecks.BILLED_CALLS));
        assertEquals(21, matching.figure(BillingChecks.BILLED_MICRO_USD));
        CheckReport unrecorded = HistoryChecker.check(billed(null, "0.000021").build());
        assertTrue(unrecorded.passed(), unrecorded::render);
        assertEquals(1, unrecorded.figure(BillingChecks.UNRECORDED_CHARGES));

        // a cost that differs, and usage recorded that nobody charged
        assertEquals(Set.of(AnomalyKind.BILLED_COST_MISMATCH),
                HistoryChecker.check(billed("0.000021", "0.000042").build()).counts().keySet());
        assertEquals(Set.of(AnomalyKind.RECORDED_NOT_BILLED),
                HistoryChecker.check(billed("0.000021", null).build()).counts().keySet());

        // a second charge for the attempt, and a charge no started attempt explains
        CleanRun twice = billed("0.000021", "0.000021");
        twice.calls.add(new ProviderCall("openai", CleanRun.ATT_A1, "openai-chat", 200, ProviderCall.ANSWER, null,
                "req-a1-again", new Usage(100, 10, 0), new BigDecimal("0.000021")));
        assertTrue(HistoryChecker.check(twice.build()).counts().containsKey(AnomalyKind.BILLED_TWICE));
        CleanRun stranger = billed("0.000021", "0.000021");
        stranger.calls.add(new ProviderCall("openai", "00000000-0000-4000-8000-0000000000ff", "openai-chat", 200,
                ProviderCall.ANSWER, null, "req-x", new Usage(1, 1, 0),
                new BigDecimal("0.000001")));
        assertTrue(HistoryChecker.check(stranger.build()).counts().containsKey(AnomalyKind.BILLED_WITHOUT_ATTEMPT));
    }
}
