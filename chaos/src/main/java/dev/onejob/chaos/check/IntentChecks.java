package dev.onejob.chaos.check;

import dev.onejob.chaos.check.RunRecord.JobRow;
import dev.onejob.chaos.check.RunRecord.RequestOutcome;
import dev.onejob.chaos.check.Submissions.Intent;
import dev.onejob.chaos.check.Submissions.Submission;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The checks about intents: one job per (owner, key), never lost, never invented, every answer naming that job, and
 * a reused key with another payload never accepted. Consumes the history's submits, the {@code jobs} rows and the
 * {@code job-request-outcomes} records; produces anomalies into a {@link CheckReport.Builder}.
 */
final class IntentChecks {
    /** The outcomes that name the job the key stands for. */
    private static final Set<String> NAMING_OUTCOMES = Set.of("CREATED", "REPLAYED", "CONFLICT");
    private static final Set<String> ACCEPTING_OUTCOMES = Set.of("CREATED", "REPLAYED");

    private final Submissions submissions;
    private final CheckReport.Builder report;
    private final Map<Intent, List<JobRow>> jobs = new LinkedHashMap<>();
    /** Each outcome record with the intent it answers: its Kafka submit's if matched by request_id, else its own. */
    private final List<Answer> answers = new ArrayList<>();
    private final Map<String, List<RequestOutcome>> outcomesByRequest = new HashMap<>();

    /** A job-request-outcomes record and the intent it answers. */
    private record Answer(RequestOutcome outcome, Intent intent) {
    }

    private IntentChecks(RunRecord run, Submissions submissions, CheckReport.Builder report) {
        this.submissions = submissions;
        this.report = report;
        run.jobs().forEach(job -> jobs.computeIfAbsent(new Intent(job.ownerId(), job.idempotencyKey()),
                i -> new ArrayList<>()).add(job));
        for (RequestOutcome outcome : run.outcomes()) {
            Submission sent = submissions.byRequestId(outcome.requestId());
            Intent intent = sent != null ? sent.intent()
                    : outcome.ownerId() == null || outcome.idempotencyKey() == null ? null
                    : new Intent(outcome.ownerId(), outcome.idempotencyKey());
            if (intent != null) {
                answers.add(new Answer(outcome, intent));
            }
            if (outcome.requestId() != null) {
                outcomesByRequest.computeIfAbsent(outcome.requestId(), id -> new ArrayList<>()).add(outcome);
            }
        }
    }

    static void check(RunRecord run, Submissions submissions, CheckReport.Builder report) {
        IntentChecks checks = new IntentChecks(run, submissions, report);
        checks.duplicateJobs();
        checks.lostIntents();
        checks.answersNamingOtherJobs();
        checks.acceptedConflicts();
        checks.jobsWithoutSubmission();
    }

    private void duplicateJobs() {
        jobs.forEach((intent, rows) -> {
            if (rows.size() > 1) {
                report.anomaly(AnomalyKind.DUPLICATE_JOB, intent.label(), rows.size() + " jobs: " + ids(rows));
            }
        });
    }

    /**
     * Evidence that an intent was taken: an ok answer to a submit of its original payload (a Kafka ack counts unless
     * ingest answered that very record INVALID), or an outcome record naming its job. Unknowns are no evidence.
     */
    private void lostIntents() {
        Map<Intent, List<String>> evidence = new LinkedHashMap<>();
        for (Submission s : submissions.all()) {
            if (s.ok() && !s.conflicting() && !(s.overKafka() && answeredOnlyInvalid(s.requestId()))) {
                evidence.computeIfAbsent(s.intent(), i -> new ArrayList<>()).add(s.describe());
            }
        }
        answers.forEach(answer -> {
            RequestOutcome outcome = answer.outcome();
            Intent intent = answer.intent();
            if (outcome.jobId() != null && NAMING_OUTCOMES.contains(outcome.outcome())) {
                evidence.computeIfAbsent(intent, i -> new ArrayList<>())
                        .add("job-request-outcomes " + outcome.outcome() + " job " + outcome.jobId());
            }
        });
        evidence.forEach((intent, proofs) -> {
            if (!jobs.containsKey(intent)) {
                report.anomaly(AnomalyKind.LOST_INTENT, intent.label(), "no job row, yet " + proofs.get(0)
                        + (proofs.size() > 1 ? " (and " + (proofs.size() - 1) + " more)" : ""));
            }
        });
    }

    private boolean answeredOnlyInvalid(String requestId) {
        List<RequestOutcome> answers = answersTo(requestId);
        return !answers.isEmpty() && answers.stream().allMatch(o -> "INVALID".equals(o.outcome()));
    }

    /** An intent with no job row is left to {@link #lostIntents()}: "names another job" needs a job to differ from. */
    private void answersNamingOtherJobs() {
        for (Submission s : submissions.all()) {
            List<JobRow> rows = jobs.get(s.intent());
            if (s.jobId() != null && rows != null && !names(rows, s.jobId())) {
                report.anomaly(AnomalyKind.ANSWER_NAMES_OTHER_JOB, s.intent().label(),
                        s.describe() + " named job " + s.jobId() + "; the database has " + ids(rows));
            }
        }
        answers.forEach(answer -> {
            RequestOutcome outcome = answer.outcome();
            Intent intent = answer.intent();
            List<JobRow> rows = jobs.get(intent);
            if (outcome.jobId() != null && rows != null && NAMING_OUTCOMES.contains(outcome.outcome())
                    && !names(rows, outcome.jobId())) {
                report.anomaly(AnomalyKind.ANSWER_NAMES_OTHER_JOB, intent.label(), "job-request-outcomes "
                        + outcome.outcome() + " (request_id " + outcome.requestId() + ") named job "
                        + outcome.jobId() + "; the database has " + ids(rows));
            }
        });
    }

    private void acceptedConflicts() {
        for (Submission s : submissions.all()) {
            if (!s.conflicting()) {
                continue;
            }
            if (s.overHttp() && s.ok()) {
                report.anomaly(AnomalyKind.CONFLICT_ACCEPTED, s.intent().label(),
                        s.describe() + " with fingerprint " + s.fingerprint() + " was accepted");
            }
            if (s.overKafka()) {
                answersTo(s.requestId()).stream().filter(o -> ACCEPTING_OUTCOMES.contains(o.outcome()))
                        .forEach(o -> report.anomaly(AnomalyKind.CONFLICT_ACCEPTED, s.intent().label(),
                                s.describe() + " with fingerprint " + s.fingerprint() + " was answered "
                                        + o.outcome() + " job " + o.jobId()));
            }
        }
    }

    private void jobsWithoutSubmission() {
        jobs.forEach((intent, rows) -> {
            if (!submissions.byIntent().containsKey(intent)) {
                rows.forEach(job -> report.anomaly(AnomalyKind.JOB_WITHOUT_SUBMISSION, intent.label(),
                        "job " + job.id() + " (" + job.status() + ") but no submit of this owner and key"));
            }
        });
    }

    private List<RequestOutcome> answersTo(String requestId) {
        return requestId == null ? List.of() : outcomesByRequest.getOrDefault(requestId, List.of());
    }

    private static boolean names(List<JobRow> rows, String jobId) {
        return rows.stream().anyMatch(job -> job.id().equalsIgnoreCase(jobId));
    }

    private static String ids(List<JobRow> rows) {
        return rows.stream().map(JobRow::id).collect(Collectors.joining(", "));
    }
}
