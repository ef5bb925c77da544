package dev.onejob.bench;

import dev.onejob.bench.report.Phases;
import dev.onejob.bench.report.Targets;
import dev.onejob.infra.proc.ProcessRunner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Phase 1, PostgreSQL's limit on this machine: pgbench ({@code -n -M prepared -T N}, 1 and 8 clients) running the
 * project's own statements against the real {@code jobs} table: {@code INSERT_JOB_IF_ABSENT} (random keys
 * from {@code \set ... random()}) and {@code COMPLETE_JOB_IF_UNCLAIMED} against pre-created RUNNING jobs
 * each with a STARTING attempt, as the table's CHECKs, transition trigger and {@code completed_by} foreign key
 * require. Each CAS run picks jobs at random from its own pool; a pick of an already completed job updates no row
 * (a lost CAS, as in the service), and the share that won is reported. The tables are emptied afterwards.
 */
final class PgbenchPhase {
    private static final String FINGERPRINT = "a".repeat(64);
    private static final String REQUEST = "{\"contract\": \"sentiment\", \"variables\": {\"text\": \"pgbench\"}, "
            + "\"target\": \"primary\", \"fallbacks\": [\"backup\"]}";
    private static final String INSERT_JOB_IF_ABSENT = """
            \\set k random(1, 1000000000000)
            INSERT INTO jobs (id, owner_id, idempotency_key, request_fingerprint, request, contract, target_provider,
                              fallback_providers)
            VALUES (gen_random_uuid(), 'pgbench', 'pgb-' || :client_id || '-' || :k, '%s', '%s'::jsonb, 'sentiment',
                    'primary', '{backup}')
            ON CONFLICT (owner_id, idempotency_key) DO NOTHING
            RETURNING id, owner_id, idempotency_key, request_fingerprint, request::text AS request, contract,
                      target_provider, fallback_providers, status, version, completed_by, result::text AS result,
                      error_code, error_message, created_at, updated_at, finished_at;
            """.formatted(FINGERPRINT, REQUEST);
    private static final String COMPLETE_JOB_IF_UNCLAIMED = """
            \\set n random(:lo, :hi)
            UPDATE jobs SET status = 'SUCCEEDED', version = version + 1, completed_by = md5('att-' || :n)::uuid,
                            result = '{"sentiment": "positive", "summary": "pgbench"}'::jsonb, finished_at = now()
            WHERE id = md5('job-' || :n)::uuid AND version = 1 AND completed_by IS NULL;
            """;
    private static final Pattern TPS = Pattern.compile("tps = ([\\d.]+) \\(without initial connection time\\)");
    private static final Pattern LATENCY = Pattern.compile("latency average = ([\\d.]+) ms");
    private static final Pattern PROCESSED = Pattern.compile("number of transactions actually processed: (\\d+)");

    private final BenchContext context;

    PgbenchPhase(BenchContext context) {
        this.context = context;
    }

    void run() throws IOException {
        String pgbench = pgbench();
        BenchSettings settings = context.settings();
        if (pgbench == null) {
            for (String metric : List.of("insert tps, 1 client", Targets.PG_INSERT_8, "completion CAS tps, 1 client",
                    "completion CAS tps, 8 clients")) {
                context.results().notMeasured(Phases.PGBENCH, metric, "tps", "pgbench is not installed");
            }
            return;
        }
        Path dir = context.runner().logs().resolve("pgbench");
        Files.createDirectories(dir);
        Path insert = Files.writeString(dir.resolve("insert-job-if-absent.sql"), INSERT_JOB_IF_ABSENT);
        Path cas = Files.writeString(dir.resolve("complete-job-if-unclaimed.sql"), COMPLETE_JOB_IF_UNCLAIMED);
        int pool = settings.casPoolPerRun();
        createCasPool(2 * pool);
        try (var window = context.window(Phases.PGBENCH, List.of())) {
            measure(pgbench, insert, 1, List.of(), "insert", "1 client");
            measure(pgbench, insert, 8, List.of(), "insert", "8 clients");
            measure(pgbench, cas, 1, List.of("-D", "lo=1", "-D", "hi=" + pool), "completion CAS", "1 client");
            measure(pgbench, cas, 8, List.of("-D", "lo=" + (pool + 1), "-D", "hi=" + 2 * pool), "completion CAS",
                    "8 clients");
        }
        context.results().add(Phases.PGBENCH, "CAS won share, 1 client", won(1, pool), "share",
                "completed jobs / transactions; the rest picked an already completed job (0 rows, a lost CAS)");
        context.results().add(Phases.PGBENCH, "CAS won share, 8 clients", won(pool + 1, 2 * pool), "share",
                "as above");
        context.database().execute("TRUNCATE operator_actions, job_reservations, outbox, attempts, jobs");
        context.database().execute("VACUUM ANALYZE");
    }

    private final Map<Integer, Long> transactions = new HashMap<>();

    private void measure(String pgbench, Path script, int clients, List<String> extra, String what, String label) {
        context.database().execute("CHECKPOINT");
        String[] hostPort = context.database().hostAndPort();
        List<String> command = new ArrayList<>(List.of(pgbench, "-n", "-M", "prepared", "-h", hostPort[0], "-p",
                hostPort[1], "-U", context.database().user(), "-c", Integer.toString(clients), "-j",
                Integer.toString(Math.min(clients, 2)), "-T", Integer.toString(context.settings().pgbenchSeconds()),
                "-f", script.toString()));
        command.addAll(extra);
        command.add(context.database().name());
        Map<String, String> env = context.database().password() == null ? Map.of()
                : Map.of("PGPASSWORD", context.database().password());
        ProcessRunner.Completed run = context.runner().run("pgbench-" + what.replace(' ', '-') + "-c" + clients,
                command, env, Duration.ofSeconds(context.settings().pgbenchSeconds() + 120L));
        for (int retry = 0; retry < 6 && run.exitCode() != 0 && run.output().contains("too many clients"); retry++) {
            try {
                Thread.sleep(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            run = context.runner().run("pgbench-" + what.replace(' ', '-') + "-c" + clients, command, env,
                    Duration.ofSeconds(context.settings().pgbenchSeconds() + 120L));
        }
        Matcher tps = TPS.matcher(run.output());
        String metric = what + " tps, " + label;
        if (run.exitCode() != 0 || !tps.find()) {
            context.results().notMeasured(Phases.PGBENCH, metric, "tps", "pgbench exited " + run.exitCode() + ": "
                    + lastLine(run.output()));
            return;
        }
        Matcher latency = LATENCY.matcher(run.output());
        Matcher processed = PROCESSED.matcher(run.output());
        if (processed.find() && what.startsWith("completion")) {
            transactions.put(clients, Long.parseLong(processed.group(1)));
        }
        context.results().add(Phases.PGBENCH, metric, Double.parseDouble(tps.group(1)), "tps",
                latency.find() ? "latency average " + latency.group(1) + " ms" : "");
    }

    private double won(int lo, int hi) {
        long completed = context.database().count("SELECT count(*) FROM jobs WHERE owner_id = 'cas' AND status = "
                + "'SUCCEEDED' AND substr(idempotency_key, 5)::int BETWEEN ? AND ?", lo, hi);
        long total = transactions.getOrDefault(lo == 1 ? 1 : 8, 0L);
        return total == 0 ? 0 : (double) completed / total;
    }

    private void createCasPool(int size) {
        context.database().execute("""
                INSERT INTO jobs (id, owner_id, idempotency_key, request_fingerprint, request, contract, target_provider,
                                  fallback_providers, status, version)
                SELECT md5('job-' || g)::uuid, 'cas', 'cas-' || g, '%s', '%s'::jsonb, 'sentiment', 'primary',
                       '{backup}', 'RUNNING', 1
                FROM generate_series(1, %d) g""".formatted(FINGERPRINT, REQUEST, size));
        context.database().execute("""
                INSERT INTO attempts (id, job_id, number, provider, status, job_version, started_at)
                SELECT md5('att-' || g)::uuid, md5('job-' || g)::uuid, 1, 'primary', 'STARTING', 1, now()
                FROM generate_series(1, %d) g""".formatted(size));
        context.database().execute("VACUUM ANALYZE jobs");
        context.database().execute("VACUUM ANALYZE attempts");
    }

    private static String pgbench() {
        for (String candidate : List.of("/usr/bin/pgbench", "/usr/lib/postgresql/15/bin/pgbench",
                "/usr/local/bin/pgbench")) {
            if (Files.isExecutable(Path.of(candidate))) {
                return candidate;
            }
        }
        return null;
    }

    private static String lastLine(String output) {
        String[] lines = output.strip().split("\n");
        return lines.length == 0 ? "" : lines[lines.length - 1];
    }
}
