package dev.onejob.infra;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.UserPrincipal;
import java.nio.file.attribute.UserPrincipalNotFoundException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A PostgreSQL cluster of a run's own, so that a harness that restarts its database never restarts a server it did
 * not start: {@code initdb} from the machine's PostgreSQL server binaries into a fresh directory, the server on a
 * free port on 127.0.0.1 only (trust authentication, superuser {@value #SUPERUSER}, its unix socket in that
 * directory), restarted the way a crash would on request ({@link #restartImmediate()}), stopped and deleted on
 * {@link #close()} unless kept. {@code initdb} and {@code postgres} refuse to run as root: as root, every PostgreSQL
 * binary runs as the OS user {@value #OS_USER} (through {@code runuser}, else {@code su}) on a directory owned by
 * it. The server's output and that of every {@code initdb}/{@code pg_ctl} call go to a log file the caller names,
 * opened by this JVM, so it may live where the {@value #OS_USER} user could not write. A shutdown hook stops the
 * server if the JVM exits before {@code close()}.
 */
public final class LocalPostgresCluster implements AutoCloseable {
    /** The cluster's superuser, with trust authentication: no password. */
    public static final String SUPERUSER = "postgres";
    /** The OS user the PostgreSQL binaries run as when this JVM runs as root. */
    static final String OS_USER = "postgres";
    /** The server's settings: small, durable, reachable only from this machine. */
    static final List<String> SETTINGS = List.of("max_connections = 200", "shared_buffers = 64MB", "fsync = on",
            "listen_addresses = '127.0.0.1'");
    static final Path DEBIAN_VERSIONS = Path.of("/usr/lib/postgresql");
    private static final List<String> SERVER_BINARIES = List.of("initdb", "pg_ctl", "postgres");
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(120);
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
    private static final int START_ATTEMPTS = 3;

    private final Path bin;
    private final Path directory;
    private final Path data;
    private final Path log;
    private final RunAs runAs;
    private final boolean keep;
    private final Thread shutdownHook = new Thread(this::stopOnExit, "local-postgres-stop");
    private volatile int port;
    private volatile boolean running;
    private boolean closed;

    private LocalPostgresCluster(Path bin, Path directory, Path log, RunAs runAs, boolean keep) {
        this.bin = bin;
        this.directory = directory;
        this.data = directory.resolve("data");
        this.log = log;
        this.runAs = runAs;
        this.keep = keep;
    }

    /**
     * Creates a cluster in a fresh directory {@code onejob-pg-*} under {@code parent} (as root, the
     * {@value #OS_USER} user must be able to reach it: the system temp directory is a safe choice), starts it and
     * waits until it accepts connections. {@code keep}: {@link #close()} stops the server but leaves the directory.
     * On failure nothing is left running and the directory is gone; the log stays.
     */
    public static LocalPostgresCluster start(Path parent, Path log, boolean keep) {
        Path bin = binaries();
        boolean root = isRoot();
        RunAs runAs = root ? RunAs.osUser(OS_USER) : RunAs.DIRECT;
        Path directory;
        try {
            Files.createDirectories(log.toAbsolutePath().getParent());
            directory = Files.createTempDirectory(parent, "onejob-pg-").toAbsolutePath();
            if (root) {
                Files.setOwner(directory, osUser(directory));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a directory for a PostgreSQL cluster under " + parent, e);
        }
        LocalPostgresCluster cluster = new LocalPostgresCluster(bin, directory, log.toAbsolutePath(), runAs, keep);
        try {
            cluster.initdb();
            cluster.startServer();
        } catch (RuntimeException e) {
            cluster.closeAfterFailure(e);
            throw e;
        }
        return cluster;
    }

    /** The server, for {@link ScratchDatabase}s and service environments: 127.0.0.1, its port, the superuser. */
    public PostgresServer server() {
        return new PostgresServer("jdbc:postgresql://127.0.0.1:" + port, SUPERUSER, null);
    }

    public int port() {
        return port;
    }

    /** The cluster's own directory: the data directory {@code data} and the server's unix socket. */
    public Path directory() {
        return directory;
    }

    public Path dataDirectory() {
        return data;
    }

    public Path log() {
        return log;
    }

    /** How to start a kept cluster again by hand (a shell command line). */
    public String startCommand() {
        return RunAs.shellQuoted(runAs.command(List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(),
                "-l", directory.resolve("postgres.log").toString(), "start")));
    }

    /**
     * Restarts the server the way a crash would ({@code pg_ctl restart -m immediate}: no checkpoint, every client
     * cut off at once, WAL replay on start) and waits until it accepts connections again (at most a minute). Returns
     * the time from issuing the restart to the first connection accepted after it.
     */
    public synchronized Duration restartImmediate() {
        requireRunning();
        long began = System.nanoTime();
        long offset = logSize();
        int exit = pgCtl("-m", "immediate", "restart");
        if (exit != 0) {
            throw failure("pg_ctl restart -m immediate exited with " + exit, offset);
        }
        awaitAccepting(began + READY_TIMEOUT.toNanos(), offset);
        return Duration.ofNanos(System.nanoTime() - began);
    }

    /**
     * Sends {@code signal} ({@code STOP}, {@code CONT}) to the server and every process it started (its backends
     * and background workers), as a frozen host would be: sockets stay open and nothing answers. Not synchronized
     * with the other operations, so a freeze can be ended while one of them waits on the frozen server.
     */
    public void signalAll(String signal) {
        long pid;
        try {
            pid = Long.parseLong(Files.readAllLines(data.resolve("postmaster.pid")).get(0).trim());
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("cannot read the server's pid from " + data + "/postmaster.pid: " + e, e);
        }
        // The server first (so it starts no new backend while its children are stopped), then every child. A
        // child may exit between the listing and the signal (a client disconnected): that is no failure.
        kill(signal, List.of(Long.toString(pid)), false);
        List<String> children = new ArrayList<>();
        ProcessHandle.of(pid).ifPresent(server -> server.descendants()
                .forEach(child -> children.add(Long.toString(child.pid()))));
        if (!children.isEmpty()) {
            kill(signal, children, true);
        }
    }

    private static void kill(String signal, List<String> pids, boolean goneIsFine) {
        List<String> command = new ArrayList<>(List.of("kill", "-" + signal));
        command.addAll(pids);
        try {
            Process kill = new ProcessBuilder(command).redirectErrorStream(true).start();
            boolean done = kill.waitFor(10, TimeUnit.SECONDS);
            String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            boolean onlyGone = output.lines().allMatch(line -> line.contains("No such process"));
            if (!done || kill.exitValue() != 0 && !(goneIsFine && onlyGone)) {
                throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + String.join(" ", command), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted sending " + signal + " to PostgreSQL", e);
        }
    }

    /** Stops the server ({@code -m fast}, then {@code -m immediate} if that fails); the directory stays. */
    public synchronized void stop() {
        if (!running) {
            return;
        }
        if (pgCtl("-m", "fast", "stop") != 0 && pgCtl("-m", "immediate", "stop") != 0) {
            throw failure("pg_ctl stop did not stop the server in " + data, 0);
        }
        running = false;
    }

    /**
     * Stops the server and deletes the directory, unless the cluster was started to be kept. Does not throw, so it
     * cannot hide a run's own failure: a server that would not stop is reported on stderr and left, with its
     * directory, to the shutdown hook.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            stop();
        } catch (RuntimeException e) {
            System.err.println("could not stop the PostgreSQL cluster in " + directory + ": " + e.getMessage());
            return;
        }
        removeShutdownHook();
        if (!keep) {
            delete(directory);
        }
    }

    private void initdb() {
        long offset = logSize();
        int exit = run(List.of(bin.resolve("initdb").toString(), "-D", data.toString(), "-U", SUPERUSER,
                "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync"));
        if (exit != 0) {
            throw failure("initdb exited with " + exit + (runAs == RunAs.DIRECT ? ""
                    : " (running as the OS user " + OS_USER + ", who must be able to reach " + directory + ")"),
                    offset);
        }
        List<String> settings = new ArrayList<>(SETTINGS);
        settings.add("unix_socket_directories = '" + directory.toString().replace("'", "''") + "'");
        appendConf(settings);
    }

    /** Starts on a free port; another process taking that port in between costs a new port, not the run. */
    private void startServer() {
        for (int attempt = 1; ; attempt++) {
            port = freePort();
            appendConf(List.of("port = " + port));
            long offset = logSize();
            int exit = pgCtl("start");
            if (exit == 0) {
                break;
            }
            if (attempt < START_ATTEMPTS && logSince(offset).contains("Address already in use")) {
                continue;
            }
            throw failure("pg_ctl start exited with " + exit, offset);
        }
        running = true;
        Runtime.getRuntime().addShutdownHook(shutdownHook);
        awaitAccepting(System.nanoTime() + READY_TIMEOUT.toNanos(), 0);
    }

    private int pgCtl(String... action) {
        List<String> command = new ArrayList<>(List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(),
                "-w", "-t", Long.toString(READY_TIMEOUT.toSeconds())));
        command.addAll(Arrays.asList(action));
        return run(command);
    }

    /**
     * Runs a PostgreSQL binary (as {@value #OS_USER} when root) in the cluster's directory, its output appended to
     * the log: a server that {@code pg_ctl} starts keeps writing there after {@code pg_ctl} returned.
     */
    private int run(List<String> command) {
        List<String> full = runAs.command(command);
        appendLog("onejob: " + String.join(" ", full));
        ProcessBuilder builder = new ProcessBuilder(full).directory(directory.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.environment().put("LC_ALL", "C");
        builder.environment().remove("PGDATA");
        builder.environment().remove("PGPORT");
        try {
            Process process = builder.start();
            if (!process.waitFor(COMMAND_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                process.destroyForcibly();
                appendLog("onejob: " + command.get(0) + " did not finish within " + COMMAND_TIMEOUT.toSeconds()
                        + " s and was killed");
                return -1;
            }
            return process.exitValue();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + full.get(0), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running " + command.get(0), e);
        }
    }

    private void awaitAccepting(long deadline, long offset) {
        Properties properties = new Properties();
        properties.setProperty("user", SUPERUSER);
        properties.setProperty("connectTimeout", "2");
        properties.setProperty("loginTimeout", "5");
        SQLException last = null;
        while (System.nanoTime() < deadline) {
            try (Connection connection = DriverManager.getConnection(server().jdbcUrl("postgres"), properties)) {
                return;
            } catch (SQLException e) {
                last = e;
            }
            pause(50);
        }
        throw failure("PostgreSQL on 127.0.0.1:" + port + " did not accept connections within "
                + READY_TIMEOUT.toSeconds() + " s" + (last == null ? "" : " (" + last.getMessage() + ")"), offset);
    }

    private void requireRunning() {
        if (!running) {
            throw new IllegalStateException("the PostgreSQL cluster in " + directory + " is not running");
        }
    }

    private void appendConf(List<String> lines) {
        try {
            Files.writeString(data.resolve("postgresql.conf"), "\n# onejob\n" + String.join("\n", lines) + "\n",
                    StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + data.resolve("postgresql.conf"), e);
        }
    }

    private void appendLog(String line) {
        try {
            Files.writeString(log, line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + log, e);
        }
    }

    private long logSize() {
        try {
            return Files.exists(log) ? Files.size(log) : 0;
        } catch (IOException e) {
            return 0;
        }
    }

    private String logSince(long offset) {
        try {
            byte[] bytes = Files.readAllBytes(log);
            int from = (int) Math.min(offset, bytes.length);
            return new String(bytes, from, bytes.length - from, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    private IllegalStateException failure(String what, long offset) {
        String since = logSince(offset).strip();
        List<String> lines = since.lines().toList();
        String tail = String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        return new IllegalStateException(what + "; " + log + " ends:\n" + tail);
    }

    private void closeAfterFailure(RuntimeException cause) {
        closed = true;
        try {
            if (running) {
                pgCtl("-m", "immediate", "stop");
                running = false;
            }
            removeShutdownHook();
        } catch (RuntimeException e) {
            cause.addSuppressed(e);
        }
        delete(directory);
    }

    private void stopOnExit() {
        if (running) {
            try {
                pgCtl("-m", "immediate", "stop");
            } catch (RuntimeException e) {
                System.err.println("could not stop the PostgreSQL cluster in " + data + ": " + e.getMessage());
            }
        }
    }

    private void removeShutdownHook() {
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs (or ran) anyway
        }
    }

    private static void delete(Path directory) {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            System.err.println("could not delete the PostgreSQL cluster directory " + directory + ": " + e);
        }
    }

    /** True when this JVM runs as root, where initdb and postgres refuse to run. */
    static boolean isRoot() {
        return new com.sun.security.auth.module.UnixSystem().getUid() == 0;
    }

    private static UserPrincipal osUser(Path anyFile) throws IOException {
        try {
            return anyFile.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(OS_USER);
        } catch (UserPrincipalNotFoundException e) {
            throw new IllegalStateException("running as root, where initdb and postgres refuse to run, the cluster "
                    + "needs the OS user " + OS_USER + " to run them as; it does not exist (the PostgreSQL server "
                    + "package creates it; or run as another user)", e);
        }
    }

    /**
     * How the PostgreSQL binaries run: {@link #DIRECT}ly, or as root through {@code runuser -u <user> --} (where
     * installed) or else {@code su -s /bin/sh -c '<command>' <user>}.
     */
    record RunAs(String tool, String user) {
        static final RunAs DIRECT = new RunAs(null, null);

        static RunAs osUser(String user) {
            Optional<Path> runuser = executable("runuser", List.of(Path.of("/usr/sbin"), Path.of("/sbin"),
                    Path.of("/usr/bin"), Path.of("/bin")));
            if (runuser.isPresent()) {
                return new RunAs(runuser.get().toString(), user);
            }
            Optional<Path> su = executable("su", List.of(Path.of("/usr/bin"), Path.of("/bin")));
            if (su.isPresent()) {
                return new RunAs(su.get().toString(), user);
            }
            throw new IllegalStateException("running as root, where initdb and postgres refuse to run, the cluster "
                    + "must run them as the OS user " + user + ", but neither runuser nor su was found (searched "
                    + "PATH, /usr/sbin, /sbin, /usr/bin, /bin)");
        }

        List<String> command(List<String> command) {
            if (tool == null) {
                return command;
            }
            if (Path.of(tool).getFileName().toString().equals("runuser")) {
                List<String> wrapped = new ArrayList<>(List.of(tool, "-u", user, "--"));
                wrapped.addAll(command);
                return wrapped;
            }
            return List.of(tool, "-s", "/bin/sh", "-c", "exec " + shellQuoted(command), user);
        }

        static String shellQuoted(List<String> words) {
            List<String> quoted = new ArrayList<>();
            for (String word : words) {
                quoted.add(word.matches("[A-Za-z0-9_./=:@%+,-]+") ? word : "'" + word.replace("'", "'\\''") + "'");
            }
            return String.join(" ", quoted);
        }
    }

    /**
     * The directory holding {@code initdb}, {@code pg_ctl} and {@code postgres}: {@code pg_config --bindir}, else the
     * highest version under {@code /usr/lib/postgresql/<version>/bin} (Debian, Ubuntu), else
     * {@code /usr/local/pgsql/bin} (a source build), else where {@code initdb} on PATH really lives.
     */
    public static Path binaries() {
        return binaries(pgConfigBindir(), DEBIAN_VERSIONS, pathDirectories());
    }

    static Path binaries(Optional<Path> pgConfigBindir, Path versions, List<Path> path) {
        List<String> searched = new ArrayList<>();
        List<Path> candidates = new ArrayList<>();
        pgConfigBindir.ifPresent(candidates::add);
        searched.add("pg_config --bindir (" + pgConfigBindir.map(Path::toString).orElse("no pg_config on PATH") + ")");
        List<Path> versioned = versionDirectories(versions);
        candidates.addAll(versioned);
        searched.add(versions + "/*/bin (" + (versioned.isEmpty() ? "none" : versioned.stream().map(Path::toString)
                .reduce((a, b) -> a + ", " + b).orElse("")) + ")");
        Path sourceBuild = Path.of("/usr/local/pgsql/bin");
        candidates.add(sourceBuild);
        searched.add(sourceBuild.toString());
        for (Path dir : path) {
            Path initdb = dir.resolve("initdb");
            if (Files.isExecutable(initdb)) {
                try {
                    candidates.add(initdb.toRealPath().getParent());
                } catch (IOException e) {
                    // a dangling link: not a candidate
                }
            }
        }
        searched.add("initdb on PATH");
        for (Path candidate : candidates) {
            if (SERVER_BINARIES.stream().allMatch(name -> Files.isExecutable(candidate.resolve(name)))) {
                return candidate;
            }
        }
        throw new IllegalStateException("no PostgreSQL server binaries (" + String.join(", ", SERVER_BINARIES)
                + " in one directory) found; searched " + String.join(", ", searched)
                + "; install the PostgreSQL server (Debian: apt-get install postgresql)");
    }

    /** {@code <versions>/<v>/bin} for every version directory, highest version first. */
    private static List<Path> versionDirectories(Path versions) {
        if (!Files.isDirectory(versions)) {
            return List.of();
        }
        try (Stream<Path> entries = Files.list(versions)) {
            return entries.filter(p -> p.getFileName().toString().matches("\\d+(\\.\\d+)*"))
                    .sorted(Comparator.comparing((Path p) -> versionKey(p.getFileName().toString())).reversed())
                    .map(p -> p.resolve("bin")).toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    private static String versionKey(String version) {
        StringBuilder key = new StringBuilder();
        for (String part : version.split("\\.")) {
            key.append(String.format("%08d", Long.parseLong(part)));
        }
        return key.toString();
    }

    private static Optional<Path> pgConfigBindir() {
        Optional<Path> pgConfig = executable("pg_config", List.of());
        if (pgConfig.isEmpty()) {
            return Optional.empty();
        }
        try {
            Process process = new ProcessBuilder(pgConfig.get().toString(), "--bindir").redirectErrorStream(true)
                    .start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return Optional.empty();
            }
            return process.exitValue() == 0 && !output.isEmpty() && !output.contains("\n")
                    ? Optional.of(Path.of(output)) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    private static Optional<Path> executable(String name, List<Path> alsoIn) {
        List<Path> dirs = new ArrayList<>(pathDirectories());
        dirs.addAll(alsoIn);
        return dirs.stream().map(dir -> dir.resolve(name)).filter(Files::isExecutable).findFirst();
    }

    private static List<Path> pathDirectories() {
        String path = System.getenv("PATH");
        if (path == null || path.isBlank()) {
            return List.of();
        }
        return Arrays.stream(path.split(":")).filter(s -> !s.isBlank()).map(Path::of).toList();
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on 127.0.0.1", e);
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for PostgreSQL", e);
        }
    }
}
