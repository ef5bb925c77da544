package dev.onejob.infra;

import com.sun.security.auth.module.UnixSystem;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Properties;

/**
 * A PostgreSQL cluster of a run's own, so that a harness that restarts its database never restarts a server it did
 * not start: {@code initdb} from the machine's PostgreSQL server binaries into a fresh directory, the server on a
 * free port on 127.0.0.1 only (trust authentication, superuser {@value #SUPERUSER}, its unix socket in that
 * directory), restarted the way a crash would on request ({@link #restartImmediate()}), stopped and deleted on
 * {@link #close()} unless kept. {@code initdb} and {@code postgres} refuse to run as root: as root, every PostgreSQL
 * binary runs as the OS user {@value #OS_USER} (through {@code runuser}, else {@code su}) on a directory owned by
 * it. The server's output and that of every {@code initdb}/{@code pg_ctl} call go to a log file the caller names,
 * opened by this JVM, so it may live where the {@value #OS_USER} user could not write. A shutdown hook stops the
 * server if the JVM exits before {@code close()}. This class owns the life cycle; {@link PostgresBinaries} finds the
 * binaries, {@link ClusterDirectory} makes and deletes the directory, {@link ClusterControl} runs the binaries and
 * reads the log, {@link ProcessSignals} freezes and thaws the server.
 */
public final class LocalPostgresCluster implements AutoCloseable {
    /** The cluster's superuser, with trust authentication: no password. */
    public static final String SUPERUSER = "postgres";
    /** The OS user the PostgreSQL binaries run as when this JVM runs as root. */
    static final String OS_USER = "postgres";
    /** The server's settings: small, durable, reachable only from this machine. */
    static final List<String> SETTINGS = List.of("max_connections = 200", "shared_buffers = 64MB", "fsync = on",
            "listen_addresses = '127.0.0.1'");
    private static final Duration READY_TIMEOUT = ClusterControl.READY_TIMEOUT;
    private static final int START_ATTEMPTS = 3;

    private final ClusterControl control;
    private final Path directory;
    private final boolean keep;
    private final Thread shutdownHook = new Thread(this::stopOnExit, "local-postgres-stop");
    private volatile int port;
    private volatile boolean running;
    private boolean closed;

    private LocalPostgresCluster(ClusterControl control, Path directory, boolean keep) {
        this.control = control;
        this.directory = directory;
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
        try {
            Files.createDirectories(log.toAbsolutePath().getParent());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a directory for a PostgreSQL cluster under " + parent, e);
        }
        Path directory = ClusterDirectory.create(parent, root ? OS_USER : null);
        LocalPostgresCluster cluster = new LocalPostgresCluster(
                new ClusterControl(bin, directory, log.toAbsolutePath(), runAs), directory, keep);
        try {
            cluster.control.initdb(SUPERUSER, SETTINGS);
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
        return control.data();
    }

    public Path log() {
        return control.log();
    }

    /** How to start a kept cluster again by hand (a shell command line). */
    public String startCommand() {
        return control.startCommand();
    }

    /**
     * Restarts the server the way a crash would ({@code pg_ctl restart -m immediate}: no checkpoint, every client
     * cut off at once, WAL replay on start) and waits until it accepts connections again (at most a minute). Returns
     * the time from issuing the restart to the first connection accepted after it.
     */
    public synchronized Duration restartImmediate() {
        requireRunning();
        long began = System.nanoTime();
        long offset = control.logSize();
        int exit = control.pgCtl("-m", "immediate", "restart");
        if (exit != 0) {
            throw control.failure("pg_ctl restart -m immediate exited with " + exit, offset);
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
        Path pidFile = control.data().resolve("postmaster.pid");
        long pid;
        try {
            pid = Long.parseLong(Files.readAllLines(pidFile).get(0).trim());
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("cannot read the server's pid from " + pidFile + ": " + e, e);
        }
        ProcessSignals.sendToTree(pid, signal);
    }

    /** Stops the server ({@code -m fast}, then {@code -m immediate} if that fails); the directory stays. */
    public synchronized void stop() {
        if (!running) {
            return;
        }
        if (control.pgCtl("-m", "fast", "stop") != 0 && control.pgCtl("-m", "immediate", "stop") != 0) {
            throw control.failure("pg_ctl stop did not stop the server in " + control.data(), 0);
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
            ClusterDirectory.delete(directory);
        }
    }

    /**
     * The directory holding {@code initdb}, {@code pg_ctl} and {@code postgres}: {@code pg_config --bindir}, else the
     * highest version under {@code /usr/lib/postgresql/<version>/bin} (Debian, Ubuntu), else
     * {@code /usr/local/pgsql/bin} (a source build), else where {@code initdb} on PATH really lives.
     */
    public static Path binaries() {
        return PostgresBinaries.find();
    }

    static Path binaries(Optional<Path> pgConfigBindir, Path versions, List<Path> path) {
        return PostgresBinaries.find(pgConfigBindir, versions, path);
    }

    /** True when this JVM runs as root, where initdb and postgres refuse to run. */
    static boolean isRoot() {
        return new UnixSystem().getUid() == 0;
    }

    /** Starts on a free port; another process taking that port in between costs a new port, not the run. */
    private void startServer() {
        for (int attempt = 1; ; attempt++) {
            port = freePort();
            control.appendConf(List.of("port = " + port));
            long offset = control.logSize();
            int exit = control.pgCtl("start");
            if (exit == 0) {
                break;
            }
            if (attempt < START_ATTEMPTS && control.logSince(offset).contains("Address already in use")) {
                continue;
            }
            throw control.failure("pg_ctl start exited with " + exit, offset);
        }
        running = true;
        Runtime.getRuntime().addShutdownHook(shutdownHook);
        awaitAccepting(System.nanoTime() + READY_TIMEOUT.toNanos(), 0);
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
        throw control.failure("PostgreSQL on 127.0.0.1:" + port + " did not accept connections within "
                + READY_TIMEOUT.toSeconds() + " s" + (last == null ? "" : " (" + last.getMessage() + ")"), offset);
    }

    private void requireRunning() {
        if (!running) {
            throw new IllegalStateException("the PostgreSQL cluster in " + directory + " is not running");
        }
    }

    private void closeAfterFailure(RuntimeException cause) {
        closed = true;
        try {
            if (running) {
                control.pgCtl("-m", "immediate", "stop");
                running = false;
            }
            removeShutdownHook();
        } catch (RuntimeException e) {
            cause.addSuppressed(e);
        }
        ClusterDirectory.delete(directory);
    }

    private void stopOnExit() {
        if (running) {
            try {
                control.pgCtl("-m", "immediate", "stop");
            } catch (RuntimeException e) {
                System.err.println("could not stop the PostgreSQL cluster in " + control.data() + ": "
                        + e.getMessage());
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
