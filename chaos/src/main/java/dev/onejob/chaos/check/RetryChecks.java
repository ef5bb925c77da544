package dev.onejob.chaos.check;

import dev.onejob.chaos.check.RunRecord.AttemptRow;
import dev.onejob.chaos.check.RunRecord.JobRow;
import dev.onejob.core.config.RetryPolicy;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Retries as attempts: a FAILED job whose last attempt was a definite refusal that ran nothing must have had all the
 * attempts its provider's retry policy allows on that provider ({@link AnomalyKind#FAILED_WITH_RETRIES_LEFT}). The
 * runs write no {@code retry:} section, so every provider has {@link RetryPolicy#DEFAULT}. Counts the retries made.
 */
final class RetryChecks {
    static final String RETRIES = "attempts that retried a refusal on the same provider";
    /** The failure codes of a refusal that ran nothing (the worker marks them {@code retryable}). */
    static final Set<String> REFUSALS = Set.of("http_408", "http_429", "http_503", "http_529", "connection_refused",
            "dns_failure", "connect_timeout", "connection_failed");

    private RetryChecks() {
    }

    private static boolean refused(AttemptRow attempt) {
        return attempt.errorCode() != null && REFUSALS.contains(attempt.errorCode());
    }

    static void check(RunRecord run, CheckReport.Builder report) {
        Map<String, List<AttemptRow>> byJob = new HashMap<>();
        for (AttemptRow attempt : run.attempts()) {
            byJob.computeIfAbsent(attempt.jobId(), id -> new ArrayList<>()).add(attempt);
        }
        long retries = 0;
        for (List<AttemptRow> attempts : byJob.values()) {
            attempts.sort(Comparator.comparingInt(AttemptRow::number));
            for (int i = 1; i < attempts.size(); i++) {
                AttemptRow before = attempts.get(i - 1);
                if (refused(before) && before.provider().equals(attempts.get(i).provider())) {
                    retries++;
                }
            }
        }
        for (JobRow job : run.jobs()) {
            List<AttemptRow> attempts = byJob.getOrDefault(job.id(), List.of());
            if (!"FAILED".equals(job.status()) || attempts.isEmpty()) {
                continue;
            }
            AttemptRow last = attempts.get(attempts.size() - 1);
            long onProvider = attempts.stream().filter(a -> a.provider().equals(last.provider())).count();
            if ("FAILED".equals(last.status()) && refused(last)
                    && RetryPolicy.DEFAULT.allowsAnother((int) onProvider)) {
                report.anomaly(AnomalyKind.FAILED_WITH_RETRIES_LEFT, "job " + job.id(), "its last attempt on "
                        + last.provider() + " was refused (" + last.errorCode() + ") after " + onProvider
                        + " attempt(s) there, and the provider allows " + RetryPolicy.DEFAULT.maxAttempts());
            }
        }
        report.figure(RETRIES, retries);
    }
}
