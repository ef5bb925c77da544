package dev.onejob.ingest.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.onejob.core.certification.CertificationStore;
import dev.onejob.core.db.DatabaseException;
import dev.onejob.core.json.Json;
import dev.onejob.core.ledger.LedgerStore;
import dev.onejob.core.ledger.ProviderGate;
import dev.onejob.ingest.IngestMetrics;
import dev.onejob.ingest.JobRequests;
import dev.onejob.ingest.Principal;
import dev.onejob.ingest.Tokens;
import dev.onejob.providers.certify.CertificationRunner;
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
            // Route on the raw path: an encoded slash inside an id is part of the id, never a separator.
            String path = exchange.getRequestURI().getRawPath();
            route = route(method, path);
            try {
                dispatch(exchange, method, path);
                status = exchange.getResponseCode();
            } catch (Problem problem) {
                status = problem.status();
                Exchanges.sendProblem(exchange, problem);
            } catch (RuntimeException e) {
                if (DatabaseException.isUnavailable(e)) {
                    log.warn("event=http_database_unavailable method={} path={} error={}", method, path, e.toString());
                    status = 503;
                    Exchanges.sendProblem(exchange, new Problem(503, "database-unavailable", "Database unavailable",
                            "PostgreSQL cannot be reached right now; retry with the same Idempotency-Key (if this "
                                    + "request was committed after all, the retry returns its job)")
                            .with("retry_after_seconds", "1"));
                    return;
                }
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
                allow(exchange, method, "GET");
                health(exchange);
                return;
            }
            case "/metrics" -> {
                allow(exchange, method, "GET");
                Exchanges.send(exchange, 200, "text/plain; version=0.0.4; charset=utf-8",
                        metrics.registry().scrape().getBytes(StandardCharsets.UTF_8));
                return;
            }
            case "/openapi.yaml" -> {
                allow(exchange, method, "GET");
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
            allow(exchange, method, "GET", "POST");
            if (method.equals("POST")) {
                api.submit(exchange, caller);
            } else {
                api.findByKey(exchange, caller);
            }
        } else if ((m = JOB_ATTEMPTS.matcher(path)).matches()) {
            allow(exchange, method, "POST");
            api.newAttempt(exchange, caller, segment(m.group(1)));
        } else if ((m = JOB_CANCEL.matcher(path)).matches()) {
            allow(exchange, method, "POST");
            api.cancel(exchange, caller, segment(m.group(1)));
        } else if ((m = JOB.matcher(path)).matches()) {
            allow(exchange, method, "GET");
            api.get(exchange, caller, segment(m.group(1)));
        } else if ((m = RESOLVE.matcher(path)).matches()) {
            allow(exchange, method, "POST");
            api.resolve(exchange, caller, segment(m.group(1)));
        } else if (path.equals("/v1/certifications")) {
            allow(exchange, method, "GET", "POST");
            if (method.equals("POST")) {
                certifications.certify(exchange, caller);
            } else {
                certifications.list(exchange);
            }
        } else {
            throw Problem.notFound("no such resource");
        }
    }

    /** A path segment as the caller meant it (percent-decoded); a malformed escape names nothing. */
    private static String segment(String raw) {
        try {
            return java.net.URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return "";
        }
    }

    private static final java.util.Set<String> KNOWN_METHODS =
            java.util.Set.of("GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS");

    /** The metrics label: a route template and a method from a closed set, so callers cannot grow the series. */
    private static String route(String anyMethod, String path) {
        String method = KNOWN_METHODS.contains(anyMethod) ? anyMethod : "OTHER";
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
        // Only spaces and tabs are padding around a header value (RFC 9110 5.5); any other control character is
        // part of what was sent, so such a token does not match.
        return tokens.authenticate(header.substring(7).replaceAll("^[ \\t]+|[ \\t]+$", ""))
                .orElseThrow(() -> Problem.unauthorized("the bearer token is not valid"));
    }

    /** 405 with the {@code Allow} header RFC 9110 asks for, unless {@code method} is one of {@code allowed}. */
    private static void allow(HttpExchange exchange, String method, String... allowed) {
        if (!java.util.Arrays.asList(allowed).contains(method)) {
            exchange.getResponseHeaders().set("Allow", String.join(", ", allowed));
            throw new Problem(405, "method-not-allowed", "Method not allowed", "this resource allows "
                    + String.join(", ", allowed));
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
