package dev.onejob.core.ledger;

import static dev.onejob.core.ledger.LedgerRows.ATTEMPT_COLUMNS;

import dev.onejob.core.db.Database;
import dev.onejob.core.ledger.LedgerQueries.UnknownCount;
import java.time.Instant;
import java.util.List;

/**
 * The ledger's numbers for operators' views: how many attempts are UNKNOWN now and for how long the oldest has been,
 * and a provider's latest failures (a provider's health). Read-only; the {@link LedgerQueries} face of the ledger
 * hands them out.
 */
final class LedgerStats {
    static final String SELECT_RECENT_FAILURES = "SELECT " + ATTEMPT_COLUMNS + """
             FROM attempts WHERE status = 'FAILED' AND provider = ? AND finished_at > ?
            ORDER BY finished_at DESC LIMIT ?""";
    static final String SELECT_OWNERS_RECENT_FAILURES = "SELECT " + LedgerQueries.prefixed("a.", ATTEMPT_COLUMNS)
            + """
             FROM attempts a JOIN jobs j ON j.id = a.job_id
            WHERE a.status = 'FAILED' AND a.provider = ? AND a.finished_at > ? AND j.owner_id = ?
            ORDER BY a.finished_at DESC LIMIT ?""";
    static final String COUNT_UNKNOWN = """
            SELECT count(*), coalesce(extract(epoch FROM now() - min(unknown_at)), 0)
            FROM attempts WHERE status = 'UNKNOWN'""";

    private final Database database;

    LedgerStats(Database database) {
        this.database = database;
    }

    /** A provider's latest failures since {@code since}: of every owner's jobs, or of {@code owner}'s when not null. */
    List<Attempt> recentFailures(String provider, String owner, Instant since, int limit) {
        return database.inTransaction(connection -> owner == null
                ? LedgerSql.queryList(connection, SELECT_RECENT_FAILURES, LedgerRows::attempt, provider,
                        LedgerQueries.time(since), limit)
                : LedgerSql.queryList(connection, SELECT_OWNERS_RECENT_FAILURES, LedgerRows::attempt, provider,
                        LedgerQueries.time(since), owner, limit));
    }

    /** UNKNOWN attempts open now, and how long the oldest has been UNKNOWN. */
    UnknownCount unknownCount() {
        return database.inTransaction(connection -> LedgerSql.queryOne(connection, COUNT_UNKNOWN,
                row -> new UnknownCount(row.getLong(1), row.getDouble(2))).orElseThrow());
    }
}
