package dev.onejob.bench.report;

import java.util.LinkedHashMap;
import java.util.Map;

/** The phases' ids (used in figures, CSV and JSON) and their titles (used in the Markdown report). */
public final class Phases {
    public static final String PGBENCH = "pgbench";
    public static final String KAFKA_PERF = "kafka-producer-perf";
    public static final String KAFKA_INGEST = "kafka-ingest";
    public static final String HTTP_INGEST = "http-ingest";
    public static final String HTTP_OVERLOAD = "http-overload";
    public static final String HTTP_SLOW_CLIENTS = "http-slow-clients";
    public static final String END_TO_END = "end-to-end";
    public static final String SLOW_PROVIDER = "slow-provider";
    public static final String SLOW_BACKLOG = "slow-backlog";
    public static final String SCALING = "scaling";
    public static final String DBOS = "dbos-peer";
    public static final String CPU_PER_JOB = "cpu-per-job";
    public static final String MEMORY = "memory";
    public static final String LEDGER_SCALE = "ledger-scale";

    public static final Map<String, String> TITLES = new LinkedHashMap<>();

    static {
        TITLES.put(PGBENCH, "1. PostgreSQL limit: pgbench on the project's own statements");
        TITLES.put(KAFKA_PERF, "2. Kafka limit: Kafka's ProducerPerformance with the project's producer settings");
        TITLES.put(KAFKA_INGEST, "3. Ingest over Kafka: job-requests to committed jobs and attempt-commands");
        TITLES.put(HTTP_INGEST, "4. Ingest over HTTP: POST /v1/jobs");
        TITLES.put(HTTP_OVERLOAD, "5. HTTP overload: offered load twice the measured maximum");
        TITLES.put(HTTP_SLOW_CLIENTS, "6. HTTP with stalled connections: clients that send half a request head and stop");
        TITLES.put(END_TO_END, "7. End to end: HTTP request to its job-results record");
        TITLES.put(SLOW_PROVIDER, "8. AI-length calls: a provider answering in a lognormal 1 s median, 8 s p99");
        TITLES.put(SLOW_BACKLOG, "9. AI-length calls: a backlog released to one worker at once");
        TITLES.put(SCALING, "10. Scaling curve: 1, 2 and 4 workers with 1 and 2 reconcilers, AI-length calls");
        TITLES.put(DBOS, "11. Peer: DBOS Transact for Java on the same machine and database");
        TITLES.put(CPU_PER_JOB, "12. CPU per finished job, by component");
        TITLES.put(MEMORY, "13. Memory of each process");
        TITLES.put(LEDGER_SCALE, "14. A ledger at scale: submissions and the usage query on a small and a large ledger");
    }

    private Phases() {
    }
}
