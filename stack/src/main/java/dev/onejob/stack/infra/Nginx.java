package dev.onejob.stack.infra;

import dev.onejob.infra.proc.ChildProcess;
import dev.onejob.infra.proc.ProcessRunner;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real nginx (Debian's build) as the stack's load balancer in front of the ingest instances, configured by
 * {@link NginxConfig}. Owns its run directory: {@code nginx.conf}, {@code nginx.pid}, {@code error.log},
 * {@code access.log} (one line per request: time, method, URI, status, every upstream tried with its status and
 * time, the {@code Idempotency-Key}) and nginx's temp files. Produces a URL clients send requests to.
 */
public final class Nginx implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Nginx.class);
    private static final Duration STARTUP = Duration.ofSeconds(15);

    private final ChildProcess process;
    private final Path dir;
    private final int port;

    private Nginx(ChildProcess process, Path dir, int port) {
        this.process = process;
        this.dir = dir;
        this.port = port;
    }

    /**
     * Writes the configuration into {@code dir} and starts nginx (found or fetched under {@code root}, see
     * {@link NginxBinary}); returns once it accepts connections.
     */
    public static Nginx start(ProcessRunner runner, Path root, Path dir, NginxConfig config) {
        Path binary = NginxBinary.locate(root);
        Path runDir = dir.toAbsolutePath();
        NginxConfig resolved = config.port() == 0 ? config.withPort(LoopbackPorts.free()) : config;
        Path conf = writeConfig(runDir, resolved);
        ChildProcess process = runner.start("nginx", List.of(binary.toString(), "-p", runDir + "/",
                "-e", runDir.resolve("error.log").toString(), "-c", conf.toString()), Map.of());
        Nginx nginx = new Nginx(process, runDir, resolved.port());
        try {
            LoopbackPorts.awaitListening(process, resolved.port(), STARTUP, nginx::diagnostics);
        } catch (RuntimeException e) {
            nginx.close();
            throw e;
        }
        LOG.info("nginx {} (pid {}) listens on {} and balances over {}", binary, process.pid(), nginx.url(),
                resolved.upstreamPorts());
        return nginx;
    }

    private static Path writeConfig(Path dir, NginxConfig config) {
        try {
            for (String temp : NginxConfig.tempDirectories()) {
                Files.createDirectories(dir.resolve("temp").resolve(temp));
            }
            Path conf = dir.resolve("nginx.conf");
            Files.writeString(conf, config.render(dir, workerUser()));
            return conf;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the nginx configuration into " + dir, e);
        }
    }

    /**
     * Under root, nginx's workers would drop to {@code nobody}, who may not reach a run directory inside a private
     * temp dir and would then fail every request that spills a body to disk; the harness owns the machine's
     * processes anyway, so workers keep root's rights. Otherwise nginx cannot switch users and the line is omitted.
     */
    private static String workerUser() {
        return "root".equals(System.getProperty("user.name")) ? "root" : null;
    }

    public int port() {
        return port;
    }

    /** The base URL, without a trailing slash: {@code http://127.0.0.1:<port>}. */
    public String url() {
        return "http://" + LoopbackPorts.HOST + ":" + port;
    }

    public Path accessLog() {
        return dir.resolve("access.log");
    }

    public Path errorLog() {
        return dir.resolve("error.log");
    }

    public ChildProcess process() {
        return process;
    }

    private String diagnostics() {
        try {
            String errors = Files.exists(errorLog()) ? Files.readString(errorLog()).strip() : "";
            return errors.isEmpty() ? process.tail(30) : errors;
        } catch (IOException e) {
            return process.tail(30);
        }
    }

    /** SIGTERM: nginx's fast shutdown, in which the master also ends its worker (a SIGKILL would orphan it). */
    @Override
    public void close() {
        process.close();
    }
}
