package dev.onejob.core.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.db.Database;
import dev.onejob.core.json.Json;
import dev.onejob.core.ledger.LedgerQueries.JobFilter;
import dev.onejob.core.ledger.LedgerQueries.Statement;
import dev.onejob.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every query people run (the API's lists, the UNKNOWN queue, races, a provider's failures, the histories waits and
 * streams read) uses an index on a ledger of a million jobs, 101,000 attempts and 99,000 operator actions, in a
 * database of this test's own: each plan, custom and generic (the one a prepared statement settles on), has no
 * sequential scan and uses one of the indexes the query was written for. The pages themselves are checked too:
 * keyset pagination walks a filter's
 * jobs exactly once, newest first.
 */
class LedgerQueriesPlanIT {
    private static final int JOBS = 1_000_000;
    private static TestDatabase db;
    private static LedgerQueries queries;

    @BeforeAll
    static void fillALedgerOfAMillionJobs() throws SQLException {
        db = TestDatabase.createPrivate();
        try (Connection c = db.dataSource().getConnection(); var s = c.createStatement()) {
            // 900 owners of 1,000 jobs and one of 100,000, a second apart; 1 in 100 FAILED, 1 in 1,000 UNKNOWN.
            s.execute("""
                    INSERT INTO jobs (id, owner_id, idempotency_key, request_fingerprint, request, contract,
                                      target_provider, status, created_at, updated_at, finished_at, error_code)
                    SELECT gen_random_uuid(), CASE WHEN i > 900000 THEN 'big' ELSE 'owner-' || (i % 900) END,
                           'key-' || i, repeat('0', 64), '{}', 'sentiment',
                           CASE WHEN i % 2 = 0 THEN 'primary' ELSE 'backup' END,
                           CASE WHEN i % 100 = 0 THEN 'FAILED' WHEN i % 1000 = 1 THEN 'UNKNOWN' ELSE 'QUEUED' END,
                           now() - make_interval(secs => i), now() - make_interval(secs => i),
                           CASE WHEN i % 100 = 0 THEN now() - make_interval(secs => i) END,
                           CASE WHEN i % 100 = 0 THEN 'provider_error' END
                    FROM generate_series(1, $jobs) AS i""".replace("$jobs", Integer.toString(JOBS)));
            // An attempt for every tenth job (failed, a few discarded) and for every UNKNOWN one.
            s.execute("""
                    INSERT INTO attempts (id, job_id, number, provider, status, job_version, created_at, updated_at,
                                          started_at, finished_at, unknown_at, lost_reason, discarded_result_sha256)
                    SELECT gen_random_uuid(), id, 1, target_provider,
                           CASE WHEN n % 1000 = 1 THEN 'UNKNOWN' WHEN n % 1000 = 10 THEN 'DISCARDED' ELSE 'FAILED' END,
                           1, created_at, created_at, created_at,
                           CASE WHEN n % 1000 = 1 THEN NULL ELSE created_at + interval '1 second' END,
                           CASE WHEN n % 1000 = 1 THEN created_at + interval '1 second' END,
                           CASE WHEN n % 1000 = 10 THEN 'lost-cas' END,
                           CASE WHEN n % 1000 = 10 THEN repeat('a', 64) END
                    FROM (SELECT id, target_provider, created_at, substring(idempotency_key FROM 5)::int AS n
                          FROM jobs) j
                    WHERE n % 10 = 0 OR n % 1000 = 1""");
            // An operator resolved every failed attempt.
            s.execute("""
                    INSERT INTO operator_actions (job_id, attempt_id, actor, action, reason)
                    SELECT job_id, id, 'ops', 'resolve_failed', 'provider down' FROM attempts WHERE status = 'FAILED'""");
            s.execute("ANALYZE jobs");
            s.execute("ANALYZE attempts");
            s.execute("ANALYZE operator_actions");
        }
        queries = new LedgerQueries(Database.wrap(db.dataSource()));
    }

    @AfterAll
    static void dropIt() {
        if (db != null) {
            db.close();
        }
    }

    private static final Instant NOW = Instant.now();
    /** Either index that leads with the owner: for an owner of a thousand jobs the planner may take the key's. */
    private static final Set<String> OWNER_INDEXES = Set.of("jobs_owner_id_created_at_idx",
            "jobs_owner_id_idempotency_key_c_idx");
    private static final Set<String> ALL_OWNERS_INDEXES = Set.of("jobs_created_at_idx");

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"owner", "owner+status", "owner+provider", "owner+created", "owner+prefix", "owner+cursor",
        "operator", "operator+status", "operator+created", "big-owner+status+created"})
    void everyJobListUsesAnIndex(String shape) throws SQLException {
        String owner = shape.startsWith("operator") ? null : shape.startsWith("big") ? "big" : "owner-7";
        Set<JobStatus> statuses = shape.contains("status") ? EnumSet.of(JobStatus.FAILED, JobStatus.UNKNOWN)
                : Set.of();
        Instant after = shape.contains("created") ? NOW.minus(Duration.ofDays(2)) : null;
        Instant before = shape.contains("created") ? NOW.minus(Duration.ofDays(1)) : null;
        String prefix = shape.contains("prefix") ? "key-1" : null;
        String cursor = null;
        if (shape.contains("cursor")) {
            cursor = queries.jobs(new JobFilter(owner, statuses, null, null, null, null), 50, null).nextCursor();
        }
        JobFilter filter = new JobFilter(owner, statuses, shape.contains("provider") ? "primary" : null, after,
                before, prefix);
        Set<String> expected = new HashSet<>(owner == null ? ALL_OWNERS_INDEXES : OWNER_INDEXES);
        if (prefix != null) {
            expected.add("jobs_owner_id_idempotency_key_c_idx");
        }
        assertUsesIndex(queries.jobsStatement(filter, 50, cursor), expected);
    }

    @Test
    void theUnknownQueueRacesFailuresCountsAndHistoriesUseTheirIndexes() throws SQLException {
        assertUsesIndex(queries.liveAttemptsStatement(AttemptStatus.UNKNOWN, Duration.ofMinutes(5), null, 100, null),
                Set.of("attempts_unknown_at_idx"));
        assertUsesIndex(queries.liveAttemptsStatement(AttemptStatus.UNKNOWN, Duration.ZERO, "owner-1", 100, null),
                Set.of("attempts_unknown_at_idx"));
        assertUsesIndex(queries.liveAttemptsStatement(AttemptStatus.STARTING, Duration.ofMinutes(5), null, 100,
                null), Set.of("attempts_started_at_idx"));
        assertUsesIndex(queries.racesStatement(NOW.minus(Duration.ofDays(3)), null, 100, null),
                Set.of("attempts_discarded_idx"));
        assertUsesIndex(queries.racesStatement(Instant.EPOCH, "owner-10", 100, null), Set.of("attempts_discarded_idx"));
        assertUsesIndex(new Statement(LedgerStats.SELECT_RECENT_FAILURES, new Object[] {"primary",
                OffsetDateTime.now().minusHours(1), 10}), Set.of("attempts_failed_idx"));
        assertUsesIndex(new Statement(LedgerStats.SELECT_OWNERS_RECENT_FAILURES, new Object[] {"primary",
                OffsetDateTime.now().minusHours(1), "owner-3", 10}), Set.of("attempts_failed_idx"));
        assertUsesIndex(new Statement(LedgerStats.COUNT_UNKNOWN, new Object[0]), Set.of("attempts_unknown_at_idx"));
        List<UUID> ids = queries.jobs(new JobFilter("owner-3", Set.of(), null, null, null, null), 100, null).items()
                .stream().map(LedgerQueries.JobSummary::id).toList();
        UUID[] array = ids.toArray(UUID[]::new);
        assertUsesIndex(new Statement(JobHistories.SELECT_JOBS_BY_IDS, new Object[] {array}), Set.of("jobs_pkey"));
        assertUsesIndex(new Statement(JobHistories.SELECT_ATTEMPTS_OF_JOBS, new Object[] {array}),
                Set.of("attempts_job_id_number_key", "attempts_job_id_id_key"));
        assertUsesIndex(new Statement(JobHistories.SELECT_OPERATOR_ACTIONS_OF_JOBS, new Object[] {array}),
                Set.of("operator_actions_job_id_idx"));
        assertEquals(JOBS / 1000, queries.unknownCount().count());
    }

    @Test
    void theCompareAndSwapOfAPollOfAnswersFindsItsAttemptsAndJobsByKey() throws SQLException {
        // the attempts and jobs of ten real answers, and one for an attempt the ledger does not know
        List<UUID[]> pairs = new ArrayList<>();
        try (Connection c = db.dataSource().getConnection(); var s = c.createStatement();
             ResultSet rows = s.executeQuery("SELECT id, job_id FROM attempts LIMIT 10")) {
            while (rows.next()) {
                pairs.add(new UUID[] {rows.getObject(1, UUID.class), rows.getObject(2, UUID.class)});
            }
        }
        pairs.add(new UUID[] {UUID.randomUUID(), UUID.randomUUID()});
        UUID[] attemptIds = pairs.stream().map(p -> p[0]).toArray(UUID[]::new);
        UUID[] jobIds = pairs.stream().map(p -> p[1]).toArray(UUID[]::new);
        String[] texts = pairs.stream().map(p -> "primary").toArray(String[]::new);
        String[] results = pairs.stream().map(p -> "{}").toArray(String[]::new);
        UUID[] tokens = pairs.stream().map(p -> UUID.randomUUID()).toArray(UUID[]::new);
        String[] reasons = pairs.stream().map(p -> "stop").toArray(String[]::new);
        assertUsesIndex(new Statement(CompletionBatch.COMPLETE_ALL_IF_UNCLAIMED,
                new Object[] {attemptIds, jobIds, texts, results, texts, tokens, reasons}), Set.of("attempts_pkey"));
        assertUsesIndex(new Statement(CompletionBatch.COMPLETE_ALL_IF_UNCLAIMED,
                new Object[] {attemptIds, jobIds, texts, results, texts, tokens, reasons}), Set.of("jobs_pkey"));
    }

    @Test
    void keysetPagesWalkAFiltersJobsOnceNewestFirst() {
        JobFilter failed = new JobFilter("big", EnumSet.of(JobStatus.FAILED), null, null, null, null);
        List<LedgerQueries.JobSummary> all = new ArrayList<>();
        String cursor = null;
        do {
            var page = queries.jobs(failed, 300, cursor);
            all.addAll(page.items());
            cursor = page.nextCursor();
        } while (cursor != null);
        assertEquals(1000, all.size(), "big owns 100,000 jobs, 1 in 100 FAILED");
        assertEquals(all.size(), all.stream().map(LedgerQueries.JobSummary::id).distinct().count());
        for (int i = 1; i < all.size(); i++) {
            assertFalse(all.get(i).createdAt().isAfter(all.get(i - 1).createdAt()), "newest first at " + i);
        }
        assertTrue(all.stream().allMatch(j -> j.status() == JobStatus.FAILED && j.ownerId().equals("big")));

        var prefixed = queries.jobs(new JobFilter("big", Set.of(), null, null, null, "key-99999"), 500, null);
        // key-99999 itself is owner-99's (99999 % 900); big's are key-999990 to key-999999
        assertEquals(List.of("key-999990", "key-999991", "key-999992", "key-999993", "key-999994",
                        "key-999995", "key-999996", "key-999997", "key-999998", "key-999999"),
                prefixed.items().stream().map(LedgerQueries.JobSummary::idempotencyKey).sorted().toList());
    }

    /** The statement's plan, custom and then generic, scans no table whole and uses one of {@code indexes}. */
    private static void assertUsesIndex(Statement statement, Set<String> indexes) throws SQLException {
        for (String mode : List.of("force_custom_plan", "force_generic_plan")) {
            JsonNode plan = explain(statement, mode);
            List<String> used = new ArrayList<>();
            List<String> seqScans = new ArrayList<>();
            walk(plan, used, seqScans);
            assertEquals(List.of(), seqScans, mode + " plan of " + statement.sql() + ":\n" + plan.toPrettyString());
            assertTrue(used.stream().anyMatch(indexes::contains), mode + " plan uses " + used + ", none of "
                    + indexes + ", for " + statement.sql() + ":\n" + plan.toPrettyString());
        }
    }

    /**
     * The plan a prepared statement gets: PREPARE, then EXPLAIN EXECUTE under the plan cache mode (PostgreSQL 15 has
     * no EXPLAIN (GENERIC_PLAN); a generic plan is only ever made for a prepared statement).
     */
    private static JsonNode explain(Statement statement, String mode) throws SQLException {
        StringBuilder numbered = new StringBuilder();
        int n = 0;
        for (char ch : statement.sql().toCharArray()) {
            if (ch == '?') {
                numbered.append('$').append(++n);
            } else {
                numbered.append(ch);
            }
        }
        try (Connection c = db.dataSource().getConnection()) {
            try (var s = c.createStatement()) {
                s.execute("SET plan_cache_mode = " + mode);
                // Typed: an untyped $n in a statement sent over the extended protocol is taken for its own.
                s.execute("PREPARE plan_it" + types(statement.args()) + " AS " + numbered);
            }
            // EXPLAIN EXECUTE takes no bind parameters, so the values go in as literals (of this test's own making).
            List<String> literals = new ArrayList<>();
            for (Object arg : statement.args()) {
                literals.add(literal(arg));
            }
            try (var s = c.createStatement();
                 ResultSet rows = s.executeQuery("EXPLAIN (FORMAT JSON) EXECUTE plan_it"
                         + (n == 0 ? "" : "(" + String.join(", ", literals) + ")"))) {
                rows.next();
                return Json.parse(rows.getString(1)).get(0).get("Plan");
            } finally {
                try (var s = c.createStatement()) {
                    s.execute("DEALLOCATE plan_it");
                    s.execute("RESET plan_cache_mode");
                }
            }
        }
    }

    private static String literal(Object arg) {
        if (arg instanceof String text) {
            return "'" + text.replace("'", "''") + "'";
        }
        if (arg instanceof String[] texts) {
            return "ARRAY[" + String.join(", ", Arrays.stream(texts).map(LedgerQueriesPlanIT::literal)
                    .toList()) + "]::text[]";
        }
        if (arg instanceof UUID[] ids) {
            return "ARRAY[" + String.join(", ", Arrays.stream(ids).map(id -> "'" + id + "'").toList())
                    + "]::uuid[]";
        }
        if (arg instanceof OffsetDateTime || arg instanceof UUID) {
            return "'" + arg + "'";
        }
        if (arg instanceof Integer) {
            return arg.toString();
        }
        throw new IllegalArgumentException("no SQL literal for " + arg.getClass());
    }

    private static String types(Object[] args) {
        if (args.length == 0) {
            return "";
        }
        List<String> types = new ArrayList<>();
        for (Object arg : args) {
            if (arg instanceof String) {
                types.add("text");
            } else if (arg instanceof String[]) {
                types.add("text[]");
            } else if (arg instanceof OffsetDateTime) {
                types.add("timestamptz");
            } else if (arg instanceof UUID) {
                types.add("uuid");
            } else if (arg instanceof Integer) {
                types.add("int");
            } else if (arg instanceof UUID[]) {
                types.add("uuid[]");
            } else {
                throw new IllegalArgumentException("no SQL type for " + arg.getClass());
            }
        }
        return "(" + String.join(", ", types) + ")";
    }

    private static void walk(JsonNode node, List<String> indexes, List<String> seqScans) {
        if (node.has("Index Name")) {
            indexes.add(node.get("Index Name").asText());
        }
        if ("Seq Scan".equals(node.path("Node Type").asText())) {
            seqScans.add(node.path("Relation Name").asText());
        }
        node.path("Plans").forEach(child -> walk(child, indexes, seqScans));
    }
}
