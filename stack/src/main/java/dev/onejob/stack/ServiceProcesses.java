package dev.onejob.stack;

import dev.onejob.infra.proc.ChildProcess;
import dev.onejob.infra.proc.ProcessRunner;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The pipeline's services as child processes, each started the way docs/operations.md documents (its runnable jar,
 * else its main class on the driver module's classpath) so each can be killed, frozen and started again: the one
 * place the benchmark, the chaos run and {@code ./onejob cluster} launch a service. Consumes each instance's name and
 * {@link Role}, its environment and JVM arguments (from the caller, built with {@link ServiceEnv}); produces the
 * running processes by name. A service counts as started when it logs {@code event=started service=}; one that
 * exits while starting (the database or the broker may be restarting, PostgreSQL may be out of connections) is
 * started again, up to {@link Options#startAttempts()} times. Other processes of the run (the simulators) may be
 * {@link #track tracked} here too. Owns every process; {@link #close()} stops them in reverse.
 */
public final class ServiceProcesses implements AutoCloseable {
    /**
     * One service's JVM as deployed (docs/operations.md, "Memory"; the compose file's JAVA_TOOL_OPTIONS, the
     * benchmark): a 256 MiB heap, metaspace and code cache bounded, so a service stays under 512 MiB RSS with
     * thousands of calls in flight; the JVM's default (a quarter of the machine) let it grow past that.
     */
    public static final List<String> SERVICE_JVM = List.of("-Xms64m", "-Xmx256m", "-XX:MaxMetaspaceSize=128m",
            "-XX:ReservedCodeCacheSize=64m");
    /** Small heaps, the serial collector and C1 only: a dozen JVMs share two cores in the chaos run and the cluster. */
    public static final List<String> SMALL_JVM = List.of("-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
            "-Dsun.net.httpserver.nodelay=true");
    private static final Pattern STARTED = Pattern.compile("event=started service=");

    /**
     * How services start: the wait for "started", how many launches before giving up, the pause between them, and
     * whether a service launched again logs to {@code <name>.<generation>.log} (else it keeps its name).
     */
    public record Options(Duration startTimeout, int startAttempts, Duration retryPause, boolean numberGenerations) {
    }

    /** What the caller hears: every launch, and every restart of a service that exited while starting. */
    public interface Events {
        Events NONE = new Events() {
        };

        default void launched(ChildProcess process) {
        }

        default void restarting(String name, ChildProcess exited, IllegalStateException failure) {
        }
    }

    private final ProcessRunner runner;
    private final Options options;
    private final BiFunction<String, Role, Map<String, String>> env;
    private final Function<String, List<String>> jvmArgs;
    private final Events events;
    private final Map<String, Role> roles = new ConcurrentHashMap<>();
    private final Map<String, Integer> generations = new ConcurrentHashMap<>();
    private final Map<String, ChildProcess> processes = new ConcurrentHashMap<>();
    private final List<String> order = Collections.synchronizedList(new ArrayList<>());

    /**
     * {@code env}: the environment of the instance of that name and role; {@code jvmArgs}: the JVM arguments of a
     * process by its log name.
     */
    public ServiceProcesses(ProcessRunner runner, Options options, BiFunction<String, Role, Map<String, String>> env,
                            Function<String, List<String>> jvmArgs, Events events) {
        this.runner = runner;
        this.options = options;
        this.env = env;
        this.jvmArgs = jvmArgs;
        this.events = events;
    }

    public ProcessRunner runner() {
        return runner;
    }

    /** Names an instance of {@code role}; it runs only once {@link #launch launched}. */
    public void add(String name, Role role) {
        roles.put(name, role);
    }

    /** Launches the named instance (again: a new generation) without waiting for it. */
    public ChildProcess launch(String name) {
        Role role = roles.get(name);
        if (role == null) {
            throw new IllegalArgumentException("no service named " + name);
        }
        int generation = generations.merge(name, 1, Integer::sum);
        String logName = generation == 1 || !options.numberGenerations() ? name : name + "." + generation;
        ChildProcess process = runner.service(logName, role.module(), role.mainClass(), jvmArgs.apply(logName),
                env.apply(name, role));
        track(name, process);
        events.launched(process);
        return process;
    }

    /** Waits until the named instance started, launching it again when it exited while starting. */
    public ChildProcess awaitStarted(String name) {
        for (int attempt = 1; ; attempt++) {
            ChildProcess process = processes.get(name);
            try {
                process.awaitLine(STARTED, options.startTimeout());
                return process;
            } catch (IllegalStateException e) {
                if (process.isAlive() || attempt >= options.startAttempts()) {
                    throw e;
                }
                events.restarting(name, process, e);
                process.close();
                ChildProcess.sleep(options.retryPause().toMillis());
                launch(name);
            }
        }
    }

    /** Launches the named instance and waits until it started. */
    public ChildProcess start(String name) {
        launch(name);
        return awaitStarted(name);
    }

    /** Adds a process of the run that is not a service (a simulator), so it is listed and closed with the rest. */
    public void track(String name, ChildProcess process) {
        if (processes.put(name, process) == null) {
            order.add(name);
        }
    }

    /** The process running under that name now, or null. */
    public ChildProcess process(String name) {
        return processes.get(name);
    }

    /** Stops the named process (SIGTERM, then kill) and forgets it; a service can be launched again. */
    public void stop(String name) {
        ChildProcess process = processes.remove(name);
        order.remove(name);
        if (process != null) {
            process.close();
        }
    }

    /** The processes by name, in the order they were first started. */
    public Map<String, ChildProcess> processes() {
        Map<String, ChildProcess> byName = new LinkedHashMap<>();
        synchronized (order) {
            order.forEach(name -> byName.put(name, processes.get(name)));
        }
        return byName;
    }

    /** Stops every process, the last started first. */
    @Override
    public void close() {
        List<String> names;
        synchronized (order) {
            names = new ArrayList<>(order);
        }
        for (int i = names.size() - 1; i >= 0; i--) {
            stop(names.get(i));
        }
    }
}
