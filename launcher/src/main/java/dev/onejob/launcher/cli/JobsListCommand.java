package dev.onejob.launcher.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.json.Json;
import dev.onejob.core.ledger.JobStatus;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code jobs list}: the newest jobs across owners, read from the database (the HTTP API only ever shows a caller its
 * own). Consumes an optional owner and status and a limit; produces one line (or JSON object) per job, newest first.
 * Runs one SELECT in a read-only transaction ({@link ReadOnlyDatabase}).
 */
@Command(name = "list", mixinStandardHelpOptions = true,
        description = {"Lists the newest jobs of every owner, newest first.",
            "Reads the database directly, read-only (DATABASE_URL, DATABASE_USER, DATABASE_PASSWORD; default"
                    + " the running ./onejob dev's, else jdbc:postgresql://127.0.0.1:5432/onejob as postgres), since the HTTP API shows each caller"
                    + " only its own jobs."})
final class JobsListCommand implements Callable<Integer> {
    private static final String SELECT_NEWEST_JOBS = """
            SELECT j.id, j.owner_id, j.idempotency_key, j.status, j.contract, j.target_provider,
                   j.fallback_providers, j.version, j.completed_by, j.created_at, j.updated_at, j.finished_at,
                   (SELECT count(*) FROM attempts a WHERE a.job_id = j.id) AS attempts
              FROM jobs j
             WHERE (CAST(? AS text) IS NULL OR j.owner_id = ?)
               AND (CAST(? AS text) IS NULL OR j.status = ?)
             ORDER BY j.created_at DESC, j.id
             LIMIT ?""";

    private final CliContext context;

    @Option(names = "--owner", paramLabel = "OWNER", description = "Only this owner's jobs.")
    String owner;

    @Option(names = "--status", paramLabel = "STATUS",
            description = "Only jobs in this status: ${COMPLETION-CANDIDATES}.")
    JobStatus status;

    @Option(names = "--limit", paramLabel = "N", defaultValue = "20",
            description = "At most N jobs (default ${DEFAULT-VALUE}, at most 10000).")
    int limit;

    @Option(names = "--json", description = "Print a JSON array (fields named as in the API's Job) instead of text.")
    boolean json;

    JobsListCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        if (limit < 1 || limit > 10_000) {
            throw CliFailure.usage("--limit must be between 1 and 10000, got " + limit);
        }
        ArrayNode jobs = ReadOnlyDatabase.fromEnv(context).read(this::select);
        if (json) {
            context.out().println(Json.write(jobs));
            return ExitCode.OK;
        }
        Table table = new Table("created", "id", "owner", "status", "providers", "attempts", "idempotency key")
                .maxWidth(6, 40);
        jobs.forEach(job -> table.row(job.path("created_at").asText(), job.path("id").asText(),
                job.path("owner_id").asText(), job.path("status").asText(), JobView.chain(job),
                job.path("attempts").asInt(), job.path("idempotency_key").asText()));
        context.out().print(table.isEmpty() ? "no jobs" + filters() + "\n" : table.render());
        return ExitCode.OK;
    }

    private ArrayNode select(Connection connection) throws SQLException {
        ArrayNode jobs = Json.MAPPER.createArrayNode();
        String statusName = status == null ? null : status.name();
        try (PreparedStatement statement = connection.prepareStatement(SELECT_NEWEST_JOBS)) {
            statement.setString(1, owner);
            statement.setString(2, owner);
            statement.setString(3, statusName);
            statement.setString(4, statusName);
            statement.setInt(5, limit);
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    jobs.add(job(rows));
                }
            }
        }
        return jobs;
    }

    private static ObjectNode job(ResultSet row) throws SQLException {
        ObjectNode job = Json.object();
        job.put("id", row.getString("id"));
        job.put("owner_id", row.getString("owner_id"));
        job.put("idempotency_key", row.getString("idempotency_key"));
        job.put("status", row.getString("status"));
        job.put("contract", row.getString("contract"));
        job.put("target", row.getString("target_provider"));
        ArrayNode fallbacks = job.putArray("fallbacks");
        Array array = row.getArray("fallback_providers");
        for (Object provider : (Object[]) array.getArray()) {
            fallbacks.add(provider.toString());
        }
        job.put("version", row.getLong("version"));
        job.put("completed_by", row.getString("completed_by"));
        job.put("attempts", row.getLong("attempts"));
        job.put("created_at", instant(row.getTimestamp("created_at")));
        job.put("updated_at", instant(row.getTimestamp("updated_at")));
        job.put("finished_at", instant(row.getTimestamp("finished_at")));
        return job;
    }

    private static String instant(Timestamp timestamp) {
        return timestamp == null ? null : timestamp.toInstant().toString();
    }

    private String filters() {
        return (owner == null ? "" : " of " + owner) + (status == null ? "" : " in status " + status);
    }
}
