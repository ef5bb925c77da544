package dev.onejob.infra.proc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Starts the processes of a run driven from one module (the benchmark, the chaos run): the services (from their
 * runnable jars when they were built with {@code mvn package}, else from the driver module's classpath with their
 * main class), the driver's own helper JVMs, and tools (pgbench, jcmd, nginx). Every process writes stdout and
 * stderr to {@code <logs>/<name>.log}.
 */
public final class ProcessRunner {
    /** A finished tool run: its exit status and everything it printed. */
    public record Completed(int exitCode, String output) {
    }

    private final Path root;
    private final Path logs;
    private final String module;
    private final String classpath;

    /**
     * Snapshots what the run's processes load into {@code dist} first: the service jars with their {@code lib}, the
     * driver {@code module}'s classes and every onejob jar on its classpath files. Other builds in the same checkout
     * (or {@code mvn install}) may rewrite those files while a JVM of the run still loads classes from them.
     */
    public ProcessRunner(Path root, String module, Path logs, Path dist) {
        this.logs = logs;
        this.module = module;
        try {
            Files.createDirectories(logs);
            this.root = Snapshot.take(root, module, dist);
            Path classpathFile = this.root.resolve(module + "/target/classpath.txt");
            this.classpath = this.root.resolve(module + "/target/classes") + ":"
                    + Files.readString(classpathFile).trim();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot snapshot the build under " + root
                    + " (build with mvn -B -DskipTests install first)", e);
        }
    }

    public Path logs() {
        return logs;
    }

    public String classpath() {
        return classpath;
    }

    public static String javaTool(String tool) {
        return Path.of(System.getProperty("java.home"), "bin", tool).toString();
    }

    public ChildProcess start(String name, List<String> command, Map<String, String> env) {
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().putAll(env);
        builder.directory(logs.toFile());
        Path log = logs.resolve(name + ".log");
        builder.redirectErrorStream(true);
        builder.redirectOutput(log.toFile());
        try {
            return new ChildProcess(name, builder.start(), log);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name + ": " + command.get(0), e);
        }
    }

    /** A JVM running {@code mainClass} from this module's classpath. */
    public ChildProcess java(String name, List<String> jvmArgs, String mainClass, List<String> args,
                             Map<String, String> env) {
        return java(name, jvmArgs, classpath, mainClass, args, env);
    }

    /**
     * A JVM running {@code mainClass} from the driver module's classpath plus the one in its {@code target/<file>}
     * (e.g. a peer's provided-scope dependencies).
     */
    public ChildProcess javaWithExtraClasspath(String name, List<String> jvmArgs, String classpathFile,
                                               String mainClass, List<String> args, Map<String, String> env) {
        Path file = root.resolve(module + "/target").resolve(classpathFile);
        try {
            String extra = Files.readString(file).trim();
            return java(name, jvmArgs, classpath + ":" + extra, mainClass, args, env);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + " (build with mvn package)", e);
        }
    }

    private ChildProcess java(String name, List<String> jvmArgs, String path, String mainClass, List<String> args,
                              Map<String, String> env) {
        List<String> command = new ArrayList<>();
        command.add(javaTool("java"));
        command.addAll(jvmArgs);
        command.add("-cp");
        command.add(path);
        command.add(mainClass);
        command.addAll(args);
        return start(name, command, env);
    }

    /** A service from {@code <module>/target/onejob-<module>-<version>.jar}, or from this classpath if it was not built. */
    public ChildProcess service(String name, String module, String mainClass, List<String> jvmArgs,
                                Map<String, String> env) {
        Path jar = serviceJar(module);
        if (jar == null) {
            return java(name, jvmArgs, mainClass, List.of(), env);
        }
        List<String> command = new ArrayList<>();
        command.add(javaTool("java"));
        command.addAll(jvmArgs);
        command.add("-jar");
        command.add(jar.toString());
        return start(name, command, env);
    }

    /** The module's runnable jar when it and its {@code target/lib} exist, else null. */
    public Path serviceJar(String module) {
        Path target = root.resolve(module).resolve("target");
        Path jar = target.resolve("onejob-" + module + "-0.1.0-SNAPSHOT.jar");
        return Files.isRegularFile(jar) && Files.isDirectory(target.resolve("lib")) ? jar : null;
    }

    /** Runs a tool to the end (or kills it at the timeout) and returns what it printed. */
    public Completed run(String name, List<String> command, Map<String, String> env, Duration timeout) {
        ChildProcess process = start(name, command, env);
        int exit = process.waitFor(timeout);
        return new Completed(exit, String.join("\n", process.lines()));
    }
}
