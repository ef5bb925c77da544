package dev.onejob.core.ledger;

import static dev.onejob.core.ledger.LedgerRows.ATTEMPT_COLUMNS;
import static dev.onejob.core.ledger.LedgerRows.JOB_COLUMNS;

import dev.onejob.core.events.AttemptCommand;
import dev.onejob.core.json.Json;
import dev.onejob.core.kafka.Topics;
import dev.onejob.core.outbox.OutboxStore;
import java.sql.Array;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 * Owned by {@link LedgerStore}, which owns the transaction and the fallback when PostgreSQL refuses a batch.
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
        Integer[] order = new Integer[jobs.size()];
        Arrays.setAll(order, i -> i);
        Arrays.sort(order, Comparator.comparing((Integer i) -> jobs.get(i).ownerId())
                .thenComparing(i -> jobs.get(i).idempotencyKey()));
        int n = jobs.size();
        UUID[] ids = new UUID[n];
        String[] owners = new String[n];
        String[] keys = new String[n];
        String[] fingerprints = new String[n];
        String[] requests = new String[n];
        String[] contracts = new String[n];
        String[] targets = new String[n];
        String[] fallbacks = new String[n];
        java.math.BigDecimal[] reserved = new java.math.BigDecimal[n];
        String[] fingerprintOf = new String[n];
        for (int k = 0; k < n; k++) {
            NewJob job = jobs.get(order[k]);
            ids[k] = UUID.randomUUID();
            owners[k] = job.ownerId();
            keys[k] = job.idempotencyKey();
            fingerprints[k] = job.fingerprint();
            fingerprintOf[order[k]] = fingerprints[k];
            requests[k] = Json.write(job.request());
            contracts[k] = job.contract();
            targets[k] = job.targetProvider();
            fallbacks[k] = Json.write(Json.MAPPER.valueToTree(job.fallbackProviders()));
            reserved[k] = limited(job) ? job.budget().reservationUsd() : null;
        }
        Map<UUID, Job> created = new HashMap<>();
        for (Job job : LedgerSql.queryList(connection, INSERT_JOBS_IF_ABSENT, LedgerRows::job, array(connection,
                "uuid", ids), array(connection, "text", owners), array(connection, "text", keys),
                array(connection, "text", fingerprints), array(connection, "text", requests),
                array(connection, "text", contracts), array(connection, "text", targets),
                array(connection, "text", fallbacks), array(connection, "numeric", reserved))) {
            created.put(job.id(), job);
        }
        Map<UUID, SubmitOutcome.OverLimit> refused = overLimit(connection, jobs, order, ids, created);
        refused.keySet().forEach(created::remove);
        // A key sent twice in this batch whose first request was refused: the second gets the same answer.
        Map<String, SubmitOutcome.OverLimit> refusedKeys = new HashMap<>();
        for (int k = 0; k < n && !refused.isEmpty(); k++) {
            if (refused.containsKey(ids[k])) {
                refusedKeys.put(owners[k] + "\u0000" + keys[k], refused.get(ids[k]));
            }
        }
        Map<String, Job> existing = existing(connection, ids, owners, keys, created, refused.keySet());
        Map<UUID, String> firstProviders = new HashMap<>();
        for (int k = 0; k < n; k++) {
            firstProviders.put(ids[k], jobs.get(order[k]).firstProvider());
        }
        Map<UUID, Attempt> firstAttempts = firstAttempts(connection, created, firstProviders);

        SubmitOutcome[] outcomes = new SubmitOutcome[n];
        for (int k = 0; k < n; k++) {
            int i = order[k];
            Job job = created.get(ids[k]);
            if (refused.containsKey(ids[k])) {
                outcomes[i] = refused.get(ids[k]);
                continue;
            }
            if (job != null) {
                outcomes[i] = new SubmitOutcome.Created(job, firstAttempts.get(job.id()));
                continue;
            }
            Job holder = existing.get(owners[k] + "\u0000" + keys[k]);
            if (holder == null && refusedKeys.containsKey(owners[k] + "\u0000" + keys[k])) {
                outcomes[i] = refusedKeys.get(owners[k] + "\u0000" + keys[k]);
                continue;
            }
            if (holder == null) {
                // The key's holder moved between the insert's snapshot and the lookup's (archived, or its tombstone
                // expired): the whole submission is tried again, as a serialization failure is.
                throw new SQLException("the holder of a key of " + owners[k] + " moved during the intake", "40001");
            }
            outcomes[i] = holder.requestFingerprint().equals(fingerprintOf[i]) ? new SubmitOutcome.Replayed(holder)
                    : new SubmitOutcome.Conflict(holder.id(), holder.requestFingerprint());
        }
        return List.of(outcomes);
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
                                             Map<UUID, Job> created, java.util.Set<UUID> refused)
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
        if (byKey.size() < new java.util.HashSet<>(zip(lookOwners, lookKeys)).size()) {
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
