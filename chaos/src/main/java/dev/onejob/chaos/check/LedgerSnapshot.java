package dev.onejob.chaos.check;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.chaos.check.RunRecord.AttemptRow;
import dev.onejob.chaos.check.RunRecord.JobRow;
import dev.onejob.core.billing.Usage;
import dev.onejob.core.json.Json;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code jobs} and {@code attempts} rows as one consistent snapshot (one read-only repeatable-read transaction),
 * read with plain JDBC. Consumes a connection it does not close; produces {@link JobRow}s and {@link AttemptRow}s.
 */
record LedgerSnapshot(List<JobRow> jobs, List<AttemptRow> attempts) {
    private static final String SELECT_JOBS = """
            SELECT id, owner_id, idempotency_key, status, completed_by, result::text AS result
            FROM jobs ORDER BY created_at, id""";
    private static final String SELECT_ATTEMPTS = """
            SELECT id, job_id, number, provider, status, created_at, started_at, finished_at, error_code, error_message,
                   provider_request_id, input_tokens, output_tokens, cached_input_tokens, cost_usd
            FROM attempts ORDER BY job_id, number""";

    static LedgerSnapshot read(Connection connection) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        int isolation = connection.getTransactionIsolation();
        connection.setAutoCommit(false);
        connection.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        connection.setReadOnly(true);
        try {
            LedgerSnapshot snapshot = new LedgerSnapshot(jobs(connection), attempts(connection));
            connection.commit();
            return snapshot;
        } catch (SQLException | RuntimeException e) {
            connection.rollback();
            throw e;
        } finally {
            connection.setReadOnly(false);
            connection.setTransactionIsolation(isolation);
            connection.setAutoCommit(autoCommit);
        }
    }

    private static List<JobRow> jobs(Connection connection) throws SQLException {
        List<JobRow> jobs = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(SELECT_JOBS);
             ResultSet row = select.executeQuery()) {
            while (row.next()) {
                String result = row.getString("result");
                JsonNode json = result == null ? null : Json.parse(result);
                jobs.add(new JobRow(row.getString("id"), row.getString("owner_id"), row.getString("idempotency_key"),
                        row.getString("status"), row.getString("completed_by"), json));
            }
        }
        return jobs;
    }

    private static List<AttemptRow> attempts(Connection connection) throws SQLException {
        List<AttemptRow> attempts = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(SELECT_ATTEMPTS);
             ResultSet row = select.executeQuery()) {
            while (row.next()) {
                attempts.add(new AttemptRow(row.getString("id"), row.getString("job_id"), row.getInt("number"),
                        row.getString("provider"), row.getString("status"), instant(row, "created_at"),
                        instant(row, "started_at"), instant(row, "finished_at"), row.getString("error_code"),
                        row.getString("error_message"), row.getString("provider_request_id"), usage(row),
                        row.getBigDecimal("cost_usd")));
            }
        }
        return attempts;
    }

    private static Usage usage(ResultSet row) throws SQLException {
        long input = row.getLong("input_tokens");
        return row.wasNull() ? null : new Usage(input, row.getLong("output_tokens"),
                row.getLong("cached_input_tokens"));
    }

    private static Instant instant(ResultSet row, String column) throws SQLException {
        OffsetDateTime time = row.getObject(column, OffsetDateTime.class);
        return time == null ? null : time.toInstant();
    }
}
