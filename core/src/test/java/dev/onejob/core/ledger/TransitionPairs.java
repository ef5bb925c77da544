package dev.onejob.core.ledger;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/** Every (from, to) pair of a status enum, each with whether the design, written out in the test, allows it. */
final class TransitionPairs {
    private TransitionPairs() {
    }

    static <S extends Enum<S>> Stream<Arguments> of(S[] statuses, Set<List<S>> allowed) {
        List<Arguments> pairs = new ArrayList<>();
        for (S from : statuses) {
            for (S to : statuses) {
                pairs.add(Arguments.of(from, to, allowed.contains(List.of(from, to))));
            }
        }
        return pairs.stream();
    }
}
