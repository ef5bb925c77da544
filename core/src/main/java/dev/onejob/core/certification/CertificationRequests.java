package dev.onejob.core.certification;

import dev.onejob.core.db.Database;
import dev.onejob.core.db.Statements;
import dev.onejob.core.events.CertificationCommand;
import dev.onejob.core.kafka.Topics;
import dev.onejob.core.outbox.OutboxStore;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Optional;
import java.util.UUID;

/**
 * Owns every SQL statement on {@code certification_requests}: certification is the workers' work, asked for here.
 * {@link #request} records a request and its {@code certification-commands} record in the outbox in one
 * transaction (the ingest service for {@code POST /v1/certifications}, the reconciler for its schedule); a worker
 * {@link #claim}s the request before it calls any provider and {@link #finish}es it once every run is recorded, so a
 * command delivered twice pays for its golden calls once. A claim older than {@link #CLAIM_LEASE} may be taken over:
 * the worker that held it died mid-run. Owns no state; the pool is lent.
 */
public final class CertificationRequests {
    /** How long a claim holds before another worker may take the request over. */
    public static final Duration CLAIM_LEASE = Duration.ofMinutes(15);

    private static final String INSERT = """
            INSERT INTO certification_requests (id, provider, contract_id, requested_by)
            VALUES (?, ?, ?, ?)
            RETURNING requested_at""";
    private static final String CLAIM = """
            UPDATE certification_requests
               SET claimed_by = ?, claimed_at = now()
             WHERE id = ? AND finished_at IS NULL
               AND (claimed_at IS NULL OR claimed_by = ? OR claimed_at < now() - make_interval(secs => ?))""";
    private static final String FINISH = """
            UPDATE certification_requests
               SET finished_at = now(), error = ?
             WHERE id = ? AND claimed_by = ? AND finished_at IS NULL""";
    private static final String SELECT = """
            SELECT id, provider, contract_id, requested_by, requested_at, claimed_by, finished_at, error
              FROM certification_requests
             WHERE id = ?""";

    /** A request as it stands: finished once {@code finishedAt} is set, ran nothing when {@code error} is set. */
    public record Request(UUID id, Optional<String> provider, Optional<String> contract, String requestedBy,
                          Instant requestedAt, Optional<String> claimedBy, Optional<Instant> finishedAt,
                          Optional<String> error) {
        public boolean finished() {
            return finishedAt.isPresent();
        }
    }

    private final Database database;

    public CertificationRequests(Database database) {
        this.database = database;
    }

    /**
     * Records a request for {@code provider} (every provider when empty) and {@code contract} (every contract when
     * empty) and queues its command, in one transaction; returns the command as queued.
     */
    public CertificationCommand request(Optional<String> provider, Optional<String> contract, String requestedBy) {
        UUID id = UUID.randomUUID();
        return database.inTransaction(connection -> {
            Instant requestedAt;
            try (PreparedStatement insert = connection.prepareStatement(INSERT)) {
                insert.setObject(1, id);
                insert.setString(2, provider.orElse(null));
                insert.setString(3, contract.orElse(null));
                insert.setString(4, requestedBy);
                try (ResultSet row = insert.executeQuery()) {
                    row.next();
                    requestedAt = row.getObject(1, OffsetDateTime.class).toInstant();
                }
            }
            CertificationCommand command = new CertificationCommand(id, provider, contract, requestedBy, requestedAt);
            OutboxStore.enqueue(connection, Topics.CERTIFICATION_COMMANDS, "certification-request:" + id,
                    id.toString(), command.toJson(), CertificationCommand.VERSION);
            return command;
        });
    }

    /**
     * Claims the request for {@code worker}: true when it is unfinished and unclaimed, claimed by this same worker
     * (it restarted), or claimed longer than {@link #CLAIM_LEASE} ago. False: it is finished, another worker is
     * running it, or no such request exists.
     */
    public boolean claim(UUID id, String worker) {
        return database.inTransaction(connection -> Statements.update(connection, CLAIM, worker, id, worker,
                (double) CLAIM_LEASE.toSeconds())) == 1;
    }

    /**
     * Finishes a request {@code worker} holds; {@code error} says why it ran nothing (null when it ran). False when
     * the claim was lost (another worker took over an expired lease) or it was finished already.
     */
    public boolean finish(UUID id, String worker, String error) {
        return database.inTransaction(connection -> Statements.update(connection, FINISH, error, id, worker)) == 1;
    }

    /** The request, when it exists. */
    public Optional<Request> find(UUID id) {
        return database.inTransaction(connection -> Statements.queryList(connection, SELECT,
                CertificationRequests::request, id)).stream().findFirst();
    }

    private static Request request(ResultSet row) throws SQLException {
        OffsetDateTime finished = row.getObject("finished_at", OffsetDateTime.class);
        return new Request(row.getObject("id", UUID.class), Optional.ofNullable(row.getString("provider")),
                Optional.ofNullable(row.getString("contract_id")), row.getString("requested_by"),
                row.getObject("requested_at", OffsetDateTime.class).toInstant(),
                Optional.ofNullable(row.getString("claimed_by")),
                Optional.ofNullable(finished).map(OffsetDateTime::toInstant),
                Optional.ofNullable(row.getString("error")));
    }

}
