package dev.onejob.core.certification;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.onejob.core.db.Database;
import dev.onejob.core.db.Statements;
import dev.onejob.core.json.Json;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Owns every SQL statement on {@code certifications}. The table is history: a run is inserted once and never
 * updated (a trigger refuses updates), so "the current certification" is always a question of the newest row.
 *
 * <p>Consumes {@link Certification}s to record; produces the newest run for a provider and contract, the newest
 * passing run for an exact (provider, model, contract version) no older than a given instant, and the newest run
 * of every (provider, contract) pair for listings. Owns no state; the pool is lent.
 */
public final class CertificationStore {
    private static final String COLUMNS = """
            id, provider, model, contract_id, contract_version, passed, checks::text AS checks, report, repetitions,
            started_at, finished_at, created_at""";
    private static final String NEWEST_FIRST = " ORDER BY finished_at DESC, created_at DESC, id LIMIT 1";
    private static final String INSERT_CERTIFICATION_IF_NEW = """
            INSERT INTO certifications (id, provider, model, contract_id, contract_version, passed, checks, report,
                                        repetitions, started_at, finished_at, request_id)
            VALUES (?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?, ?)
            ON CONFLICT (id) DO NOTHING""";
    private static final String SELECT_LATEST_FOR_CONTRACT = "SELECT " + COLUMNS + """
             FROM certifications
            WHERE provider = ? AND contract_id = ?""" + NEWEST_FIRST;
    private static final String SELECT_LATEST_FOR_CONTRACT_VERSION = "SELECT " + COLUMNS + """
             FROM certifications
            WHERE provider = ? AND model = ? AND contract_id = ? AND contract_version = ?""" + NEWEST_FIRST;
    private static final String SELECT_LATEST_PASSING = "SELECT " + COLUMNS + """
             FROM certifications
            WHERE provider = ? AND model = ? AND contract_id = ? AND contract_version = ? AND passed
              AND finished_at >= ?""" + NEWEST_FIRST;
    private static final String SELECT_FOR_REQUEST = "SELECT " + COLUMNS + """
             FROM certifications
            WHERE request_id = ?
            ORDER BY provider, contract_id, started_at""";
    private static final String SELECT_LATEST_PER_PROVIDER_AND_CONTRACT = "SELECT DISTINCT ON (provider, contract_id) "
            + COLUMNS + """
             FROM certifications
            ORDER BY provider, contract_id, finished_at DESC, created_at DESC, id""";

    private static final Pattern NUL_ESCAPE = Pattern.compile("(?<!\\\\)((?:\\\\\\\\)*)\\\\u0000");

    private final Database database;

    public CertificationStore(Database database) {
        this.database = database;
    }

    /**
     * Inserts the run. True when it was inserted; false when a run with this id is already recorded (recording the
     * same run twice changes nothing).
     */
    public boolean record(Certification run) {
        return record(run, null);
    }

    /**
     * Inserts the run as one of the request {@code requestId} made (null: none, as {@code onejob certify}'s). True
     * when it was inserted; false when a run with this id is already recorded.
     */
    public boolean record(Certification run, UUID requestId) {
        ArrayNode checks = Json.MAPPER.createArrayNode();
        run.checks().forEach(check -> checks.add(check.toJson()));
        int inserted = database.inTransaction(connection -> update(connection, INSERT_CERTIFICATION_IF_NEW,
                run.id(), run.provider(), run.model(), run.contractId(), run.contractVersion(), run.passed(),
                withoutNul(Json.write(checks)), run.report().replace('\u0000', '\uFFFD'), run.repetitions(),
                timestamp(run.startedAt()),
                timestamp(run.finishedAt()), requestId));
        if (inserted > 1) {
            throw new IllegalStateException("inserting certification " + run.id() + " added " + inserted + " rows");
        }
        return inserted == 1;
    }

    /** The runs the certification request {@code requestId} made, in provider order, then contract order. */
    public List<Certification> forRequest(UUID requestId) {
        return database.inTransaction(connection -> query(connection, SELECT_FOR_REQUEST, requestId));
    }

    /** The newest run of {@code provider} for {@code contractId}, whatever its model, version or verdict. */
    public Optional<Certification> latest(String provider, String contractId) {
        return queryOne(SELECT_LATEST_FOR_CONTRACT, provider, contractId);
    }

    /** The newest run of {@code provider} with {@code model} for exactly this contract version, any verdict. */
    public Optional<Certification> latest(String provider, String model, String contractId, String contractVersion) {
        return queryOne(SELECT_LATEST_FOR_CONTRACT_VERSION, provider, model, contractId, contractVersion);
    }

    /**
     * The newest passing run for exactly this (provider, model, contract version) that finished at or after
     * {@code notBefore}.
     */
    public Optional<Certification> latestPassing(String provider, String model, String contractId,
                                                 String contractVersion, Instant notBefore) {
        return queryOne(SELECT_LATEST_PASSING, provider, model, contractId, contractVersion, timestamp(notBefore));
    }

    /** The newest run of every (provider, contract) pair that has one, ordered by provider, then contract. */
    public List<Certification> latestPerProviderAndContract() {
        return database.inTransaction(connection -> query(connection, SELECT_LATEST_PER_PROVIDER_AND_CONTRACT));
    }

    /**
     * PostgreSQL's jsonb and text cannot hold U+0000, and evidence quotes provider answers verbatim: an answer with a
     * NUL must not make the run unrecordable, so each unescaped NUL escape in the JSON becomes
     * U+FFFD.
     */
    private static String withoutNul(String json) {
        return NUL_ESCAPE.matcher(json).replaceAll("$1\\\\ufffd");
    }

    private Optional<Certification> queryOne(String sql, Object... args) {
        List<Certification> rows = database.inTransaction(connection -> query(connection, sql, args));
        if (rows.size() > 1) {
            throw new IllegalStateException("a LIMIT 1 query returned " + rows.size() + " certifications");
        }
        return rows.stream().findFirst();
    }

    private static List<Certification> query(Connection connection, String sql, Object... args) throws SQLException {
        return Statements.queryList(connection, sql, CertificationStore::certification, args);
    }

    private static int update(Connection connection, String sql, Object... args) throws SQLException {
        return Statements.update(connection, sql, args);
    }

    private static Certification certification(ResultSet row) throws SQLException {
        List<CertificationCheck> checks = new ArrayList<>();
        for (JsonNode check : Json.parse(row.getString("checks"))) {
            checks.add(CertificationCheck.fromJson(check));
        }
        return new Certification(row.getObject("id", UUID.class), row.getString("provider"), row.getString("model"),
                row.getString("contract_id"), row.getString("contract_version"), row.getBoolean("passed"), checks,
                row.getString("report"), row.getInt("repetitions"), instant(row, "started_at"),
                instant(row, "finished_at"), instant(row, "created_at"));
    }

    private static OffsetDateTime timestamp(Instant instant) {
        return instant.atOffset(ZoneOffset.UTC);
    }

    private static Instant instant(ResultSet row, String column) throws SQLException {
        OffsetDateTime value = row.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }
}
