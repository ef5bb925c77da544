package dev.onejob.core.ledger;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;

/**
 * Splits a poll into rounds that each name a job at most once, keeping every job's items in the order they came: the
 * n-th item of each job goes in the n-th round. A set-based statement can then take a round whole (one row per job),
 * and a job's items still apply in turn.
 */
public final class JobRounds {
    private JobRounds() {
    }

    /** The indexes of {@code items}, round by round. */
    public static <T> List<List<Integer>> of(List<T> items, Function<T, UUID> jobId) {
        List<List<Integer>> rounds = new ArrayList<>();
        Map<UUID, Integer> seen = new HashMap<>();
        for (int i = 0; i < items.size(); i++) {
            int round = seen.merge(jobId.apply(items.get(i)), 1, Integer::sum) - 1;
            if (round == rounds.size()) {
                rounds.add(new ArrayList<>());
            }
            rounds.get(round).add(i);
        }
        return rounds;
    }
}
