package dev.onejob.ingest.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.onejob.core.certification.CertificationStore;
import dev.onejob.core.json.Json;
import dev.onejob.core.ledger.LedgerStore;
import dev.onejob.core.ledger.ProviderGate;
import dev.onejob.ingest.IngestMetrics;
import dev.onejob.ingest.JobRequests;
import dev.onejob.ingest.Principal;
import dev.onejob.ingest.Tokens;
import dev.onejob.worker.certify.CertificationRunner;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP front door on the JDK's HTTP server: routing, bearer-token authentication, problem+json for every error
 * (never a stack trace), the OpenAPI document, health and metrics. Job logic lives in {@link JobsApi}.
 */
public final class ApiServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ApiServer.class);
    private static final Pattern JOB = Pattern.compile("/v1/jobs/([^/]+)");
    private static final Pattern JOB_ATTEMPTS = Pattern.compile("/v1/jobs/([^/]+)/attempts");
    private static final Pattern JOB_CANCEL = Pattern.compile("/v1/jobs/([^/]+)/cancel");
    private static final Pattern RESOLVE = Pattern.compile("/v1/attempts/([^/]+)/resolve");

    static {
        // The JDK server leaves Nagle's algorithm on: every small answer would wait ~40 ms for an ACK.
        System.setProperty("sun.net.httpserver.nodelay", "true");
    }

    /** Whether the service's dependencies answer; null when ready, otherwise what is not. */
    public interface Readiness extends Supplier<String> {
    }

    private final HttpServer server;
    private final ExecutorService executor;
    private final JobsApi jobs;
    private final CertificationsApi certifications;
    private final Tokens tokens;
    private final IngestMetrics metrics;
    private final Readiness readiness;

    public ApiServer(InetSocketAddress address, LedgerStore ledger, JobRequests requests, ProviderGate gate,
                     CertificationRunner certifier, CertificationStore certifications, Tokens tokens,
                     IngestMetrics metrics, Readiness readiness, int maxBodyBytes, int threads,
                     double submissionsPerOwnerPerSecond) throws IOException {
        this.jobs = new JobsApi(ledger, requests, gate, metrics, maxBodyBytes, submissionsPerOwnerPerSecond);
        this.certifications = new CertificationsApi(certifier, certifications, maxBodyBytes);
        this.tokens = tokens;
        this.metrics = metrics;
        this.readiness = readiness;
        this.executor = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "http-api");
            t.setDaemon(true);
            return t;
        });
        this.server = HttpServer.create(address, 256);
        server.createContext("/", this::handle);
        server.setExecutor(executor);
    }

    public void start() {
        server.start();
    }

    public int port() {
        return server.getAddress().getPort();
    }

    private void handle(HttpExchange exchange) {
        long started = System.nanoTime();
        String route = "unmatched";
        int status = 500;
        try (exchange) {
            String method = exchange.getRequestMethod();
            String path = exchange.getRequestURI().getPath();
            route = route(method, path);
            try {
                dispatch(exchange, method, path);
                status = exchange.getResponseCode();
            } catch (Problem problem) {
                status = problem.status();
                Exchanges.sendProblem(exchange, problem);
            } catch (RuntimeException e) {
                log.error("event=http_error method={} path={} error={}", method, path, e.toString(), e);
                status = 500;
                Exchanges.sendProblem(exchange, new Problem(500, "internal", "Internal error",
                        "the server could not complete the request; nothing was half-written, retry with the same "
                                + "Idempotency-Key"));
            }
        } catch (IOException e) {
            log.debug("event=http_io_error error={}", e.toString());
        } finally {
            metrics.request(route, status, Duration.ofNanos(System.nanoTime() - started));
        }
    }

    private void dispatch(HttpExchange exchange, String method, String path) throws IOException {
        switch (path) {
            case "/health" -> {
                allow(method, "GET");
                health(exchange);
                return;
            }
            case "/metrics" -> {
                allow(method, "GET");
                Exchanges.send(exchange, 200, "text/plain; version=0.0.4; charset=utf-8",
                        metrics.registry().scrape().getBytes(StandardCharsets.UTF_8));
                return;
            }
            case "/openapi.yaml" -> {
                allow(method, "GET");
                Exchanges.send(exchange, 200, "application/yaml", openApi());
                return;
            }
            default -> {
            }
        }
        Principal caller = authenticate(exchange);
        Matcher m;
        JobsApi api = jobs;
        if (path.equals("/v1/jobs")) {
            if (method.equals("POST")) {
                api.submit(exchange, caller);
            } else {
                allow(method, "GET");
                api.findByKey(exchange, caller);
            }
        } else if ((m = JOB_ATTEMPTS.matcher(path)).matches()) {
            allow(method, "POST");
            api.newAttempt(exchange, caller, m.group(1));
        } else if ((m = JOB_CANCEL.matcher(path)).matches()) {
            allow(method, "POST");
            api.cancel(exchange, caller, m.group(1));
        } else if ((m = JOB.matcher(path)).matches()) {
            allow(method, "GET");
            api.get(exchange, caller, m.group(1));
        } else if ((m = RESOLVE.matcher(path)).matches()) {
            allow(method, "POST");
            api.resolve(exchange, caller, m.group(1));
        } else if (path.equals("/v1/certifications")) {
            if (method.equals("POST")) {
                certifications.certify(exchange, caller);
            } else {
                allow(method, "GET");
                certifications.list(exchange);
            }
        } else {
            throw Problem.notFound("no such resource: " + path);
        }
    }

    private static String route(String method, String path) {
        if (path.equals("/v1/jobs")) {
            return method + " /v1/jobs";
        }
        if (JOB_ATTEMPTS.matcher(path).matches()) {
            return method + " /v1/jobs/{id}/attempts";
        }
        if (JOB_CANCEL.matcher(path).matches()) {
            return method + " /v1/jobs/{id}/cancel";
        }
        if (JOB.matcher(path).matches()) {
            return method + " /v1/jobs/{id}";
        }
        if (RESOLVE.matcher(path).matches()) {
            return method + " /v1/attempts/{id}/resolve";
        }
        if (path.equals("/v1/certifications")) {
            return method + " /v1/certifications";
        }
        return path.equals("/health") || path.equals("/metrics") || path.equals("/openapi.yaml")
                ? method + " " + path : "unmatched";
    }

    private Principal authenticate(HttpExchange exchange) {
        String header = exchange.getRequestHeaders().getFirst("Authorization");
        if (header == null) {
            throw Problem.unauthorized("an Authorization: Bearer <token> header is required");
        }
        if (!header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            throw Problem.unauthorized("the Authorization header must be 'Bearer <token>'");
        }
        return tokens.authenticate(header.substring(7).trim())
                .orElseThrow(() -> Problem.unauthorized("the bearer token is not valid"));
    }

    private static void allow(String method, String allowed) {
        if (!method.equals(allowed)) {
            throw new Problem(405, "method-not-allowed", "Method not allowed", method + " is not allowed here; use "
                    + allowed);
        }
    }

    private void health(HttpExchange exchange) throws IOException {
        String notReady = readiness.get();
        ObjectNode body = Json.object();
        body.put("status", notReady == null ? "ready" : "not-ready");
        if (notReady != null) {
            body.put("detail", notReady);
        }
        Exchanges.sendJson(exchange, notReady == null ? 200 : 503, body);
    }

    private static byte[] openApi() throws IOException {
        try (InputStream in = ApiServer.class.getClassLoader().getResourceAsStream("openapi.yaml")) {
            if (in == null) {
                throw new Problem(500, "internal", "Internal error", "the OpenAPI document is missing from the build");
            }
            return in.readAllBytes();
        }
    }

    @Override
    public void close() {
        server.stop(1);
        executor.shutdownNow();
    }
}
