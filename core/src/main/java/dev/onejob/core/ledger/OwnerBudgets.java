package dev.onejob.core.ledger;

import dev.onejob.core.billing.OwnerLimits;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.Date;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

/**
 * Decides, inside the intake's transaction and after its insert, which of a batch's new jobs their owners' limits
 * allow. For the limited owners of the batch it takes each owner's advisory lock (in hash order, so two batches lock
 * in one order), reads what the owner spent this period ({@code usage_daily}) and what its unfinished limited jobs
 * hold ({@code job_reservations}), then walks the new jobs in the order given: a job that would take the owner past
 * its live attempts or its spend cap is refused and its row deleted (it was never visible); an accepted one
 * reserves its bound. Replays never reach here: only jobs this batch created are judged.
 *
 * <p>Owned by {@link JobIntake}.
 */
final class OwnerBudgets {
    /** Advisory-lock class of owner budgets ("oj" + "b"), so onejob's locks never meet another application's. */
    private static final int LOCK_CLASS = 0x6f6a62;
    private static final String LOCK_OWNERS = """
            SELECT pg_advisory_xact_lock(%d, s.h) FROM (
                SELECT DISTINCT hashtext(o) AS h FROM unnest(?::text[]) AS o ORDER BY 1
            ) AS s""".formatted(LOCK_CLASS);
    private static final String SPENT_SINCE = """
            SELECT t.owner_id, coalesce(sum(u.cost_usd), 0) AS spent
            FROM unnest(?::text[], ?::date[]) AS t(owner_id, since)
            LEFT JOIN usage_daily u ON u.owner_id = t.owner_id AND u.day >= t.since
            GROUP BY t.owner_id""";
    private static final String RESERVED = """
            SELECT owner_id, count(*) AS live, coalesce(sum(reserved_usd), 0) AS reserved
            FROM job_reservations WHERE owner_id = ANY (?::text[]) GROUP BY owner_id""";
    private static final String DELETE_REFUSED = "DELETE FROM jobs WHERE id = ANY (?::uuid[])";
    private static final String INSERT_RESERVATIONS = """
            INSERT INTO job_reservations (job_id, owner_id, reserved_usd)
            SELECT * FROM unnest(?::uuid[], ?::text[], ?::numeric[])""";

    private OwnerBudgets() {
    }

    /** One new job of the batch: its row id and what it asked to be judged by. */
    record Candidate(UUID jobId, String ownerId, NewJob.Budget budget) {
    }

    /** The refused jobs by id, with why; accepted limited jobs have their reservations written. */
    static Map<UUID, SubmitOutcome.OverLimit> enforce(Connection connection, List<Candidate> candidates)
            throws SQLException {
        Map<String, NewJob.Budget> owners = new LinkedHashMap<>();
        candidates.forEach(c -> owners.putIfAbsent(c.ownerId(), c.budget()));
        if (owners.isEmpty()) {
            return Map.of();
        }
        Object[] ownerIds = owners.keySet().toArray();
        LedgerSql.queryList(connection, LOCK_OWNERS, row -> null, connection.createArrayOf("text", ownerIds));
        Map<String, BigDecimal> committed = new HashMap<>();
        Object[] since = owners.values().stream().map(b -> Date.valueOf(b.periodStart())).toArray();
        LedgerSql.queryList(connection, SPENT_SINCE, row -> committed.put(row.getString("owner_id"),
                row.getBigDecimal("spent")), connection.createArrayOf("text", ownerIds),
                connection.createArrayOf("date", since));
        Map<String, Long> live = new HashMap<>();
        LedgerSql.queryList(connection, RESERVED, row -> {
            live.put(row.getString("owner_id"), row.getLong("live"));
            return committed.merge(row.getString("owner_id"), row.getBigDecimal("reserved"), BigDecimal::add);
        }, connection.createArrayOf("text", ownerIds));

        Map<UUID, SubmitOutcome.OverLimit> refused = new LinkedHashMap<>();
        List<Candidate> accepted = new ArrayList<>();
        for (Candidate candidate : candidates) {
            OwnerLimits limits = candidate.budget().limits();
            long running = live.getOrDefault(candidate.ownerId(), 0L);
            BigDecimal owed = committed.getOrDefault(candidate.ownerId(), BigDecimal.ZERO);
            BigDecimal reservation = candidate.budget().reservationUsd();
            if (limits.maxLiveAttempts() != null && running + 1 > limits.maxLiveAttempts()) {
                refused.put(candidate.jobId(), new SubmitOutcome.OverLimit(SubmitOutcome.OverLimit.Limit.LIVE_ATTEMPTS,
                        "owner " + candidate.ownerId() + " has " + running + " unfinished job(s), the most its limit"
                                + " allows (max_live_attempts " + limits.maxLiveAttempts() + "); retry when one"
                                + " finishes"));
            } else if (limits.spendCapUsd() != null && owed.add(reservation).compareTo(limits.spendCapUsd()) > 0) {
                refused.put(candidate.jobId(), new SubmitOutcome.OverLimit(SubmitOutcome.OverLimit.Limit.SPEND_CAP,
                        "this job may cost up to " + plain(reservation) + " USD; owner " + candidate.ownerId()
                                + " has spent or reserved " + plain(owed) + " USD of its " + plain(limits.spendCapUsd())
                                + " USD cap for the " + limits.period().name().toLowerCase(Locale.ROOT)
                                + " from " + candidate.budget().periodStart()));
            } else {
                live.put(candidate.ownerId(), running + 1);
                committed.put(candidate.ownerId(), owed.add(reservation));
                accepted.add(candidate);
            }
        }
        if (!refused.isEmpty()) {
            LedgerSql.update(connection, DELETE_REFUSED, connection.createArrayOf("uuid", refused.keySet().toArray()));
        }
        if (!accepted.isEmpty()) {
            LedgerSql.update(connection, INSERT_RESERVATIONS,
                    connection.createArrayOf("uuid", accepted.stream().map(Candidate::jobId).toArray()),
                    connection.createArrayOf("text", accepted.stream().map(Candidate::ownerId).toArray()),
                    connection.createArrayOf("numeric", accepted.stream().map(c -> c.budget().reservationUsd())
                            .toArray()));
        }
        return refused;
    }

    private static String plain(BigDecimal value) {
        return value.stripTrailingZeros().toPlainString();
    }
}
