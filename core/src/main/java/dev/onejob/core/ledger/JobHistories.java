package dev.onejob.core.ledger;

import static dev.onejob.core.ledger.LedgerRows.ATTEMPT_COLUMNS;
import static dev.onejob.core.ledger.LedgerRows.JOB_COLUMNS;

import dev.onejob.core.db.Database;
import dev.onejob.core.ledger.LedgerQueries.JobHistory;
import java.sql.Array;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Reads the histories of jobs (the job, its attempts and the operators' actions on it) that waiting requests and
 * event streams follow ({@link JobTimeline} derives their events from them): three statements however many jobs are
 * asked for, in one snapshot. Read-only; the {@link LedgerQueries} face of the ledger hands them out.
 */
final class JobHistories {
    static final String SELECT_JOBS_BY_IDS = "SELECT " + JOB_COLUMNS + " FROM jobs WHERE id = ANY(?)";
    static final String SELECT_ATTEMPTS_OF_JOBS =
            "SELECT " + ATTEMPT_COLUMNS + " FROM attempts WHERE job_id = ANY(?) ORDER BY job_id, number";
    static final String SELECT_OPERATOR_ACTIONS_OF_JOBS = """
            SELECT job_id, attempt_id, actor, action, reason, created_at FROM operator_actions
            WHERE job_id = ANY(?) ORDER BY job_id, id""";

    private final Database database;

    JobHistories(Database database) {
        this.database = database;
    }

    /** The histories of {@code jobIds} that exist, in three statements however many jobs are asked for. */
    Map<UUID, JobHistory> histories(Collection<UUID> jobIds) {
        if (jobIds.isEmpty()) {
            return Map.of();
        }
        return database.inTransaction(connection -> {
            // One snapshot for all three reads, so an attempt and its job are seen at the same moment.
            LedgerSql.update(connection, "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
            List<UUID> ids = List.copyOf(jobIds);
            Map<UUID, Job> jobs = new LinkedHashMap<>();
            for (Job job : LedgerSql.queryList(connection, SELECT_JOBS_BY_IDS, LedgerRows::job, uuids(connection,
                    ids))) {
                jobs.put(job.id(), job);
            }
            Map<UUID, List<Attempt>> attempts = new HashMap<>();
            for (Attempt a : LedgerSql.queryList(connection, SELECT_ATTEMPTS_OF_JOBS, LedgerRows::attempt,
                    uuids(connection, ids))) {
                attempts.computeIfAbsent(a.jobId(), k -> new ArrayList<>()).add(a);
            }
            Map<UUID, List<OperatorAction>> actions = new HashMap<>();
            for (OperatorAction action : LedgerSql.queryList(connection, SELECT_OPERATOR_ACTIONS_OF_JOBS,
                    row -> new OperatorAction(row.getObject("job_id", UUID.class), row.getObject("attempt_id",
                            UUID.class), row.getString("actor"), row.getString("action"), row.getString("reason"),
                            row.getTimestamp("created_at").toInstant()), uuids(connection, ids))) {
                actions.computeIfAbsent(action.jobId(), k -> new ArrayList<>()).add(action);
            }
            Map<UUID, JobHistory> histories = new HashMap<>();
            jobs.forEach((id, job) -> histories.put(id, new JobHistory(job, attempts.getOrDefault(id, List.of()),
                    actions.getOrDefault(id, List.of()))));
            return histories;
        });
    }

    static Array uuids(Connection connection, List<UUID> ids) throws SQLException {
        return connection.createArrayOf("uuid", ids.toArray());
    }
}
