package dev.onejob.ingest.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.http.HttpCall;
import dev.onejob.core.certification.CertificationStore;
import dev.onejob.core.db.DatabaseException;
import dev.onejob.core.http.CachedReadiness;
import dev.onejob.core.http.WebServer;
import dev.onejob.core.json.Json;
import dev.onejob.core.config.Providers;
import dev.onejob.core.contract.Contracts;
import dev.onejob.core.ledger.LedgerQueries;
import dev.onejob.core.ledger.BillingStore;
import dev.onejob.core.ledger.LedgerStore;
import dev.onejob.core.ledger.ProviderGate;
import dev.onejob.ingest.IngestMetrics;
import dev.onejob.ingest.JobRequests;
import dev.onejob.ingest.Principal;
import dev.onejob.ingest.Tokens;
import dev.onejob.providers.certify.CertificationRunner;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP front door on {@link WebServer} (Jetty): routing, bearer-token authentication, problem+json for every error
 * (never a stack trace), the OpenAPI document, health and metrics. Job logic lives in {@link JobsApi}.
 */
public final class ApiServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ApiServer.class);
    private static final Pattern JOB = Pattern.compile("/v1/jobs/([^/]+)");
    private static final Pattern JOB_ATTEMPTS = Pattern.compile("/v1/jobs/([^/]+)/attempts");
    private static final Pattern JOB_CANCEL = Pattern.compile("/v1/jobs/([^/]+)/cancel");
    private static final Pattern JOB_EVENTS = Pattern.compile("/v1/jobs/([^/]+)/events");
    private static final Pattern RESOLVE = Pattern.compile("/v1/attempts/([^/]+)/resolve");

    /** Whether the service's dependencies answer; null when ready, otherwise what is not. */
    public interface Readiness extends Supplier<String> {
    }

    private final WebServer.Settings settings;
    private final LedgerStore jobLedger;
    private final GroupCommit groupCommit;
    private final Admission admission;
    private volatile WebServer server;
    private final JobsApi jobs;
    private final CertificationsApi certifications;
    private final EventsApi events;
    private final FindApi find;
    private final UsageApi usage;
    private final DropInApi dropIn;
    private final AttemptChunks chunks = new AttemptChunks();
    private final OwnerCaps caps;
    private final JobWatch watch;
    private final Tokens tokens;
    private final IngestMetrics metrics;
    private final Supplier<String> readiness;

    /** What the read side needs: the ledger's queries and the configuration people look at. */
    public record Views(LedgerQueries queries, Providers providers, Contracts contracts, BillingStore billing) {
    }

    public ApiServer(WebServer.Settings settings, LedgerStore ledger, JobRequests requests, ProviderGate gate,
                     CertificationRunner certifier, CertificationStore certifications, Tokens tokens,
                     IngestMetrics metrics, Readiness readiness, int maxBodyBytes,
                     FrontDoor frontDoor, Supplier<Admission.BacklogReading> backlog, Views views) {
        // The server keeps one byte past the routes' limit, so a route sees a body too large for it as such.
        this.settings = settings.withBody(maxBodyBytes, settings.bodyTimeout(), settings.minBodyRate());
        this.jobLedger = ledger;
        this.groupCommit = new GroupCommit(ledger, frontDoor.groupCommitters(), frontDoor.groupCommitMax(),
                metrics.registry());
        // Tasks beyond one per thread: a burst the threads absorb at once is not a queue (and right after an idle
        // second the rate requests finish at is too low to judge one by).
        this.admission = new Admission(frontDoor.shedQueueWait(), frontDoor.shedBacklog(),
                () -> server == null ? 0 : Math.max(0, server.queuedTasks() - settings.threads()), groupCommit,
                backlog);
        io.micrometer.core.instrument.Gauge.builder("onejob_http_server_queued_tasks",
                        () -> server == null ? 0 : server.queuedTasks())
                .description("tasks waiting for a server thread (requests to read or run, answers to send)")
                .register(metrics.registry());
        io.micrometer.core.instrument.Gauge.builder("onejob_http_submit_queue", groupCommit::waiting)
                .description("HTTP submissions waiting for their group commit").register(metrics.registry());
        this.watch = new JobWatch(views.queries(), task -> server.executor().execute(task), frontDoor.waitRecheck());
        io.micrometer.core.instrument.Gauge.builder("onejob_http_watching", watch::watching)
                .description("requests following a job: waits and event streams").register(metrics.registry());
        this.jobs = new JobsApi(ledger, groupCommit::submit, admission::admitSubmission, requests, gate, metrics,
                maxBodyBytes, new JobWaits(watch, views.queries()), frontDoor.maxWait());
        this.dropIn = new DropInApi(jobs, requests, views.providers(), views.queries(),
                new JobWaits(watch, views.queries()), new DropInStreams(watch, chunks), metrics, maxBodyBytes,
                frontDoor.maxWait());
        this.certifications = new CertificationsApi(certifier, certifications, maxBodyBytes);
        this.events = new EventsApi(views.queries(), watch);
        this.find = new FindApi(views.queries(), certifications, views.providers(), views.contracts(), metrics, watch,
                requests.cooldowns());
        this.usage = new UsageApi(views.billing(), java.time.Clock.systemUTC());
        this.tokens = tokens;
        this.metrics = metrics;
        this.caps = new OwnerCaps(frontDoor.perOwner());
        // A probe or a scraper polling readiness costs PostgreSQL and Kafka one check a second, not one per call.
        this.readiness = new CachedReadiness(readiness, java.time.Duration.ofSeconds(1));
    }

    public void start() throws IOException {
        server = WebServer.start(settings, this::handle);
    }

    public int port() {
        return server.port();
    }

    /** Where this instance's {@code attempt-chunks} subscription hands the pieces of answer it reads. */
    public AttemptChunks chunks() {
        return chunks;
    }

    /** Why the Kafka intake should wait now, or empty ({@link Admission#kafkaIntakeBrake}). */
    public java.util.Optional<String> kafkaIntakeBrake() {
        return admission.kafkaIntakeBrake();
    }

    /** Jobs whose results were just published: wakes whatever of this instance waits on them. */
    public void jobsFinished(java.util.Collection<java.util.UUID> jobIds) {
        metrics.finished(jobIds.size());
        watch.changed(jobIds);
    }

    private void handle(HttpCall exchange) {
        String method = exchange.method();
        // Route on the raw path: an encoded slash inside an id is part of the id, never a separator.
        String path = exchange.rawPath();
        Finish finish = new Finish(route(method, path), System.nanoTime(), method, path);
        try {
            dispatch(exchange, method, path, finish);
        } catch (RuntimeException e) {
            finish.failed(exchange, e);
        } catch (IOException e) {
            log.debug("event=http_io_error error={}", e.toString());
        }
        if (!exchange.isLater()) {
            finish.finished(exchange);
        }
    }

    /** Answers a request's failure and records the request: on its own thread, or later for a submission. */
    private final class Finish implements JobsApi.Later {
        private final String route;
        private final long started;
        private final String method;
        private final String path;

        /** What the request holds of its owner's caps, once it is authenticated. */
        private volatile OwnerCaps.Tracked tracked;

        Finish(String route, long started, String method, String path) {
            this.route = route;
            this.started = started;
            this.method = method;
            this.path = path;
        }

        @Override
        public void failed(HttpCall exchange, Throwable error) {
            Problem problem;
            if (error instanceof Problem p) {
                problem = p;
            } else if (error instanceof RuntimeException e && DatabaseException.isUnavailable(e)) {
                log.warn("event=http_database_unavailable method={} path={} error={}", method, path, e.toString());
                problem = new Problem(503, "database-unavailable", "Database unavailable",
                        "PostgreSQL cannot be reached right now; retry with the same Idempotency-Key (if this "
                                + "request was committed after all, the retry returns its job)")
                        .with("retry_after_seconds", "1");
            } else {
                log.error("event=http_error method={} path={} error={}", method, path, error.toString(), error);
                problem = new Problem(500, "internal", "Internal error",
                        "the server could not complete the request; nothing was half-written, retry with the same "
                                + "Idempotency-Key");
            }
            if (exchange.status() != 0) {
                log.warn("event=http_error_after_answer method={} path={} status={} error={}", method, path,
                        exchange.status(), error.toString());
                return;
            }
            if (DropInApi.serves(path)) {
                problem = DropInApi.shaped(exchange, problem);
            }
            try {
                Exchanges.sendProblem(exchange, problem);
            } catch (IOException e) {
                log.debug("event=http_io_error error={}", e.toString());
            }
        }

        OwnerCaps.Tracked tracking(OwnerCaps.Tracked call) {
            tracked = call;
            return call;
        }

        @Override
        public void finished(HttpCall exchange) {
            OwnerCaps.Tracked held = tracked;
            if (held != null) {
                held.release();
            }
            admission.completed();
            int status = exchange.status() == 0 ? 500 : exchange.status();
            metrics.request(route, status, Duration.ofNanos(System.nanoTime() - started));
        }
    }

    private void dispatch(HttpCall exchange, String method, String path, Finish finish) throws IOException {
        switch (path) {
            case "/health", "/health/ready" -> {
                allow(exchange, method, "GET");
                health(exchange);
                return;
            }
            case "/health/live" -> {
                // Liveness: this process serves HTTP. Touches neither PostgreSQL nor Kafka, so a database outage
                // never gets a healthy process restarted.
                allow(exchange, method, "GET");
                Exchanges.send(exchange, 200, "application/json", "{\"status\":\"live\"}"
                        .getBytes(StandardCharsets.UTF_8));
                return;
            }
            case "/metrics" -> {
                // On the API's port, reached by every caller: the service's counters are for operators (a
                // Prometheus scrape sends an operator's token, `authorization: credentials: ...`).
                // The token first, as on every secured path: without one, 401 whatever the method.
                Principal reader = Bearer.caller(exchange, tokens);
                allow(exchange, method, "GET");
                if (!reader.may(Principal.OPERATE)) {
                    throw Problem.forbidden("the service's metrics span every owner's traffic: reading them needs "
                            + "the 'operate' role");
                }
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
        if (path.equals(ConsoleAssets.ROOT) || path.startsWith(ConsoleAssets.ROOT + "/")) {
            // The console's files are public; everything it shows comes from the API below, with the token.
            allow(exchange, method, "GET");
            ConsoleAssets.serve(exchange, path);
            return;
        }
        Principal caller = Bearer.caller(exchange, tokens);
        // Shed what waited too long for a thread before it costs PostgreSQL anything (503 overloaded).
        admission.admit(exchange);
        // What this owner holds open is counted from here; the request gives it back when it is finished.
        exchange = finish.tracking(caps.track(exchange, caller.ownerId()));
        Matcher m;
        JobsApi api = jobs;
        if (path.equals(DropInApi.CHAT_COMPLETIONS) || path.equals(DropInApi.MESSAGES)) {
            allow(exchange, method, "POST");
            dropIn.call(exchange, caller, path.equals(DropInApi.MESSAGES) ? DropInApi.ANTHROPIC : DropInApi.OPENAI,
                    task -> server.executor().execute(task), finish);
        } else if (path.equals("/v1/jobs")) {
            allow(exchange, method, "GET", "POST");
            if (method.equals("POST")) {
                api.submit(exchange, caller, task -> server.executor().execute(task), finish);
            } else if (Exchanges.query(exchange).containsKey("idempotency_key")) {
                api.findByKey(exchange, caller);
            } else {
                find.jobs(exchange, caller);
            }
        } else if ((m = JOB_EVENTS.matcher(path)).matches()) {
            allow(exchange, method, "GET");
            events.events(exchange, readerOf(caller, segment(m.group(1))), segment(m.group(1)), finish);
        } else if ((m = JOB_ATTEMPTS.matcher(path)).matches()) {
            allow(exchange, method, "POST");
            api.newAttempt(exchange, caller, segment(m.group(1)));
        } else if ((m = JOB_CANCEL.matcher(path)).matches()) {
            allow(exchange, method, "POST");
            api.cancel(exchange, caller, segment(m.group(1)));
        } else if ((m = JOB.matcher(path)).matches()) {
            allow(exchange, method, "GET");
            api.get(exchange, readerOf(caller, segment(m.group(1))), segment(m.group(1)), finish);
        } else if ((m = RESOLVE.matcher(path)).matches()) {
            allow(exchange, method, "POST");
            api.resolve(exchange, caller, segment(m.group(1)));
        } else if (path.equals("/v1/attempts")) {
            allow(exchange, method, "GET");
            find.attempts(exchange, caller);
        } else if (path.equals("/v1/races")) {
            allow(exchange, method, "GET");
            find.races(exchange, caller);
        } else if (path.equals("/v1/providers")) {
            allow(exchange, method, "GET");
            find.providers(exchange, caller);
        } else if (path.equals("/v1/contracts")) {
            allow(exchange, method, "GET");
            find.contracts(exchange);
        } else if (path.equals("/v1/usage")) {
            allow(exchange, method, "GET");
            usage.usage(exchange, caller);
        } else if (path.equals("/v1/stats")) {
            allow(exchange, method, "GET");
            find.stats(exchange, caller);
        } else if (path.equals("/v1/whoami")) {
            allow(exchange, method, "GET");
            find.whoami(exchange, caller);
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

    /**
     * Every path this server answers, as templates: exactly the paths of the OpenAPI document (RoutesIT compares
     * the two sets and sends each documented operation to see it routed). Also the metrics' route label, a closed
     * set callers cannot grow.
     */
    public static final List<String> ROUTES = List.of("/health", "/health/live", "/health/ready", "/metrics",
            "/openapi.yaml", "/console", "/console/{file}", "/v1/jobs", "/v1/jobs/{id}", "/v1/jobs/{id}/attempts",
            "/v1/jobs/{id}/cancel", "/v1/jobs/{id}/events", "/v1/attempts", "/v1/attempts/{id}/resolve",
            "/v1/races", "/v1/providers", "/v1/contracts", "/v1/stats", "/v1/usage", "/v1/whoami",
            "/v1/certifications", DropInApi.CHAT_COMPLETIONS, DropInApi.MESSAGES);
    private static final List<Map.Entry<String, Pattern>> ROUTE_PATTERNS = ROUTES.stream()
            .map(t -> Map.entry(t, Pattern.compile(t.replace("{file}", "[^/]*").replaceAll("\\{[a-z]+}", "[^/]+"))))
            .toList();

    /**
     * Who reads a job: its owner, or an operator, who may read every owner's jobs (the console's job pages); an
     * operator reading another owner's job acts as that owner for the read alone, never for a write.
     */
    private Principal readerOf(Principal caller, String jobId) {
        if (!caller.may(Principal.OPERATE)) {
            return caller;
        }
        try {
            return jobLedger.job(java.util.UUID.fromString(jobId))
                    .map(job -> new Principal(job.ownerId(), caller.roles())).orElse(caller);
        } catch (IllegalArgumentException e) {
            return caller;
        }
    }

    private static final java.util.Set<String> KNOWN_METHODS =
            java.util.Set.of("GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS");

    /** The metrics label: a route template and a method from a closed set, so callers cannot grow the series. */
    private static String route(String anyMethod, String path) {
        String method = KNOWN_METHODS.contains(anyMethod) ? anyMethod : "OTHER";
        for (Map.Entry<String, Pattern> route : ROUTE_PATTERNS) {
            if (route.getValue().matcher(path).matches()) {
                return method + " " + route.getKey();
            }
        }
        return "unmatched";
    }

    /** 405 with the {@code Allow} header RFC 9110 asks for, unless {@code method} is one of {@code allowed}. */
    private static void allow(HttpCall exchange, String method, String... allowed) {
        if (!java.util.Arrays.asList(allowed).contains(method)) {
            exchange.setHeader("Allow", String.join(", ", allowed));
            throw new Problem(405, "method-not-allowed", "Method not allowed", "this resource allows "
                    + String.join(", ", allowed));
        }
    }

    private void health(HttpCall exchange) throws IOException {
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
        if (server != null) {
            server.close();
        }
        groupCommit.close();
        admission.close();
        watch.close();
    }
}
