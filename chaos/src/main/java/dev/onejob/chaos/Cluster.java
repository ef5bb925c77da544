package dev.onejob.chaos;

import dev.onejob.core.config.Env;
import dev.onejob.core.kafka.KafkaPrincipals;
import dev.onejob.core.kafka.Topics;
import dev.onejob.infra.RunFiles;
import dev.onejob.infra.ScratchDatabase;
import dev.onejob.infra.proc.ChildProcess;
import dev.onejob.infra.proc.ProcessRunner;
import dev.onejob.stack.Role;
import dev.onejob.stack.ServiceEnv;
import dev.onejob.stack.ServiceProcesses;
import dev.onejob.stack.StackKafka;
import dev.onejob.stack.infra.KafkaBroker;
import dev.onejob.stack.infra.KafkaCluster;
import dev.onejob.stack.infra.LoopbackPorts;
import dev.onejob.stack.infra.Nginx;
import dev.onejob.stack.infra.NginxConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The pipeline as the chaos run runs it, on the stack kit ({@link ServiceProcesses}, {@link StackKafka}, nginx), each
 * part its own process so each can be killed: Apache Kafka (one KRaft node, or three authenticated ones), two
 * provider simulators with the seeded fault plan ({@code primary} on the OpenAI wire, {@code backup} on the
 * Anthropic wire), two ingest-service instances behind nginx (round robin, retrying a timed-out or failed request on
 * the other, POSTs included), two attempt workers in one consumer group and the result reconciler. Owns every
 * process; {@link #close()} stops them in reverse.
 */
final class Cluster implements AutoCloseable {
    static final int INGESTS = 2;
    static final int WORKERS = 2;
    /** The load generator's principal on the cluster: it may submit for every owner of the run. */
    static final String UPSTREAM = "chaos-upstream";
    private static final Pattern SIM_STARTED = Pattern.compile("event=started .*url=(http://\\S+) control=(http://\\S+)");
    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

    private final ChaosSettings settings;
    private final ServiceProcesses services;
    private final RunFiles files;
    private final ScratchDatabase database;
    private final Map<String, Integer> ingestPorts = new ConcurrentHashMap<>();
    private StackKafka kafka;
    private Nginx nginx;
    private String primaryUrl;
    private String backupUrl;
    private String primaryControl;
    private String backupControl;

    Cluster(ChaosSettings settings, ProcessRunner runner, RunFiles files, ScratchDatabase database) {
        this.settings = settings;
        this.files = files;
        this.database = database;
        this.services = new ServiceProcesses(runner, new ServiceProcesses.Options(START_TIMEOUT, 5,
                Duration.ofSeconds(3), true), this::serviceEnv, logName -> ServiceProcesses.SMALL_JVM,
                ServiceProcesses.Events.NONE);
    }

    void startBrokerAndSimulators() {
        Path dir = settings.work().resolve("kafka");
        kafka = settings.brokers() > 1
                ? StackKafka.authenticated(services.runner(), dir, settings.brokers(), principals(),
                        settings.work().resolve("config/kafka-principals.yaml"), "Written by the chaos run.")
                : StackKafka.oneBroker(services.runner(), dir);
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
        Map<String, String> env = ServiceEnv.simulator(simName, 0, ChaosFiles.API_KEY);
        env.put("CHAOS_SEED", Long.toString(seed));
        env.put("CHAOS_FAULTS", "false");
        env.put("CHAOS_LATE_ANSWER_MS", Long.toString(ChaosSettings.LATE_ANSWER.toMillis()));
        env.put("CHAOS_LONG_STREAM_MS", Long.toString(settings.longStream().toMillis()));
        ChildProcess process = services.runner().java(name, ServiceProcesses.SMALL_JVM,
                "dev.onejob.chaos.sim.ChaosSimulatorMain", List.of(), env);
        services.track(name, process);
        return process;
    }

    /** Ingest instances, workers and reconciler, one after the other (each applies the migrations at start), then nginx. */
    void startServices() {
        for (int i = 0; i < INGESTS; i++) {
            ingestPorts.put(ingestName(i), LoopbackPorts.free());
            start(ingestName(i));
        }
        for (int i = 0; i < WORKERS; i++) {
            start(workerName(i));
        }
        start("result-reconciler");
        nginx = Nginx.start(services.runner(), settings.root(), settings.work().resolve("nginx"),
                NginxConfig.roundRobin(List.of(ingestPorts.get(ingestName(0)), ingestPorts.get(ingestName(1)))));
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
        services.add(name, name.startsWith("ingest-") ? Role.INGEST
                : name.startsWith("worker-") ? Role.WORKER : Role.RECONCILER);
        services.start(name);
    }

    private Map<String, String> serviceEnv(String name, Role role) {
        Map<String, String> env = new HashMap<>(ServiceEnv.of(database.server(), database.name(),
                kafka.bootstrapServers(), files, ServiceEnv.forRole(role, providerEnv()), "chaos-" + name));
        env.put(Env.KAFKA_MAX_POLL_INTERVAL_MS, Long.toString(ChaosSettings.MAX_POLL_INTERVAL.toMillis()));
        env.putAll(kafka.serviceEnv(role));
        if (role == Role.INGEST) {
            env.put(Env.HTTP_PORT, Integer.toString(ingestPorts.get(name)));
        } else if (role == Role.RECONCILER) {
            env.put(Env.STREAMS_STATE_DIR, settings.work().resolve("streams").toString());
        }
        return env;
    }

    /**
     * On the cluster: the services as the default principals, owners taken from the producing principal, and the
     * load generator's upstream as a producer that may submit for every owner of the run.
     */
    private static KafkaPrincipals principals() {
        return new KafkaPrincipals(KafkaPrincipals.OwnerFrom.PRINCIPAL, KafkaPrincipals.NONE.services(), List.of(),
                Map.of(UPSTREAM, new LinkedHashSet<>(ChaosFiles.OWNERS)));
    }

    /** How the run's own clients reach Kafka: anonymous on one broker, admin and the upstream's principal on three. */
    KafkaAccess kafka() {
        KafkaCluster cluster = kafka.cluster();
        if (cluster == null) {
            return KafkaAccess.plaintext(kafka.bootstrapServers());
        }
        return new KafkaAccess(cluster.adminConfig(), cluster.clientConfig(UPSTREAM),
                KafkaPrincipals.requestTopic(UPSTREAM),
                List.of(Topics.JOB_REQUEST_OUTCOMES.name(), KafkaPrincipals.outcomesTopic(UPSTREAM)));
    }

    /** The three brokers, or null on one. */
    KafkaCluster kafkaCluster() {
        return kafka.cluster();
    }

    ChildProcess process(String name) {
        return services.process(name);
    }

    KafkaBroker broker() {
        return kafka.broker();
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

    /** Stops nginx, the services (SIGTERM, then kill) and the simulators, in reverse; Kafka stays, for the checker. */
    void stopPipeline() {
        if (nginx != null) {
            nginx.close();
        }
        services.close();
    }

    /** Stops everything, Kafka last. */
    @Override
    public void close() {
        stopPipeline();
        if (kafka != null) {
            kafka.close();
        }
    }
}
