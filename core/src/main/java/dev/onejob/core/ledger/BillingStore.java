package dev.onejob.core.ledger;

import dev.onejob.core.billing.Usage;
import dev.onejob.core.db.Database;
import dev.onejob.core.db.DatabaseException;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.Date;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns what onejob knows a provider billed: the billing columns of {@code attempts} (model, tokens, cost,
 * {@code billed_at}) and the {@code usage_daily} roll-up. A poll's billed calls are recorded with one statement: the
 * attempts are billed if their claims hold and they were not billed before ({@code billed_at IS NULL}, so a
 * redelivered completion bills nothing twice), and the same statement adds exactly those to the day's roll-up.
 * Read by usage reports ({@link #usage}) and billing reconciliation ({@link #billedAttempts}).
 */
public final class BillingStore {
    private static final Logger log = LoggerFactory.getLogger(BillingStore.class);

    /**
     * Bills each call whose attempt exists, belongs to the job, ran on the provider and was started, once; adds the
     * billed ones to their owner's day. Roll-up rows are written in key order, so two polls lock them in one order.
     */
    static final String BILL_ALL_IF_UNBILLED = """
            WITH call AS (
                SELECT * FROM unnest(?::uuid[], ?::uuid[], ?::text[], ?::text[], ?::bigint[], ?::bigint[],
                                     ?::bigint[], ?::numeric[], ?::uuid[])
                    AS t(attempt_id, job_id, provider, model, input_tokens, output_tokens, cached_input_tokens,
                         cost_usd, start_token)
            ), billed AS (
                UPDATE attempts a SET model = c.model, input_tokens = c.input_tokens, output_tokens = c.output_tokens,
                                      cached_input_tokens = c.cached_input_tokens, cost_usd = c.cost_usd,
                                      billed_at = now()
                FROM call c
                WHERE a.id = c.attempt_id AND a.job_id = c.job_id AND a.provider = c.provider
                  AND a.status <> 'PENDING' AND a.billed_at IS NULL
                  AND (c.start_token IS NULL OR c.start_token = a.start_token)
                RETURNING a.id, a.job_id, a.provider, a.model, a.input_tokens, a.output_tokens, a.cached_input_tokens,
                          a.cost_usd, a.billed_at
            ), rolled AS (
                INSERT INTO usage_daily AS u (owner_id, day, provider, model, calls, input_tokens, output_tokens,
                                              cached_input_tokens, cost_usd, unpriced_calls)
                SELECT j.owner_id, (b.billed_at AT TIME ZONE 'UTC')::date, b.provider, coalesce(b.model, ''), count(*),
                       sum(b.input_tokens), sum(b.output_tokens), sum(b.cached_input_tokens),
                       coalesce(sum(b.cost_usd), 0), count(*) FILTER (WHERE b.cost_usd IS NULL)
                FROM billed b JOIN jobs j ON j.id = b.job_id
                GROUP BY 1, 2, 3, 4
                ORDER BY 1, 2, 3, 4
                ON CONFLICT (owner_id, day, provider, model) DO UPDATE
                    SET calls = u.calls + excluded.calls, input_tokens = u.input_tokens + excluded.input_tokens,
                        output_tokens = u.output_tokens + excluded.output_tokens,
                        cached_input_tokens = u.cached_input_tokens + excluded.cached_input_tokens,
                        cost_usd = u.cost_usd + excluded.cost_usd, unpriced_calls = u.unpriced_calls + excluded.unpriced_calls
            )
            SELECT id FROM billed""";
    private static final String SELECT_BILLED_ATTEMPTS = """
            SELECT a.id, a.job_id, a.provider, a.model, a.status, a.provider_request_id, a.input_tokens,
                   a.output_tokens, a.cached_input_tokens, a.cost_usd, a.billed_at, a.started_at
            FROM attempts a
            WHERE a.provider = ? AND a.status <> 'PENDING'
              AND coalesce(a.billed_at, a.started_at) >= ? AND coalesce(a.billed_at, a.started_at) < ?
            ORDER BY a.started_at, a.id""";

    private final Database database;

    public BillingStore(Database database) {
        this.database = database;
    }

    /**
     * Records what each call was billed, once per attempt; the attempts billed now (not before, claims held). A set
     * PostgreSQL refuses for its data is recorded one call at a time, so one bad call cannot lose the others' usage.
     */
    public List<UUID> recordAll(List<BilledCall> calls) {
        if (calls.isEmpty()) {
            return List.of();
        }
        Map<UUID, BilledCall> byAttempt = new LinkedHashMap<>();
        calls.forEach(call -> byAttempt.putIfAbsent(call.attemptId(), call));
        List<BilledCall> distinct = List.copyOf(byAttempt.values());
        try {
            return database.inTransaction(connection -> bill(connection, distinct));
        } catch (DatabaseException e) {
            if (!DatabaseException.isDataRefusal(e) || distinct.size() == 1) {
                throw e;
            }
        }
        List<UUID> billed = new ArrayList<>();
        for (BilledCall call : distinct) {
            try {
                billed.addAll(database.inTransaction(connection -> bill(connection, List.of(call))));
            } catch (DatabaseException e) {
                if (!DatabaseException.isDataRefusal(e)) {
                    throw e;
                }
                log.error("event=usage_refused attempt={} reason=\"{}\"", call.attemptId(), e.getMessage());
            }
        }
        return billed;
    }

    static List<UUID> bill(Connection connection, List<BilledCall> calls) throws SQLException {
        int n = calls.size();
        Object[] attempts = new Object[n];
        Object[] jobs = new Object[n];
        Object[] providers = new Object[n];
        Object[] models = new Object[n];
        Object[] input = new Object[n];
        Object[] output = new Object[n];
        Object[] cached = new Object[n];
        Object[] cost = new Object[n];
        Object[] tokens = new Object[n];
        for (int i = 0; i < n; i++) {
            BilledCall call = calls.get(i);
            attempts[i] = call.attemptId();
            jobs[i] = call.jobId();
            providers[i] = call.provider();
            models[i] = call.model();
            input[i] = call.usage().inputTokens();
            output[i] = call.usage().outputTokens();
            cached[i] = call.usage().cachedInputTokens();
            cost[i] = call.costUsd();
            tokens[i] = call.startToken();
        }
        return LedgerSql.queryList(connection, BILL_ALL_IF_UNBILLED, row -> row.getObject("id", UUID.class),
                connection.createArrayOf("uuid", attempts), connection.createArrayOf("uuid", jobs),
                connection.createArrayOf("text", providers), connection.createArrayOf("text", models),
                connection.createArrayOf("bigint", input), connection.createArrayOf("bigint", output),
                connection.createArrayOf("bigint", cached), connection.createArrayOf("numeric", cost),
                connection.createArrayOf("uuid", tokens));
    }

    /** What the ledger says about one provider's calls: every started attempt, billed or not. */
    public record BilledAttempt(UUID attemptId, UUID jobId, String provider, String model, AttemptStatus status,
                                String providerRequestId, Usage usage, BigDecimal costUsd) {
    }

    /**
     * Every attempt of {@code provider} that was started (so may have been billed), billed or started in
     * [{@code from}, {@code to}) UTC days. A sequential scan of {@code attempts}: reconciliation is a batch job, and
     * an index on {@code billed_at} would cost every billed attempt its HOT update.
     */
    public List<BilledAttempt> billedAttempts(String provider, LocalDate from, LocalDate to) {
        return database.inTransaction(connection -> LedgerSql.queryList(connection, SELECT_BILLED_ATTEMPTS, row -> {
            long input = row.getLong("input_tokens");
            boolean billed = !row.wasNull();
            return new BilledAttempt(row.getObject("id", UUID.class), row.getObject("job_id", UUID.class),
                    row.getString("provider"), row.getString("model"), AttemptStatus.valueOf(row.getString("status")),
                    row.getString("provider_request_id"), billed ? new Usage(input, row.getLong("output_tokens"),
                    row.getLong("cached_input_tokens")) : null, row.getBigDecimal("cost_usd"));
        }, provider, Timestamp.from(from.atStartOfDay(ZoneOffset.UTC).toInstant()),
                Timestamp.from(to.atStartOfDay(ZoneOffset.UTC).toInstant())));
    }

    /** The dimensions a usage report can be grouped by, with their {@code usage_daily} columns. */
    public enum GroupBy {
        OWNER("owner_id"), PROVIDER("provider"), MODEL("model"), DAY("day");

        final String column;

        GroupBy(String column) {
            this.column = column;
        }

        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** One row of a usage report: the group's values (by {@link GroupBy}, in the order asked) and its sums. */
    public record UsageRow(Map<GroupBy, String> group, long calls, long inputTokens, long outputTokens,
                           long cachedInputTokens, BigDecimal costUsd, long unpricedCalls) {
    }

    /**
     * Usage billed on UTC days [{@code from}, {@code to}), of one owner ({@code ownerId}) or of every owner (null),
     * summed per distinct value of {@code groupBy} (no grouping = one total row), in group order. Reads the roll-up
     * only: as fast on ten million jobs as on ten.
     */
    public List<UsageRow> usage(String ownerId, LocalDate from, LocalDate to, List<GroupBy> groupBy) {
        String columns = groupBy.stream().map(g -> g.column + "::text AS " + g.column).reduce((a, b) -> a + ", " + b)
                .map(c -> c + ", ").orElse("");
        String grouping = groupBy.isEmpty() ? "" : " GROUP BY " + String.join(", ",
                groupBy.stream().map(g -> g.column).toList()) + " ORDER BY " + String.join(", ",
                groupBy.stream().map(g -> g.column).toList());
        String sql = "SELECT " + columns + """
                coalesce(sum(calls), 0) AS calls, coalesce(sum(input_tokens), 0) AS input_tokens,
                coalesce(sum(output_tokens), 0) AS output_tokens,
                coalesce(sum(cached_input_tokens), 0) AS cached_input_tokens, coalesce(sum(cost_usd), 0) AS cost_usd,
                coalesce(sum(unpriced_calls), 0) AS unpriced_calls
                FROM usage_daily WHERE day >= ? AND day < ? AND (?::text IS NULL OR owner_id = ?::text)""" + grouping;
        return database.inTransaction(connection -> LedgerSql.queryList(connection, sql, row -> {
            Map<GroupBy, String> group = new LinkedHashMap<>();
            for (GroupBy g : groupBy) {
                group.put(g, row.getString(g.column));
            }
            return new UsageRow(group, row.getLong("calls"), row.getLong("input_tokens"), row.getLong("output_tokens"),
                    row.getLong("cached_input_tokens"), row.getBigDecimal("cost_usd"), row.getLong("unpriced_calls"));
        }, Date.valueOf(from), Date.valueOf(to), ownerId, ownerId));
    }

    /** What {@code ownerId} was billed on UTC days [{@code from}, {@code to}), in US dollars. */
    public BigDecimal spent(String ownerId, LocalDate from, LocalDate to) {
        return usage(ownerId, from, to, List.of()).get(0).costUsd();
    }
}
