package dev.onejob.stack;

import dev.onejob.core.config.Env;
import dev.onejob.core.db.DatabaseConfig;
import dev.onejob.core.kafka.KafkaPrincipals;
import dev.onejob.core.service.Closeables;
import dev.onejob.infra.PostgresServer;
import dev.onejob.infra.RunFiles;
import dev.onejob.infra.ScratchDatabase;
import dev.onejob.infra.proc.ChildProcess;
import dev.onejob.infra.proc.ProcessRunner;
import dev.onejob.stack.infra.KafkaCluster;
import dev.onejob.stack.infra.LoopbackPorts;
import dev.onejob.stack.infra.Nginx;
import dev.onejob.stack.infra.NginxConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
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
 * onejob's topics and ACLs ({@link StackKafka}), two provider simulators ({@code primary} on the OpenAI wire,
 * {@code backup} on the Anthropic wire, both certified), two ingest instances behind nginx, and the workers and
 * reconcilers asked for ({@link ServiceProcesses}). Each service authenticates to Kafka as its own principal
 * ({@link #PRINCIPALS}), and owners come from the producing principal. Owns its directory ({@code config/},
 * {@code kafka/}, {@code logs/}, {@code streams/}, {@code nginx/}, {@code dist/}), emptied at start, and every
 * process; {@link #close()} stops them in reverse and drops the database.
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
    private static final Pattern SIM_STARTED = Pattern.compile("provider simulator '\\S+' started on (http://\\S+)");
    private static final Duration START_TIMEOUT = Duration.ofMinutes(3);
    private static final List<String> JVM_ARGS = ServiceProcesses.SMALL_JVM;

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
    private final Map<String, Integer> ingestPorts = new LinkedHashMap<>();
    private ServiceProcesses processes;
    private RunFiles files;
    private ScratchDatabase database;
    private StackKafka kafka;
    private Nginx nginx;
    private Map<String, String> providerEnv;

    private ClusterStack(Path root, Path dir, Shape shape, Consumer<String> say) {
        this.root = root;
        this.dir = dir.toAbsolutePath();
        this.shape = shape;
        this.say = say;
    }

    /**
     * Starts everything under {@code dir} from the build in {@code root}, the helper JVMs (Kafka's nodes) from the
     * classpath of {@code module}; on failure stops what it started.
     */
    public static ClusterStack start(Path root, String module, Path dir, Shape shape, Map<String, String> env,
                                     Consumer<String> say) {
        ClusterStack stack = new ClusterStack(root, dir, shape, say);
        try {
            stack.startAll(module, env);
            return stack;
        } catch (RuntimeException e) {
            stack.close();
            throw e;
        }
    }

    private void startAll(String module, Map<String, String> env) {
        emptyDir();
        ProcessRunner runner = new ProcessRunner(root, module, dir.resolve("logs"), dir.resolve("dist"));
        processes = new ServiceProcesses(runner, new ServiceProcesses.Options(START_TIMEOUT, 3, Duration.ZERO, true),
                this::serviceEnv, logName -> JVM_ARGS, new ServiceProcesses.Events() {
                    @Override
                    public void restarting(String name, ChildProcess exited, IllegalStateException failure) {
                        say.accept(name + " exited while starting; starting it again (" + exited.log() + ")");
                    }
                });
        RunFiles.Timeouts timeouts = new RunFiles.Timeouts(Duration.ofSeconds(10), Duration.ofSeconds(120));
        files = RunFiles.write(dir.resolve("config"), root, "cluster", OWNERS, OPERATOR, timeouts, timeouts, true);
        database = scratchDatabase(env);
        say.accept("database " + database.name() + " on " + database.server().serverUrl());
        say.accept("starting 3 Kafka nodes (format, start, quorum; a minute or two on two cores)");
        kafka = StackKafka.authenticated(runner, dir.resolve("kafka"), 3, PRINCIPALS, principalsFile(),
                "Written by ./onejob cluster: who authenticates as whom (docs/security.md).");
        say.accept("Kafka is up with onejob's topics and ACLs; starting the provider simulators");
        String primary = simulator("sim-primary", "primary");
        String backup = simulator("sim-backup", "backup");
        providerEnv = ServiceEnv.providers(primary, backup, API_KEY);
        ProviderCertification.certifyAll(database, files, providerEnv, say);
        say.accept("starting the services: ingest x " + INGESTS + ", attempt-worker x " + shape.workers()
                + ", result-reconciler x " + shape.reconcilers());
        List<String> names = new ArrayList<>();
        for (int i = 0; i < INGESTS; i++) {
            ingestPorts.put("ingest-" + i, LoopbackPorts.free());
            add(names, "ingest-" + i, Role.INGEST);
        }
        for (int i = 0; i < shape.workers(); i++) {
            add(names, "worker-" + i, Role.WORKER);
        }
        for (int i = 0; i < shape.reconcilers(); i++) {
            add(names, "reconciler-" + i, Role.RECONCILER);
        }
        names.forEach(processes::launch);
        names.forEach(processes::awaitStarted);
        nginx = Nginx.start(runner, root, dir.resolve("nginx"),
                NginxConfig.roundRobin(List.copyOf(ingestPorts.values())));
    }

    private void add(List<String> names, String name, Role role) {
        processes.add(name, role);
        names.add(name);
    }

    /** Refuses to empty a directory that holds anything this stack did not put there. */
    private void emptyDir() {
        try {
            if (Files.isDirectory(dir)) {
                try (var entries = Files.list(dir)) {
                    List<Path> foreign = entries.filter(p -> !OWN_ENTRIES.contains(p.getFileName().toString()))
                            .toList();
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

    private static ScratchDatabase scratchDatabase(Map<String, String> env) {
        Map<String, String> withDefault = new HashMap<>(env);
        withDefault.putIfAbsent(Env.DATABASE_URL, PostgresServer.DEFAULT_URL);
        DatabaseConfig given = DatabaseConfig.fromEnv(withDefault);
        return ScratchDatabase.create(PostgresServer.at(given.jdbcUrl(), given.user(), given.password()),
                "onejob_cluster_" + ProcessHandle.current().pid(), false);
    }

    private String simulator(String name, String simName) {
        ChildProcess process = processes.runner().service(name, "provider-simulator",
                "dev.onejob.simulator.ProviderSimulatorMain", JVM_ARGS,
                ServiceEnv.simulator(simName, LoopbackPorts.free(), API_KEY));
        processes.track(name, process);
        return process.awaitLine(SIM_STARTED, START_TIMEOUT).group(1);
    }

    /** The database, the run's files, the providers, and Kafka as the service's own principal. */
    private Map<String, String> serviceEnv(String name, Role role) {
        Map<String, String> env = new HashMap<>(ServiceEnv.of(database.server(), database.name(),
                kafka.bootstrapServers(), files, ServiceEnv.forRole(role, providerEnv), "cluster-" + name));
        env.putAll(kafka.serviceEnv(role));
        if (role == Role.INGEST) {
            env.put(Env.HTTP_PORT, Integer.toString(ingestPorts.get(name)));
        } else if (role == Role.RECONCILER) {
            env.put(Env.STREAMS_STATE_DIR, dir.resolve("streams").resolve(name).toString());
        }
        return env;
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
        return kafka.cluster();
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
        return Collections.unmodifiableMap(processes.processes());
    }

    /** nginx, the services and simulators (in reverse), Kafka, then the database. */
    @Override
    public void close() {
        Closeables.closeInOrder(nginx, processes, kafka, database);
    }
}
