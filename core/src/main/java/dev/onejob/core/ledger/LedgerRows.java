package dev.onejob.core.ledger;

import dev.onejob.core.billing.Usage;
import dev.onejob.core.contract.FinishReason;
import dev.onejob.core.json.Json;
import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

/** Column lists and row mappers for {@code jobs} and {@code attempts}, shared by the store's statements. */
final class LedgerRows {
    static final String JOB_COLUMNS = """
            id, owner_id, idempotency_key, request_fingerprint, request::text AS request, contract, target_provider,
            fallback_providers, status, version, completed_by, result::text AS result, error_code, error_message,
            created_at, updated_at, finished_at""";
    static final String ATTEMPT_COLUMNS = """
            id, job_id, number, provider, status, job_version, created_at, updated_at, started_at, soft_deadline,
            finished_at, error_code, error_message, retryable, provider_request_id, lost_reason,
            discarded_result_sha256, certification_override, unknown_at, discarded_result_summary,
            abandon_after, input_tokens, output_tokens, cached_input_tokens, cost_usd, start_token, not_before,
            finish_reason""";

    private LedgerRows() {
    }

    static Job job(ResultSet row) throws SQLException {
        String result = row.getString("result");
        Array fallbacks = row.getArray("fallback_providers");
        return new Job(row.getObject("id", UUID.class), row.getString("owner_id"), row.getString("idempotency_key"),
                row.getString("request_fingerprint"), Json.parse(row.getString("request")), row.getString("contract"),
                row.getString("target_provider"), List.copyOf(Arrays.asList((String[]) fallbacks.getArray())),
                JobStatus.valueOf(row.getString("status")), row.getLong("version"),
                row.getObject("completed_by", UUID.class), result == null ? null : Json.parse(result),
                row.getString("error_code"), row.getString("error_message"), instant(row, "created_at"),
                instant(row, "updated_at"), instant(row, "finished_at"));
    }

    static Attempt attempt(ResultSet row) throws SQLException {
        String lostReason = row.getString("lost_reason");
        Boolean retryable = row.getObject("retryable", Boolean.class);
        return new Attempt(row.getObject("id", UUID.class), row.getObject("job_id", UUID.class), row.getInt("number"),
                row.getString("provider"), AttemptStatus.valueOf(row.getString("status")), row.getLong("job_version"),
                instant(row, "created_at"), instant(row, "updated_at"), instant(row, "started_at"),
                instant(row, "soft_deadline"), instant(row, "finished_at"), row.getString("error_code"),
                row.getString("error_message"), retryable,
                row.getString("provider_request_id"),
                lostReason == null ? null : LossReason.fromWireName(lostReason),
                row.getString("discarded_result_sha256"), row.getString("certification_override"),
                instant(row, "unknown_at"), row.getString("discarded_result_summary"),
                instant(row, "abandon_after"), usage(row), row.getBigDecimal("cost_usd"),
                row.getObject("start_token", UUID.class), instant(row, "not_before"),
                FinishReason.fromWire(row.getString("finish_reason")));
    }

    private static Usage usage(ResultSet row) throws SQLException {
        long input = row.getLong("input_tokens");
        return row.wasNull() ? null : new Usage(input, row.getLong("output_tokens"),
                row.getLong("cached_input_tokens"));
    }

    static Instant instant(ResultSet row, String column) throws SQLException {
        Timestamp timestamp = row.getTimestamp(column);
        return timestamp == null ? null : timestamp.toInstant();
    }
}
