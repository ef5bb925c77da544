package dev.onejob.core.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.config.RetryPolicy;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Definite refusals become new attempts on the same provider, after a backoff the ledger keeps; then failover. */
class RetryIT {
    private final LedgerFixture ledger = new LedgerFixture();
    private static final RetryPolicy TWO_TRIES = new RetryPolicy(2, Duration.ofSeconds(30), Duration.ofMinutes(5));

    /** Every provider certified; primary and backup retried as {@code policy} says. */
    private static ProviderGate gate(RetryPolicy policy) {
        return new ProviderGate() {
            @Override
            public boolean mayFailOverTo(Job job, String provider) {
                return true;
            }

            @Override
            public RetryPolicy retryPolicy(String provider) {
                return policy;
            }
        };
    }

    private Attempt started(Attempt attempt) {
        assertInstanceOf(TransitionOutcome.Applied.class, ledger.store.starts().start(attempt.id(), LedgerFixture.SOFT_TIMEOUT));
        return attempt;
    }

    private static AttemptFailure rateLimited(Duration hint) {
        return new AttemptFailure("http_429", "the provider answered HTTP 429", true, null, false, hint);
    }

    @Test
    void aRefusalIsRetriedOnTheSameProviderAndTheRetryWaitsInTheOutbox() {
        // given a started attempt on primary
        Attempt first = started(ledger.submitted("owner-retry").firstAttempt());

        // when primary refuses it with 429 and asks for 30 s
        FailureOutcome outcome = ledger.store.failures().fail(first.id(), rateLimited(Duration.ofSeconds(30)), gate(TWO_TRIES));

        // then a second attempt on primary waits 30 s (and at most a second of jitter), its command held back
        FailureOutcome.RetryScheduled retry = assertInstanceOf(FailureOutcome.RetryScheduled.class, outcome);
        Attempt next = retry.next();
        assertEquals("primary", next.provider());
        assertEquals(2, next.number());
        assertTrue(retry.backoff().compareTo(Duration.ofSeconds(30)) >= 0
                && retry.backoff().compareTo(Duration.ofSeconds(31)) <= 0, retry.backoff().toString());
        assertNotNull(next.notBefore());
        assertEquals(JobStatus.QUEUED, ledger.store.lookups().job(first.jobId()).orElseThrow().status());
        assertEquals(1, ledger.count("SELECT count(*) FROM outbox WHERE topic = 'attempt-commands' AND dedupe_key = ?"
                + " AND not_before > now() + interval '29 seconds'", next.id().toString()));
        assertEquals(0, ledger.count("SELECT count(*) FROM outbox WHERE topic = 'attempt-commands' AND dedupe_key = ?"
                + " AND (not_before IS NULL OR not_before <= now())", next.id().toString()), "not due yet");
    }

    @Test
    void afterItsAttemptsOnTheProviderTheJobFailsOverAndAfterTheLastFallbackItFails() {
        // given two tries on each provider
        Attempt first = started(ledger.submitted("owner-retry").firstAttempt());
        Attempt second = started(assertInstanceOf(FailureOutcome.RetryScheduled.class,
                ledger.store.failures().fail(first.id(), rateLimited(null), gate(TWO_TRIES))).next());

        // when primary refuses the second too, then backup refuses twice
        Attempt onBackup = started(assertInstanceOf(FailureOutcome.FailedOver.class,
                ledger.store.failures().fail(second.id(), rateLimited(null), gate(TWO_TRIES))).next());
        Attempt backupAgain = started(assertInstanceOf(FailureOutcome.RetryScheduled.class,
                ledger.store.failures().fail(onBackup.id(), rateLimited(null), gate(TWO_TRIES))).next());
        FailureOutcome last = ledger.store.failures().fail(backupAgain.id(), rateLimited(null), gate(TWO_TRIES));

        // then the failover came without a wait, and only after every try the job is FAILED, with four attempts
        assertEquals("backup", onBackup.provider());
        assertNull(onBackup.notBefore(), "failover does not wait");
        assertEquals("backup", backupAgain.provider());
        assertInstanceOf(FailureOutcome.JobFailed.class, last);
        assertEquals(JobStatus.FAILED, ledger.store.lookups().job(first.jobId()).orElseThrow().status());
        assertEquals(4, ledger.store.lookups().attempts(first.jobId()).size());
    }

    @Test
    void aFailureThatRanTheCallIsNotRetriedOnTheSameProvider() {
        Attempt first = started(ledger.submitted("owner-retry").firstAttempt());

        FailureOutcome outcome = ledger.store.failures().fail(first.id(), new AttemptFailure("http_500", "the provider answered"
                + " HTTP 500", false), gate(TWO_TRIES));

        assertEquals("backup", assertInstanceOf(FailureOutcome.FailedOver.class, outcome).next().provider());
    }

    @Test
    void anAnswerTooLargeFailsTheJobWithoutFailover() {
        Attempt first = started(ledger.submitted("owner-retry").firstAttempt());

        FailureOutcome outcome = ledger.store.failures().fail(first.id(), new AttemptFailure(AttemptFailure.ANSWER_TOO_LARGE,
                "the provider's answer is 20000000 characters", false), gate(TWO_TRIES));

        assertInstanceOf(FailureOutcome.JobFailed.class, outcome);
        Job job = ledger.store.lookups().job(first.jobId()).orElseThrow();
        assertEquals(AttemptFailure.ANSWER_TOO_LARGE, job.errorCode());
        assertTrue(job.errorMessage().contains("no fallback is tried"), job.errorMessage());
        assertEquals(1, ledger.store.lookups().attempts(first.jobId()).size());
    }

    @Test
    void anOperatorsResolutionIsNeverRetried() {
        Attempt first = started(ledger.submitted("owner-retry").firstAttempt());
        ledger.store.starts().markUnknown(first.id());

        FailureOutcome outcome = ledger.store.interventions().resolveFailed(first.id(), OperatorAction.of("ops",
                OperatorAction.RESOLVE_FAILED, "the provider lost it"), gate(TWO_TRIES));

        assertEquals(Optional.of("backup"), Optional.of(assertInstanceOf(FailureOutcome.FailedOver.class, outcome)
                .next().provider()));
    }
}
