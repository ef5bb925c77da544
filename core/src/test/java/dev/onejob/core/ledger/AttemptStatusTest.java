package dev.onejob.core.ledger;

import static dev.onejob.core.ledger.AttemptStatus.CANCELLED;
import static dev.onejob.core.ledger.AttemptStatus.DISCARDED;
import static dev.onejob.core.ledger.AttemptStatus.FAILED;
import static dev.onejob.core.ledger.AttemptStatus.PENDING;
import static dev.onejob.core.ledger.AttemptStatus.STARTING;
import static dev.onejob.core.ledger.AttemptStatus.SUCCEEDED;
import static dev.onejob.core.ledger.AttemptStatus.UNKNOWN;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class AttemptStatusTest {
    /** The design, written out independently of the code under test. */
    static final Set<List<AttemptStatus>> ALLOWED = Set.of(
            List.of(PENDING, STARTING), List.of(PENDING, CANCELLED), List.of(PENDING, FAILED),
            List.of(STARTING, SUCCEEDED), List.of(STARTING, FAILED), List.of(STARTING, UNKNOWN),
            List.of(STARTING, CANCELLED), List.of(STARTING, DISCARDED),
            List.of(UNKNOWN, SUCCEEDED), List.of(UNKNOWN, FAILED), List.of(UNKNOWN, CANCELLED),
            List.of(UNKNOWN, DISCARDED),
            List.of(CANCELLED, DISCARDED), List.of(FAILED, DISCARDED));

    static Stream<Arguments> everyPair() {
        return TransitionPairs.of(AttemptStatus.values(), ALLOWED);
    }

    @ParameterizedTest(name = "{0} -> {1} allowed: {2}")
    @MethodSource("everyPair")
    void transitionIsAllowedExactlyWhenTheDesignSaysSo(AttemptStatus from, AttemptStatus to, boolean expected) {
        assertEquals(expected, AttemptStatus.allowed(from, to));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("statuses")
    void onlyPendingStartingAndUnknownAreLive(AttemptStatus status) {
        assertEquals(Set.of(PENDING, STARTING, UNKNOWN).contains(status), status.isLive());
    }

    static Stream<AttemptStatus> statuses() {
        return Stream.of(AttemptStatus.values());
    }
}
