package dev.onejob.core.ledger;

import static dev.onejob.core.ledger.JobStatus.CANCELLED;
import static dev.onejob.core.ledger.JobStatus.FAILED;
import static dev.onejob.core.ledger.JobStatus.NEEDS_ACTION;
import static dev.onejob.core.ledger.JobStatus.QUEUED;
import static dev.onejob.core.ledger.JobStatus.RUNNING;
import static dev.onejob.core.ledger.JobStatus.SUCCEEDED;
import static dev.onejob.core.ledger.JobStatus.UNKNOWN;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class JobStatusTest {
    static final Set<List<JobStatus>> ALLOWED = Set.of(
            List.of(QUEUED, RUNNING), List.of(QUEUED, CANCELLED), List.of(QUEUED, FAILED),
            List.of(RUNNING, UNKNOWN), List.of(RUNNING, SUCCEEDED), List.of(RUNNING, QUEUED),
            List.of(RUNNING, NEEDS_ACTION), List.of(RUNNING, FAILED), List.of(RUNNING, CANCELLED),
            List.of(UNKNOWN, SUCCEEDED), List.of(UNKNOWN, QUEUED), List.of(UNKNOWN, NEEDS_ACTION),
            List.of(UNKNOWN, FAILED), List.of(UNKNOWN, CANCELLED),
            List.of(NEEDS_ACTION, QUEUED), List.of(NEEDS_ACTION, CANCELLED));

    static Stream<Arguments> everyPair() {
        return TransitionPairs.of(JobStatus.values(), ALLOWED);
    }

    @ParameterizedTest(name = "{0} -> {1} allowed: {2}")
    @MethodSource("everyPair")
    void transitionIsAllowedExactlyWhenTheDesignSaysSo(JobStatus from, JobStatus to, boolean expected) {
        assertEquals(expected, JobStatus.allowed(from, to));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("statuses")
    void finishedJobsNeverMoveAgain(JobStatus status) {
        boolean anyExit = Stream.of(JobStatus.values()).anyMatch(to -> JobStatus.allowed(status, to));
        assertEquals(!status.isFinished(), anyExit);
    }

    static Stream<JobStatus> statuses() {
        return Stream.of(JobStatus.values());
    }
}
