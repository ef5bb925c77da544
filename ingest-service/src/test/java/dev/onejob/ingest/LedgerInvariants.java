package dev.onejob.ingest;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.sql.DataSource;

/**
 * Counts of rows that no sequence of requests may leave behind, over the whole ledger: each must be 0. A job
 * without its first attempt, attempt numbers that do not run 1, 2, 3 ... without gaps, or a PENDING attempt of a
 * live job whose command never reached the outbox would each be a half-written change.
 */
final class LedgerInvariants {
    private static final Map<String, String> COUNTS = new LinkedHashMap<>();

    static {
        COUNTS.put("jobs without an attempt", """
                SELECT count(*) FROM jobs j WHERE NOT EXISTS (SELECT 1 FROM attempts a WHERE a.job_id = j.id)""");
        COUNTS.put("jobs whose attempt numbers are not 1..n without gaps", """
                SELECT count(*) FROM (
                    SELECT job_id FROM attempts GROUP BY job_id
                    HAVING min(number) <> 1 OR max(number) <> count(*) OR count(DISTINCT number) <> count(*)) s""");
        COUNTS.put("PENDING attempts of QUEUED/RUNNING jobs without an attempt-commands outbox row", """
                SELECT count(*) FROM attempts a JOIN jobs j ON j.id = a.job_id
                WHERE a.status = 'PENDING' AND j.status IN ('QUEUED', 'RUNNING')
                  AND NOT EXISTS (SELECT 1 FROM outbox o
                                  WHERE o.topic = 'attempt-commands' AND o.dedupe_key = a.id::text)""");
        COUNTS.put("jobs with more than one live attempt", """
                SELECT count(*) FROM (
                    SELECT job_id FROM attempts WHERE status IN ('PENDING', 'STARTING', 'UNKNOWN')
                    GROUP BY job_id HAVING count(*) > 1) s""");
    }

    private LedgerInvariants() {
    }

    /** Each rule with the number of rows that break it. */
    static Map<String, Long> count(DataSource dataSource) {
        try (Connection connection = dataSource.getConnection()) {
            return count(connection);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot count the ledger's invariants: " + e.getMessage(), e);
        }
    }

    /** The same, as {@code connection} sees the ledger (inside its transaction, if it has one). */
    static Map<String, Long> count(Connection connection) throws SQLException {
        Map<String, Long> broken = new LinkedHashMap<>();
        try (Statement statement = connection.createStatement()) {
            for (Map.Entry<String, String> rule : COUNTS.entrySet()) {
                try (ResultSet rows = statement.executeQuery(rule.getValue())) {
                    rows.next();
                    broken.put(rule.getKey(), rows.getLong(1));
                }
            }
        }
        return broken;
    }

    /** The same map with every count 0, to compare against. */
    static Map<String, Long> none() {
        Map<String, Long> zero = new LinkedHashMap<>();
        COUNTS.keySet().forEach(rule -> zero.put(rule, 0L));
        return zero;
    }
}
