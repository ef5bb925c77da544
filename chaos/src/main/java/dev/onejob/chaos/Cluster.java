package dev.onejob.chaos;

import dev.onejob.chaos.infra.KafkaBroker;
import dev.onejob.chaos.infra.KafkaCluster;
import dev.onejob.core.kafka.KafkaPrincipals;
import dev.onejob.chaos.infra.Nginx;
import dev.onejob.chaos.infra.NginxConfig;
import dev.onejob.core.config.Env;
import dev.onejob.core.kafka.KafkaTopics;
import dev.onejob.infra.RunFiles;
import dev.onejob.infra.ScratchDatabase;
import dev.onejob.infra.ServiceEnv;
import dev.onejob.infra.proc.ChildProcess;
import dev.onejob.infra.proc.ProcessRunner;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The pipeline as separate processes, each started the way docs/operations.md documents, so each can be killed:
 * Apache Kafka (one KRaft node), two provider simulators with the seeded fault plan ({@code primary} on the OpenAI
 * wire, {@code backup} on the Anthropic wire), two ingest-service instances behind nginx (round robin, retrying a
 * timed-out or failed request on the other, POSTs included), two attempt workers in one consumer group and the
 * result reconciler. Owns every process; {@link #close()} stops them in reverse.
 */
final class Cluster implements AutoCloseable {
    static final int INGESTS = 2;
    static final int WORKERS = 2;
    /** The load generator's principal on the cluster: it may submit for every owner of the run. */
    static final String UPSTREAM = "chaos-upstream";
    private static final Pattern SIM_STARTED = Pattern.compile("event=started .*url=(http://\\S+) control=(http://\\S+)");
    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

    private final ChaosSettings settings;
    private final ProcessRunner runner;
    private final RunFiles files;
    private final ScratchDatabase database;
    private final Map<String, Integer> generations = new java.util.concurrent.ConcurrentHashMap<>();
    private final Map<String, ChildProcess> services = new java.util.concurrent.ConcurrentHashMap<>();
    private final int[] ingestPorts = new int[INGESTS];
    private KafkaBroker broker;
    /** The three authenticated brokers instead of {@link #broker}, when the settings ask for them. */
    private KafkaCluster kafkaCluster;
    private Path principalsFile;
    private Nginx nginx;
    private String primaryUrl;
    private String backupUrl;
    private String primaryControl;
    private String backupControl;

    Cluster(ChaosSettings settings, ProcessRunner runner, RunFiles files, ScratchDatabase database) {
        this.settings = settings;
        this.runner = runner;
        this.files = files;
        this.database = database;
    }

    void startBrokerAndSimulators() {
        if (settings.brokers() > 1) {
            KafkaPrincipals principals = principals();
            kafkaCluster = new KafkaCluster(runner, settings.work().resolve("kafka"), settings.brokers(),
                    principals.allNames());
            kafkaCluster.start();
            kafkaCluster.setup(principals);
            principalsFile = writePrincipals();
        } else {
            broker = new KafkaBroker(runner, settings.work().resolve("kafka"));
            broker.start();
            KafkaTopics.ensure(broker.bootstrapServers(), KafkaTopics.allNames(), 3, (short) 1);
        }
        Matcher primary = simulator("sim-primary", "primary", settings.seed()).awaitLine(SIM_STARTED, START_TIMEOUT);
        Matcher backup = simulator("sim-backup", "backup", settings.seed() + 1).awaitLine(SIM_STARTED, START_TIMEOUT);
        primaryUrl = primary.group(1);
        primaryControl = primary.group(2);
        backupUrl = backup.group(1);
        backupControl = backup.group(2);
    }

    /**
     * Turns the simulators' fault plans on. They start with it off: the certification runs before the load send
     * attempt-like calls (a UUID Idempotency-Key each) that must be answered normally for failover to be allowed.
     */
    void providerFaultsOn() {
        post(primaryControl + "/faults?on=true");
        post(backupControl + "/faults?on=true");
    }

    private ChildProcess simulator(String name, String simName, long seed) {
        Map<String, String> env = new HashMap<>();
        env.put("SIM_PORT", "0");
        env.put("SIM_NAME", simName);
        env.put("SIM_API_KEY", ChaosFiles.API_KEY);
        env.put("CHAOS_SEED", Long.toString(seed));
        env.put("CHAOS_FAULTS", "false");
        env.put("CHAOS_LATE_ANSWER_MS", Long.toString(ChaosSettings.LATE_ANSWER.toMillis()));
        env.put("CHAOS_LONG_STREAM_MS", Long.toString(settings.longStream().toMillis()));
        ChildProcess process = runner.java(name, jvmArgs(), "dev.onejob.chaos.sim.ChaosSimulatorMain", List.of(), env);
        services.put(name, process);
        return process;
    }

    /** Ingest instances, workers and reconciler, one after the other (each applies the migrations at start), then nginx. */
    void startServices() {
        for (int i = 0; i < INGESTS; i++) {
            ingestPorts[i] = freePort();
            start(ingestName(i));
        }
        for (int i = 0; i < WORKERS; i++) {
            start(workerName(i));
        }
        start("result-reconciler");
        nginx = Nginx.start(runner, settings.root(), settings.work().resolve("nginx"),
                NginxConfig.roundRobin(List.of(ingestPorts[0], ingestPorts[1])));
    }

    static String ingestName(int i) {
        return "ingest-" + i;
    }

    static String workerName(int i) {
        return "worker-" + i;
    }

    /**
     * Starts (or starts again) a service and waits until it logs that it started; one that exits during startup (the
     * database or the broker may be restarting) is started again, up to five times.
     */
    void start(String name) {
        for (int attempt = 1; ; attempt++) {
            int generation = generations.merge(name, 1, Integer::sum);
            ChildProcess process = launch(name, generation);
            services.put(name, process);
            try {
                process.awaitLine(Pattern.compile("event=started service="), START_TIMEOUT);
                return;
            } catch (IllegalStateException e) {
                if (process.isAlive() || attempt == 5) {
                    throw e;
                }
                ChildProcess.sleep(3_000);
            }
        }
    }

    private ChildProcess launch(String name, int generation) {
        String logName = generation == 1 ? name : name + "." + generation;
        Map<String, String> env = serviceEnv(name);
        if (name.startsWith("ingest-")) {
            env.put("HTTP_PORT", Integer.toString(ingestPorts[Integer.parseInt(name.substring(7))]));
            return runner.service(logName, "ingest-service", "dev.onejob.ingest.IngestMain", jvmArgs(), env);
        }
        if (name.startsWith("worker-")) {
            return runner.service(logName, "attempt-worker", "dev.onejob.worker.WorkerMain", jvmArgs(), env);
        }
        env.put("STREAMS_STATE_DIR", settings.work().resolve("streams").toString());
        return runner.service(logName, "result-reconciler", "dev.onejob.reconciler.ReconcilerMain", jvmArgs(), env);
    }

    private Map<String, String> serviceEnv(String name) {
        Map<String, String> env = new HashMap<>(ServiceEnv.of(database.server(), database.name(),
                kafkaCluster != null ? kafkaCluster.bootstrapServers() : broker.bootstrapServers(), files,
                providerEnv(), "chaos-" + name));
        env.put(Env.KAFKA_MAX_POLL_INTERVAL_MS, Long.toString(ChaosSettings.MAX_POLL_INTERVAL.toMillis()));
        if (kafkaCluster != null) {
            KafkaPrincipals.Services services = KafkaPrincipals.NONE.services();
            env.putAll(kafkaCluster.clientEnv(name.startsWith("ingest-") ? services.ingest()
                    : name.startsWith("worker-") ? services.worker() : services.reconciler()));
            env.put(Env.KAFKA_PRINCIPALS_FILE, principalsFile.toString());
        }
        return env;
    }

    /**
     * On the cluster: the services as the default principals, owners taken from the producing principal, and the
     * load generator's upstream as a producer that may submit for every owner of the run.
     */
    private static KafkaPrincipals principals() {
        return new KafkaPrincipals(KafkaPrincipals.OwnerFrom.PRINCIPAL, KafkaPrincipals.NONE.services(), List.of(),
                Map.of(UPSTREAM, new java.util.LinkedHashSet<>(ChaosFiles.OWNERS)));
    }

    private Path writePrincipals() {
        Path file = settings.work().resolve("config/kafka-principals.yaml");
        try {
            java.nio.file.Files.createDirectories(file.getParent());
            java.nio.file.Files.writeString(file, "owner_from: principal\nproducers:\n  " + UPSTREAM + ": ["
                    + String.join(", ", ChaosFiles.OWNERS) + "]\n");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
        return file;
    }

    /** How the run's own clients reach Kafka: anonymous on one broker, admin and the upstream's principal on three. */
    KafkaAccess kafka() {
        if (kafkaCluster == null) {
            return KafkaAccess.plaintext(broker.bootstrapServers());
        }
        return new KafkaAccess(kafkaCluster.adminConfig(), kafkaCluster.clientConfig(UPSTREAM),
                KafkaPrincipals.requestTopic(UPSTREAM),
                List.of(dev.onejob.core.kafka.Topics.JOB_REQUEST_OUTCOMES.name(),
                        KafkaPrincipals.outcomesTopic(UPSTREAM)));
    }

    /** The three brokers, or null on one. */
    KafkaCluster kafkaCluster() {
        return kafkaCluster;
    }

    ChildProcess process(String name) {
        return services.get(name);
    }

    KafkaBroker broker() {
        return broker;
    }

    /** Env for in-process helpers (certification) that need the providers file's variables. */
    Map<String, String> providerEnv() {
        return ServiceEnv.providers(primaryUrl, backupUrl, ChaosFiles.API_KEY);
    }

    URI api() {
        return URI.create(nginx.url());
    }

    Nginx nginx() {
        return nginx;
    }

    /** The primary provider refuses connections for {@code duration} (its control port answers at once). */
    void providerOutage(Duration duration) {
        post(primaryControl + "/outage?ms=" + duration.toMillis());
    }

    /** The primary provider refuses every call with 429 for {@code duration} (a rate-limit storm). */
    void rateLimitStorm(Duration duration) {
        post(primaryControl + "/storm?ms=" + duration.toMillis());
    }

    /** Saves each simulator's ledger ({@code GET /_sim/ledger}) as {@code ledger-<name>.json}; returns the files. */
    List<Path> saveLedgers() {
        List<Path> saved = new ArrayList<>();
        for (Map.Entry<String, String> sim : Map.of("primary", primaryUrl, "backup", backupUrl).entrySet()) {
            Path file = settings.work().resolve("ledger-" + sim.getKey() + ".json");
            try {
                HttpResponse<Path> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create(sim.getValue() + "/_sim/ledger")).GET().build(), HttpResponse.BodyHandlers.ofFile(file));
                if (response.statusCode() != 200) {
                    throw new IllegalStateException("the " + sim.getKey() + " simulator's ledger answered "
                            + response.statusCode());
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the " + sim.getKey() + " simulator's ledger", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
            saved.add(file);
        }
        return saved;
    }

    private static void post(String url) {
        try {
            HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url))
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() / 100 != 2) {
                throw new IllegalStateException(url + " answered " + response.statusCode() + ": " + response.body());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot call " + url, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static List<String> jvmArgs() {
        return List.of("-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Dsun.net.httpserver.nodelay=true");
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }

    /** Stops nginx, the services (SIGTERM, then kill) and the simulators; the broker stays, for the checker. */
    void stopPipeline() {
        if (nginx != null) {
            nginx.close();
        }
        for (String name : List.of("result-reconciler", workerName(2), workerName(1), workerName(0), ingestName(1),
                ingestName(0), "sim-backup", "sim-primary")) {
            ChildProcess process = services.get(name);
            if (process != null) {
                process.close();
            }
        }
    }

    /** Stops everything, the broker last. */
    @Override
    public void close() {
        stopPipeline();
        if (broker != null) {
            broker.close();
        }
        if (kafkaCluster != null) {
            kafkaCluster.close();
        }
    }
}
