package dev.onejob.core.ledger;

import static dev.onejob.core.ledger.LedgerRows.ATTEMPT_COLUMNS;
import static dev.onejob.core.ledger.LedgerRows.JOB_COLUMNS;

import dev.onejob.core.db.Database;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * The ledger's read side for people: jobs found by filters, the UNKNOWN queue, lost races, a provider's recent
 * failures, and the histories that waiting requests and event streams follow. Read-only; the {@link Ledger} owns
 * every write. Lists are keyset-paginated ({@link Page#nextCursor}, a {@link PageCursor}), and each query shape has
 * an index (V014), which {@code LedgerQueriesPlanIT} shows on a million jobs. This class runs the lists; the
 * histories come from {@link JobHistories} and the operators' numbers from {@link LedgerStats}.
 */
public final class LedgerQueries {
    private static final String JOB_SUMMARY_COLUMNS =
            "id, owner_id, idempotency_key, status, contract, target_provider, created_at, updated_at, finished_at";
    private static final String ATTEMPTS_WITH_OWNER = "SELECT " + prefixed("a.", ATTEMPT_COLUMNS)
            + ", j.owner_id, j.idempotency_key FROM attempts a JOIN jobs j ON j.id = a.job_id";
    private static final String SELECT_ATTEMPTS_BY_IDS =
            "SELECT " + ATTEMPT_COLUMNS + " FROM attempts WHERE id = ANY(?)";
    /** The most a page holds. */
    public static final int MAX_LIMIT = 500;

    private final Database database;
    private final JobHistories histories;
    private final LedgerStats stats;

    public LedgerQueries(Database database) {
        this.database = database;
        this.histories = new JobHistories(database);
        this.stats = new LedgerStats(database);
    }

    /** A page of a list, and the cursor of the next page (null on the last). */
    public record Page<T>(List<T> items, String nextCursor) {
    }

    /** A job as a list shows it: no request or result, which may be megabytes. */
    public record JobSummary(UUID id, String ownerId, String idempotencyKey, JobStatus status, String contract,
                             String targetProvider, Instant createdAt, Instant updatedAt, Instant finishedAt) {
    }

    /**
     * What to find jobs by; null fields do not filter. {@code ownerId} null means every owner (operators only: the
     * API scopes everyone else to their own).
     */
    public record JobFilter(String ownerId, Set<JobStatus> statuses, String targetProvider, Instant createdAfter,
                            Instant createdBefore, String keyPrefix) {
        public JobFilter {
            statuses = statuses == null ? Set.of() : Set.copyOf(statuses);
        }
    }

    /** An attempt with the owner and idempotency key of its job. */
    public record OwnedAttempt(Attempt attempt, String ownerId, String idempotencyKey) {
    }

    /** A lost race: the discarded attempt, the one that won (null when none did) and the job's owner. */
    public record Race(Attempt loser, Attempt winner, String ownerId) {
    }

    /** A job with everything that happened to it: what its events are derived from. */
    public record JobHistory(Job job, List<Attempt> attempts, List<OperatorAction> actions) {
    }

    /** Jobs matching {@code filter}, newest first. */
    public Page<JobSummary> jobs(JobFilter filter, int limit, String cursor) {
        Statement statement = jobsStatement(filter, limit, cursor);
        List<JobSummary> rows = database.inTransaction(connection ->
                LedgerSql.queryList(connection, statement.sql(), LedgerQueries::summary, statement.args()));
        return PageCursor.page(rows, limit, last -> PageCursor.encode(last.createdAt(), last.id()));
    }

    /** The statement {@link #jobs} runs: fixed fragments for the filters present, every value a bind parameter. */
    Statement jobsStatement(JobFilter filter, int limit, String cursor) {
        StringBuilder sql = new StringBuilder("SELECT " + JOB_SUMMARY_COLUMNS + " FROM jobs WHERE true");
        List<Object> args = new ArrayList<>();
        if (filter.ownerId() != null) {
            sql.append(" AND owner_id = ?");
            args.add(filter.ownerId());
        }
        if (!filter.statuses().isEmpty()) {
            sql.append(" AND status = ANY(?::text[])");
            args.add(filter.statuses().stream().map(Enum::name).sorted().toArray(String[]::new));
        }
        if (filter.targetProvider() != null) {
            sql.append(" AND target_provider = ?");
            args.add(filter.targetProvider());
        }
        if (filter.createdAfter() != null) {
            sql.append(" AND created_at > ?");
            args.add(time(filter.createdAfter()));
        }
        if (filter.createdBefore() != null) {
            sql.append(" AND created_at < ?");
            args.add(time(filter.createdBefore()));
        }
        if (filter.keyPrefix() != null && !filter.keyPrefix().isEmpty()) {
            // Keys are printable ASCII (up to 0x7E), so every key starting with the prefix sorts, byte by byte,
            // from the prefix itself to just below the prefix followed by 0x7F.
            sql.append(" AND idempotency_key COLLATE \"C\" >= ? AND idempotency_key COLLATE \"C\" < ?");
            args.add(filter.keyPrefix());
            args.add(filter.keyPrefix() + '\u007f');
        }
        return paged(sql, args, cursor, "created_at, id", "<", "created_at DESC, id DESC", limit);
    }

    /**
     * Attempts in {@code status} (UNKNOWN or STARTING) for at least {@code olderThan}, oldest first: the queue of
     * what waits for an operator's decision. {@code ownerId} null means every owner.
     */
    public Page<OwnedAttempt> liveAttempts(AttemptStatus status, Duration olderThan, String ownerId, int limit,
                                           String cursor) {
        Statement statement = liveAttemptsStatement(status, olderThan, ownerId, limit, cursor);
        List<OwnedAttempt> rows = database.inTransaction(connection -> LedgerSql.queryList(connection,
                statement.sql(), row -> new OwnedAttempt(LedgerRows.attempt(row), row.getString("owner_id"),
                        row.getString("idempotency_key")), statement.args()));
        return PageCursor.page(rows, limit, last -> PageCursor.encode(since(status, last.attempt()),
                last.attempt().id()));
    }

    Statement liveAttemptsStatement(AttemptStatus status, Duration olderThan, String ownerId, int limit,
                                    String cursor) {
        String column = switch (status) {
            case UNKNOWN -> "unknown_at";
            case STARTING -> "started_at";
            default -> throw new IllegalArgumentException("only UNKNOWN and STARTING attempts wait: " + status);
        };
        // The status is written into the statement, not bound: a generic plan can use a partial index only when
        // its predicate (status = 'UNKNOWN') is in the text. It comes from the switch above, never from a caller.
        StringBuilder sql = new StringBuilder(ATTEMPTS_WITH_OWNER + " WHERE a.status = '" + status.name()
                + "' AND a." + column + " <= ?");
        List<Object> args = new ArrayList<>(List.of(time(Instant.now().minus(olderThan == null ? Duration.ZERO
                : olderThan))));
        if (ownerId != null) {
            sql.append(" AND j.owner_id = ?");
            args.add(ownerId);
        }
        return paged(sql, args, cursor, "a." + column + ", a.id", ">", "a." + column + ", a.id", limit);
    }

    /** Races lost after {@code since}, in the order they were lost; {@code ownerId} null means every owner. */
    public Page<Race> races(Instant since, String ownerId, int limit, String cursor) {
        Statement statement = racesStatement(since, ownerId, limit, cursor);
        return database.inTransaction(connection -> {
            List<Loser> losers = LedgerSql.queryList(connection, statement.sql(), row -> new Loser(
                    LedgerRows.attempt(row), row.getString("owner_id"), row.getObject("completed_by", UUID.class)),
                    statement.args());
            // The winners of the whole page in one statement.
            List<UUID> winnerIds = losers.stream().map(Loser::winner).filter(w -> w != null).distinct().toList();
            Map<UUID, Attempt> winners = new HashMap<>();
            if (!winnerIds.isEmpty()) {
                for (Attempt winner : LedgerSql.queryList(connection, SELECT_ATTEMPTS_BY_IDS, LedgerRows::attempt,
                        JobHistories.uuids(connection, winnerIds))) {
                    winners.put(winner.id(), winner);
                }
            }
            List<Race> races = losers.stream().map(l -> new Race(l.attempt(),
                    l.winner() == null ? null : winners.get(l.winner()), l.ownerId())).toList();
            return PageCursor.page(races, limit, last -> PageCursor.encode(last.loser().updatedAt(),
                    last.loser().id()));
        });
    }

    private record Loser(Attempt attempt, String ownerId, UUID winner) {
    }

    Statement racesStatement(Instant since, String ownerId, int limit, String cursor) {
        StringBuilder sql = new StringBuilder("SELECT " + prefixed("a.", ATTEMPT_COLUMNS)
                + ", j.owner_id, j.completed_by FROM attempts a JOIN jobs j ON j.id = a.job_id"
                + " WHERE a.status = 'DISCARDED' AND a.updated_at > ?");
        List<Object> args = new ArrayList<>(List.of(time(since)));
        if (ownerId != null) {
            sql.append(" AND j.owner_id = ?");
            args.add(ownerId);
        }
        return paged(sql, args, cursor, "a.updated_at, a.id", ">", "a.updated_at, a.id", limit);
    }

    /** A provider's latest failures since {@code since}: of every owner's jobs, or of {@code owner}'s when not null. */
    public List<Attempt> recentFailures(String provider, String owner, Instant since, int limit) {
        return stats.recentFailures(provider, owner, since, limit);
    }

    /** UNKNOWN attempts open now, and how long the oldest has been UNKNOWN. */
    public record UnknownCount(long count, double oldestSeconds) {
    }

    public UnknownCount unknownCount() {
        return stats.unknownCount();
    }

    /** The histories of {@code jobIds} that exist, in three statements however many jobs are asked for. */
    public Map<UUID, JobHistory> histories(Collection<UUID> jobIds) {
        return histories.histories(jobIds);
    }

    public Optional<JobHistory> history(UUID jobId) {
        return Optional.ofNullable(histories(List.of(jobId)).get(jobId));
    }

    /** SQL and its bind values. */
    record Statement(String sql, Object[] args) {
    }

    /** Whether {@code cursor} is one {@link #jobs} and the other lists accept. */
    public static boolean validCursor(String cursor) {
        try {
            PageCursor.decode(cursor);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /**
     * Ends a keyset-paged query: the rows past {@code cursor} by {@code keys} ({@code past} is {@code <} for a
     * descending order, {@code >} for an ascending one), in {@code order}, one more than {@code limit} so that the
     * page knows whether another follows.
     */
    private static Statement paged(StringBuilder sql, List<Object> args, String cursor, String keys, String past,
                                   String order, int limit) {
        Optional<PageCursor> after = PageCursor.decode(cursor);
        if (after.isPresent()) {
            sql.append(" AND (").append(keys).append(") ").append(past).append(" (?, ?)");
            args.add(time(after.get().at()));
            args.add(after.get().id());
        }
        sql.append(" ORDER BY ").append(order).append(" LIMIT ?");
        args.add(limit + 1);
        return new Statement(sql.toString(), args.toArray());
    }

    private static Instant since(AttemptStatus status, Attempt attempt) {
        return status == AttemptStatus.UNKNOWN ? attempt.unknownAt() : attempt.startedAt();
    }

    private static JobSummary summary(ResultSet row) throws SQLException {
        return new JobSummary(row.getObject("id", UUID.class), row.getString("owner_id"),
                row.getString("idempotency_key"), JobStatus.valueOf(row.getString("status")),
                row.getString("contract"), row.getString("target_provider"), LedgerRows.instant(row, "created_at"),
                LedgerRows.instant(row, "updated_at"), LedgerRows.instant(row, "finished_at"));
    }

    static OffsetDateTime time(Instant instant) {
        return instant.atOffset(ZoneOffset.UTC);
    }

    /** {@code columns}, a comma-separated list, each column prefixed with {@code prefix} (a table's alias). */
    static String prefixed(String prefix, String columns) {
        StringBuilder out = new StringBuilder();
        for (String column : columns.split(",")) {
            if (out.length() > 0) {
                out.append(", ");
            }
            out.append(prefix).append(column.strip());
        }
        return out.toString();
    }
}
