package dev.onejob.core.ledger;

import static dev.onejob.core.ledger.LedgerRows.ATTEMPT_COLUMNS;
import static dev.onejob.core.ledger.LedgerRows.JOB_COLUMNS;

import dev.onejob.core.events.AttemptCommand;
import dev.onejob.core.json.Json;
import dev.onejob.core.kafka.Topics;
import dev.onejob.core.outbox.OutboxStore;
import java.math.BigDecimal;
import java.sql.Array;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Submits new jobs as a set, inside the caller's transaction: one statement per table whatever the number of jobs
 * (a poll of {@code job-requests}, or one HTTP request). The jobs go in with {@code ON CONFLICT (owner_id,
 * idempotency_key) DO NOTHING}, and {@code RETURNING} says which were created: the unique constraint decides, as
 * for a single insert. The keys that already existed (or came twice in this batch) are read back in one statement
 * and answered REPLAYED or CONFLICT by fingerprint; the created jobs' first attempts and their commands go in one
 * multi-row statement each. Every job gets the answer it would get if it were submitted alone, in this order.
 *
 * <p>A key held by a tombstone (its job archived, its window not over: {@link KeyRetention}) creates nothing and is
 * answered from the archived job, REPLAYED or CONFLICT by fingerprint, exactly as if the job were live.
 *
 * <p>A new job of an owner with limits is judged by them right after the insert ({@link OwnerBudgets}); one they
 * refuse is deleted before anything else refers to it and answered OverLimit.
 *
 * <p>Rows are inserted in (owner, key) order, so two batches that share keys take their locks in the same order.
 * Owned by {@link JobSubmissions}, which owns the transaction and the fallback when PostgreSQL refuses a batch.
 */
final class JobIntake {
    private static final String INSERT_JOBS_IF_ABSENT = """
            INSERT INTO jobs (id, owner_id, idempotency_key, request_fingerprint, request, contract, target_provider,
                              fallback_providers, reserved_usd)
            SELECT t.id, t.owner_id, t.idempotency_key, t.fingerprint, t.request::jsonb, t.contract, t.target_provider,
                   ARRAY(SELECT jsonb_array_elements_text(t.fallbacks::jsonb)), t.reserved_usd
            FROM unnest(?::uuid[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[],
                        ?::numeric[])
                 WITH ORDINALITY AS t(id, owner_id, idempotency_key, fingerprint, request, contract, target_provider,
                                      fallbacks, reserved_usd, n)
            WHERE NOT EXISTS (SELECT 1 FROM idempotency_tombstones s WHERE s.owner_id = t.owner_id
                              AND s.idempotency_key = t.idempotency_key AND s.expires_at > now())
            ORDER BY t.n
            ON CONFLICT (owner_id, idempotency_key) DO NOTHING
            RETURNING\s""" + JOB_COLUMNS;
    /** Runs after the insert, so it sees every row that made one of this batch's inserts do nothing. */
    private static final String SELECT_JOBS_BY_KEYS = "SELECT " + JOB_COLUMNS
            + " FROM jobs WHERE (owner_id, idempotency_key) IN (SELECT * FROM unnest(?::text[], ?::text[]))";
    /** The archived jobs whose tombstones still hold some of the keys (the keys no live job holds). */
    private static final String SELECT_ARCHIVED_JOBS_BY_KEYS = "SELECT " + JOB_COLUMNS + " FROM jobs_archive " + """
             WHERE id IN (
                SELECT job_id FROM idempotency_tombstones
                WHERE (owner_id, idempotency_key) IN (SELECT * FROM unnest(?::text[], ?::text[])) AND expires_at > now())""";
    private static final String INSERT_FIRST_ATTEMPTS = """
            INSERT INTO attempts (id, job_id, number, provider, job_version)
            SELECT t.id, t.job_id, 1, t.provider, t.job_version
            FROM unnest(?::uuid[], ?::uuid[], ?::text[], ?::bigint[]) AS t(id, job_id, provider, job_version)
            RETURNING\s""" + ATTEMPT_COLUMNS;

    private JobIntake() {
    }

    /** The outcome of each job, in the order given: Created, Replayed or Conflict. */
    static List<SubmitOutcome> submit(Connection connection, List<NewJob> jobs) throws SQLException {
        Columns rows = Columns.of(jobs);
        Map<UUID, Job> created = insertJobs(connection, rows);
        Map<UUID, SubmitOutcome.OverLimit> refused = overLimit(connection, jobs, rows.order, rows.ids, created);
        refused.keySet().forEach(created::remove);
        // A key sent twice in this batch whose first request was refused: the second gets the same answer.
        Map<String, SubmitOutcome.OverLimit> refusedKeys = new HashMap<>();
        for (int k = 0; k < rows.ids.length && !refused.isEmpty(); k++) {
            if (refused.containsKey(rows.ids[k])) {
                refusedKeys.put(rows.ownerKey(k), refused.get(rows.ids[k]));
            }
        }
        Map<String, Job> existing = existing(connection, rows.ids, rows.owners, rows.keys, created,
                refused.keySet());
        Map<UUID, String> firstProviders = new HashMap<>();
        for (int k = 0; k < rows.ids.length; k++) {
            firstProviders.put(rows.ids[k], jobs.get(rows.order[k]).firstProvider());
        }
        Map<UUID, Attempt> firstAttempts = firstAttempts(connection, created, firstProviders);
        SubmitOutcome[] outcomes = new SubmitOutcome[rows.ids.length];
        for (int k = 0; k < rows.ids.length; k++) {
            outcomes[rows.order[k]] = outcome(rows, k, created, refused, refusedKeys, existing, firstAttempts);
        }
        return List.of(outcomes);
    }

    /**
     * The jobs of a batch as the insert's columns, in (owner, key) order; {@code order[k]} is the position in the
     * batch of row {@code k}, and {@code fingerprintOf} is by position in the batch.
     */
    private static final class Columns {
        final Integer[] order;
        final UUID[] ids;
        final String[] owners;
        final String[] keys;
        final String[] fingerprints;
        final String[] requests;
        final String[] contracts;
        final String[] targets;
        final String[] fallbacks;
        final BigDecimal[] reserved;
        final String[] fingerprintOf;

        private Columns(int n) {
            order = new Integer[n];
            ids = new UUID[n];
            owners = new String[n];
            keys = new String[n];
            fingerprints = new String[n];
            requests = new String[n];
            contracts = new String[n];
            targets = new String[n];
            fallbacks = new String[n];
            reserved = new BigDecimal[n];
            fingerprintOf = new String[n];
        }

        static Columns of(List<NewJob> jobs) {
            int n = jobs.size();
            Columns c = new Columns(n);
            Arrays.setAll(c.order, i -> i);
            Arrays.sort(c.order, Comparator.comparing((Integer i) -> jobs.get(i).ownerId())
                    .thenComparing(i -> jobs.get(i).idempotencyKey()));
            for (int k = 0; k < n; k++) {
                NewJob job = jobs.get(c.order[k]);
                c.ids[k] = UUID.randomUUID();
                c.owners[k] = job.ownerId();
                c.keys[k] = job.idempotencyKey();
                c.fingerprints[k] = job.fingerprint();
                c.fingerprintOf[c.order[k]] = c.fingerprints[k];
                c.requests[k] = Json.write(job.request());
                c.contracts[k] = job.contract();
                c.targets[k] = job.targetProvider();
                c.fallbacks[k] = Json.write(Json.MAPPER.valueToTree(job.fallbackProviders()));
                c.reserved[k] = limited(job) ? job.budget().reservationUsd() : null;
            }
            return c;
        }

        /** Row {@code k}'s owner NUL key (NUL cannot be in either). */
        String ownerKey(int k) {
            return owners[k] + "\u0000" + keys[k];
        }
    }

    /** The jobs the insert created (the others' keys were held already), by id. */
    private static Map<UUID, Job> insertJobs(Connection connection, Columns rows) throws SQLException {
        Map<UUID, Job> created = new HashMap<>();
        for (Job job : LedgerSql.queryList(connection, INSERT_JOBS_IF_ABSENT, LedgerRows::job, array(connection,
                "uuid", rows.ids), array(connection, "text", rows.owners), array(connection, "text", rows.keys),
                array(connection, "text", rows.fingerprints), array(connection, "text", rows.requests),
                array(connection, "text", rows.contracts), array(connection, "text", rows.targets),
                array(connection, "text", rows.fallbacks), array(connection, "numeric", rows.reserved))) {
            created.put(job.id(), job);
        }
        return created;
    }

    /** The answer to row {@code k}: refused, created, or by fingerprint against the job holding its key. */
    private static SubmitOutcome outcome(Columns rows, int k, Map<UUID, Job> created,
                                         Map<UUID, SubmitOutcome.OverLimit> refused,
                                         Map<String, SubmitOutcome.OverLimit> refusedKeys, Map<String, Job> existing,
                                         Map<UUID, Attempt> firstAttempts) throws SQLException {
        if (refused.containsKey(rows.ids[k])) {
            return refused.get(rows.ids[k]);
        }
        Job job = created.get(rows.ids[k]);
        if (job != null) {
            return new SubmitOutcome.Created(job, firstAttempts.get(job.id()));
        }
        Job holder = existing.get(rows.ownerKey(k));
        if (holder == null && refusedKeys.containsKey(rows.ownerKey(k))) {
            return refusedKeys.get(rows.ownerKey(k));
        }
        if (holder == null) {
            // The key's holder moved between the insert's snapshot and the lookup's (archived, or its tombstone
            // expired): the whole submission is tried again, as a serialization failure is.
            throw new SQLException("the holder of a key of " + rows.owners[k] + " moved during the intake", "40001");
        }
        String fingerprint = rows.fingerprintOf[rows.order[k]];
        return holder.requestFingerprint().equals(fingerprint) ? new SubmitOutcome.Replayed(holder)
                : new SubmitOutcome.Conflict(holder.id(), holder.requestFingerprint());
    }

    private static boolean limited(NewJob job) {
        return job.budget() != null && job.budget().limits().limitsAnything();
    }

    /** The new jobs their owners' limits refuse ({@link OwnerBudgets}), judged in the order they were given. */
    private static Map<UUID, SubmitOutcome.OverLimit> overLimit(Connection connection, List<NewJob> jobs,
                                                                Integer[] order, UUID[] ids, Map<UUID, Job> created)
            throws SQLException {
        UUID[] idOf = new UUID[jobs.size()];
        for (int k = 0; k < ids.length; k++) {
            idOf[order[k]] = ids[k];
        }
        List<OwnerBudgets.Candidate> candidates = new ArrayList<>();
        for (int i = 0; i < jobs.size(); i++) {
            if (limited(jobs.get(i)) && created.containsKey(idOf[i])) {
                candidates.add(new OwnerBudgets.Candidate(idOf[i], jobs.get(i).ownerId(), jobs.get(i).budget()));
            }
        }
        return candidates.isEmpty() ? Map.of() : OwnerBudgets.enforce(connection, candidates);
    }

    /** The jobs holding the keys whose insert did nothing, by owner NUL key (NUL cannot be in either). */
    private static Map<String, Job> existing(Connection connection, UUID[] ids, String[] owners, String[] keys,
                                             Map<UUID, Job> created, Set<UUID> refused)
            throws SQLException {
        List<String> lookOwners = new ArrayList<>();
        List<String> lookKeys = new ArrayList<>();
        for (int k = 0; k < ids.length; k++) {
            if (!created.containsKey(ids[k]) && !refused.contains(ids[k])) {
                lookOwners.add(owners[k]);
                lookKeys.add(keys[k]);
            }
        }
        Map<String, Job> byKey = new HashMap<>();
        if (lookOwners.isEmpty()) {
            return byKey;
        }
        for (Job job : LedgerSql.queryList(connection, SELECT_JOBS_BY_KEYS, LedgerRows::job,
                array(connection, "text", lookOwners.toArray()), array(connection, "text", lookKeys.toArray()))) {
            byKey.put(job.ownerId() + "\u0000" + job.idempotencyKey(), job);
        }
        if (byKey.size() < new HashSet<>(zip(lookOwners, lookKeys)).size()) {
            // Some keys are held by tombstones: their jobs are archived, and answer replays from there.
            for (Job job : LedgerSql.queryList(connection, SELECT_ARCHIVED_JOBS_BY_KEYS, LedgerRows::job,
                    array(connection, "text", lookOwners.toArray()), array(connection, "text", lookKeys.toArray()))) {
                byKey.putIfAbsent(job.ownerId() + "\u0000" + job.idempotencyKey(), job);
            }
        }
        return byKey;
    }

    private static List<String> zip(List<String> owners, List<String> keys) {
        List<String> zipped = new ArrayList<>(owners.size());
        for (int i = 0; i < owners.size(); i++) {
            zipped.add(owners.get(i) + "\u0000" + keys.get(i));
        }
        return zipped;
    }

    /** The created jobs' first attempts on their target providers, and each attempt's command queued. */
    private static Map<UUID, Attempt> firstAttempts(Connection connection, Map<UUID, Job> created,
                                                    Map<UUID, String> firstProviders) throws SQLException {
        Map<UUID, Attempt> byJob = new HashMap<>();
        if (created.isEmpty()) {
            return byJob;
        }
        List<Job> jobs = new ArrayList<>(created.values());
        jobs.sort(Comparator.comparing(Job::ownerId).thenComparing(Job::idempotencyKey));
        UUID[] attemptIds = new UUID[jobs.size()];
        UUID[] jobIds = new UUID[jobs.size()];
        String[] providers = new String[jobs.size()];
        Long[] versions = new Long[jobs.size()];
        for (int k = 0; k < jobs.size(); k++) {
            attemptIds[k] = UUID.randomUUID();
            jobIds[k] = jobs.get(k).id();
            providers[k] = firstProviders.getOrDefault(jobs.get(k).id(), jobs.get(k).targetProvider());
            versions[k] = jobs.get(k).version();
        }
        List<OutboxStore.NewEvent> commands = new ArrayList<>(jobs.size());
        for (Attempt attempt : LedgerSql.queryList(connection, INSERT_FIRST_ATTEMPTS, LedgerRows::attempt,
                array(connection, "uuid", attemptIds), array(connection, "uuid", jobIds),
                array(connection, "text", providers), array(connection, "bigint", versions))) {
            byJob.put(attempt.jobId(), attempt);
            commands.add(new OutboxStore.NewEvent(attempt.id().toString(), attempt.jobId().toString(),
                    LedgerEvents.attemptCommand(created.get(attempt.jobId()), attempt).toJson(),
                    AttemptCommand.VERSION));
        }
        if (byJob.size() != jobs.size()) {
            throw new IllegalStateException("inserted " + byJob.size() + " first attempts for " + jobs.size()
                    + " new jobs");
        }
        OutboxStore.enqueueAll(connection, Topics.ATTEMPT_COMMANDS, commands);
        return byJob;
    }

    private static Array array(Connection connection, String type, Object[] values) throws SQLException {
        return connection.createArrayOf(type, values);
    }
}
