package dev.onejob.chaos;

import dev.onejob.chaos.infra.KafkaCluster;
import dev.onejob.chaos.infra.Nginx;
import dev.onejob.chaos.infra.NginxConfig;
import dev.onejob.core.config.Env;
import dev.onejob.core.db.DatabaseConfig;
import dev.onejob.core.kafka.KafkaPrincipals;
import dev.onejob.infra.PostgresServer;
import dev.onejob.infra.RunFiles;
import dev.onejob.infra.ScratchDatabase;
import dev.onejob.infra.ServiceEnv;
import dev.onejob.infra.proc.ChildProcess;
import dev.onejob.infra.proc.ProcessRunner;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * The pipeline as {@code ./onejob cluster} runs it, every part its own process: a scratch database on the PostgreSQL
 * server of {@code DATABASE_URL} (default 127.0.0.1:5432), a three-node authenticated {@link KafkaCluster} with
 * onejob's topics and ACLs, two provider simulators ({@code primary} on the OpenAI wire, {@code backup} on the
 * Anthropic wire, both certified), two ingest instances behind nginx, and the workers and reconcilers asked for.
 * Each service authenticates to Kafka as its own principal ({@link #PRINCIPALS}), and owners come from the producing
 * principal. Owns its directory ({@code config/}, {@code kafka/}, {@code logs/}, {@code streams/}, {@code nginx/},
 * {@code dist/}), emptied at start, and every process; {@link #close()} stops them in reverse and drops the
 * database.
 */
public final class ClusterStack implements AutoCloseable {
    public static final String PRODUCER = "demo-producer";
    public static final String ANALYST = "analytics";
    public static final String OPERATOR = "ops";
    public static final List<String> OWNERS = List.of("alice", "bob");
    /** Who authenticates as whom: the default service names, one analyst, one producer that may submit for alice. */
    public static final KafkaPrincipals PRINCIPALS = new KafkaPrincipals(KafkaPrincipals.OwnerFrom.PRINCIPAL,
            KafkaPrincipals.NONE.services(), List.of(ANALYST), Map.of(PRODUCER, Set.of("alice")));
    static final int INGESTS = 2;
    private static final String API_KEY = "sk-onejob-cluster";
    private static final Set<String> OWN_ENTRIES = Set.of("config", "kafka", "logs", "streams", "nginx", "dist");
    private static final Pattern SERVICE_STARTED = Pattern.compile("event=started service=");
    private static final Pattern SIM_STARTED = Pattern.compile("provider simulator '\\S+' started on (http://\\S+)");
    private static final Duration START_TIMEOUT = Duration.ofMinutes(3);
    private static final List<String> JVM_ARGS = List.of("-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
            "-Dsun.net.httpserver.nodelay=true");

    /** How many of each scaled service to run. */
    public record Shape(int workers, int reconcilers) {
        public Shape {
            if (workers < 1 || workers > 8 || reconcilers < 1 || reconcilers > 8) {
                throw new IllegalArgumentException("--workers and --reconcilers take 1 to 8, not " + workers + " and "
                        + reconcilers);
            }
        }
    }

    private final Path root;
    private final Path dir;
    private final Shape shape;
    private final Consumer<String> say;
    private final Map<String, ChildProcess> processes = new LinkedHashMap<>();
    private final Map<String, Integer> ingestPorts = new LinkedHashMap<>();
    private ProcessRunner runner;
    private RunFiles files;
    private ScratchDatabase database;
    private KafkaCluster kafka;
    private Nginx nginx;
    private Map<String, String> providerEnv;

    private ClusterStack(Path root, Path dir, Shape shape, Consumer<String> say) {
        this.root = root;
        this.dir = dir.toAbsolutePath();
        this.shape = shape;
        this.say = say;
    }

    /** Starts everything under {@code dir} from the build in {@code root}; on failure stops what it started. */
    public static ClusterStack start(Path root, Path dir, Shape shape, Map<String, String> env, Consumer<String> say) {
        ClusterStack stack = new ClusterStack(root, dir, shape, say);
        try {
            stack.startAll(env);
            return stack;
        } catch (RuntimeException e) {
            stack.close();
            throw e;
        }
    }

    private void startAll(Map<String, String> env) {
        emptyDir();
        runner = new ProcessRunner(root, "chaos", dir.resolve("logs"), dir.resolve("dist"));
        RunFiles.Timeouts timeouts = new RunFiles.Timeouts(Duration.ofSeconds(10), Duration.ofSeconds(120));
        files = RunFiles.write(dir.resolve("config"), root, "cluster", OWNERS, OPERATOR, timeouts, timeouts, true);
        writePrincipalsFile();
        database = scratchDatabase(env);
        say.accept("database " + database.name() + " on " + database.server().serverUrl());
        say.accept("starting 3 Kafka nodes (format, start, quorum; a minute or two on two cores)");
        kafka = new KafkaCluster(runner, dir.resolve("kafka"), 3, PRINCIPALS.allNames());
        kafka.start();
        kafka.setup(PRINCIPALS);
        say.accept("Kafka is up with onejob's topics and ACLs; starting the provider simulators");
        String primary = simulator("sim-primary", "primary");
        String backup = simulator("sim-backup", "backup");
        providerEnv = ServiceEnv.providers(primary, backup, API_KEY);
        ProviderCertification.certifyAll(database, files, providerEnv, say);
        say.accept("starting the services: ingest x " + INGESTS + ", attempt-worker x " + shape.workers()
                + ", result-reconciler x " + shape.reconcilers());
        List<String> names = new ArrayList<>();
        for (int i = 0; i < INGESTS; i++) {
            ingestPorts.put("ingest-" + i, freePort());
            names.add("ingest-" + i);
        }
        for (int i = 0; i < shape.workers(); i++) {
            names.add("worker-" + i);
        }
        for (int i = 0; i < shape.reconcilers(); i++) {
            names.add("reconciler-" + i);
        }
        names.forEach(name -> processes.put(name, launch(name, 1)));
        names.forEach(this::awaitStarted);
        nginx = Nginx.start(runner, root, dir.resolve("nginx"), NginxConfig.roundRobin(List.copyOf(ingestPorts.values())));
    }

    /** Refuses to empty a directory that holds anything this stack did not put there. */
    private void emptyDir() {
        try {
            if (Files.isDirectory(dir)) {
                try (var entries = Files.list(dir)) {
                    List<Path> foreign = entries.filter(p -> !OWN_ENTRIES.contains(p.getFileName().toString())).toList();
                    if (!foreign.isEmpty()) {
                        throw new IllegalStateException(dir + " holds files ./onejob cluster did not write ("
                                + foreign.get(0).getFileName() + "); choose another ONEJOB_DATA_DIR");
                    }
                }
                try (var paths = Files.walk(dir)) {
                    for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                        Files.delete(path);
                    }
                }
            }
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot empty " + dir, e);
        }
    }

    private void writePrincipalsFile() {
        KafkaPrincipals.Services services = PRINCIPALS.services();
        StringBuilder producers = new StringBuilder();
        PRINCIPALS.producers().forEach((user, owners) ->
                producers.append("  ").append(user).append(": [").append(String.join(", ", owners)).append("]\n"));
        String text = """
                # Written by ./onejob cluster: who authenticates as whom (docs/security.md).
                owner_from: principal
                services: {ingest: %s, worker: %s, reconciler: %s}
                analysts: [%s]
                producers:
                %s""".formatted(services.ingest(), services.worker(), services.reconciler(),
                String.join(", ", PRINCIPALS.analysts()), producers);
        try {
            Files.writeString(principalsFile(), text);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + principalsFile(), e);
        }
    }

    private static ScratchDatabase scratchDatabase(Map<String, String> env) {
        Map<String, String> withDefault = new HashMap<>(env);
        withDefault.putIfAbsent(Env.DATABASE_URL, PostgresServer.DEFAULT_URL);
        DatabaseConfig given = DatabaseConfig.fromEnv(withDefault);
        return ScratchDatabase.create(PostgresServer.at(given.jdbcUrl(), given.user(), given.password()),
                "onejob_cluster_" + ProcessHandle.current().pid(), false);
    }

    private String simulator(String name, String simName) {
        Map<String, String> env = Map.of("SIM_PORT", Integer.toString(freePort()), "SIM_NAME", simName,
                "SIM_API_KEY", API_KEY);
        ChildProcess process = runner.service(name, "provider-simulator", "dev.onejob.simulator.ProviderSimulatorMain",
                JVM_ARGS, env);
        processes.put(name, process);
        return process.awaitLine(SIM_STARTED, START_TIMEOUT).group(1);
    }

    private ChildProcess launch(String name, int generation) {
        String logName = generation == 1 ? name : name + "." + generation;
        Map<String, String> env = serviceEnv(name);
        if (name.startsWith("ingest-")) {
            env.put(Env.HTTP_PORT, Integer.toString(ingestPorts.get(name)));
            return runner.service(logName, "ingest-service", "dev.onejob.ingest.IngestMain", JVM_ARGS, env);
        }
        if (name.startsWith("worker-")) {
            return runner.service(logName, "attempt-worker", "dev.onejob.worker.WorkerMain", JVM_ARGS, env);
        }
        env.put(Env.STREAMS_STATE_DIR, dir.resolve("streams").resolve(name).toString());
        return runner.service(logName, "result-reconciler", "dev.onejob.reconciler.ReconcilerMain", JVM_ARGS, env);
    }

    /** The database, the run's files, the providers, and Kafka as the service's own principal. */
    private Map<String, String> serviceEnv(String name) {
        KafkaPrincipals.Services services = PRINCIPALS.services();
        String principal = name.startsWith("ingest-") ? services.ingest()
                : name.startsWith("worker-") ? services.worker() : services.reconciler();
        Map<String, String> env = new HashMap<>(ServiceEnv.of(database.server(), database.name(),
                kafka.bootstrapServers(), files, providerEnv, "cluster-" + name));
        env.putAll(kafka.clientEnv(principal));
        env.put(Env.KAFKA_PRINCIPALS_FILE, principalsFile().toString());
        return env;
    }

    /** Waits until the service logs that it started; one that exited during startup is started again, twice at most. */
    private void awaitStarted(String name) {
        for (int generation = 1; ; generation++) {
            ChildProcess process = processes.get(name);
            try {
                process.awaitLine(SERVICE_STARTED, START_TIMEOUT);
                return;
            } catch (IllegalStateException e) {
                if (process.isAlive() || generation == 3) {
                    throw e;
                }
                say.accept(name + " exited while starting; starting it again (" + process.log() + ")");
                processes.put(name, launch(name, generation + 1));
            }
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }

    /** The API through nginx: {@code http://127.0.0.1:<port>}. */
    public String apiUrl() {
        return nginx.url();
    }

    /** The ingest instances' HTTP ports by name, in order. */
    public Map<String, Integer> ingestPorts() {
        return Collections.unmodifiableMap(new LinkedHashMap<>(ingestPorts));
    }

    public KafkaCluster kafka() {
        return kafka;
    }

    public RunFiles files() {
        return files;
    }

    public ScratchDatabase database() {
        return database;
    }

    public Path principalsFile() {
        return dir.resolve("config").resolve("kafka-principals.yaml");
    }

    public Path logs() {
        return dir.resolve("logs");
    }

    /** The running processes by name (simulators, services), in the order they were started. */
    public Map<String, ChildProcess> processes() {
        return Collections.unmodifiableMap(new LinkedHashMap<>(processes));
    }

    /** nginx, the services and simulators (in reverse), Kafka, then the database. */
    @Override
    public void close() {
        if (nginx != null) {
            nginx.close();
        }
        List<ChildProcess> started = new ArrayList<>(processes.values());
        for (int i = started.size() - 1; i >= 0; i--) {
            started.get(i).close();
        }
        if (kafka != null) {
            kafka.close();
        }
        if (database != null) {
            database.close();
        }
    }
}
