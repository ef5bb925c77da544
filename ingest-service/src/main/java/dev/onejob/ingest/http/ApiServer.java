package dev.onejob.ingest.http;

import dev.onejob.core.db.DatabaseException;
import dev.onejob.core.http.HttpCall;
import dev.onejob.core.http.WebServer;
import dev.onejob.ingest.IngestMetrics;
import dev.onejob.ingest.Principal;
import dev.onejob.ingest.Tokens;
import java.io.IOException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP front door on {@link WebServer} (Jetty): bearer-token authentication and dispatch on the route table
 * ({@link RouteTable}), with problem+json for every error (never a stack trace) and each request recorded under its
 * route's label. What the routes do, and how they are wired, is {@link IngestApi}'s.
 */
public final class ApiServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ApiServer.class);

    private final WebServer.Settings settings;
    private final RouteTable table;
    private final Tokens tokens;
    private final Admission admission;
    private final OwnerCaps caps;
    private final IngestMetrics metrics;
    private final ServerThreads threads;
    private volatile WebServer server;

    /** {@code maxBodyBytes}: the routes' limit on a request body. */
    ApiServer(WebServer.Settings settings, int maxBodyBytes, RouteTable table, Tokens tokens, Admission admission,
              OwnerCaps caps, IngestMetrics metrics, ServerThreads threads) {
        // The server keeps one byte past the routes' limit, so a route sees a body too large for it as such.
        this.settings = settings.withBody(maxBodyBytes, settings.bodyTimeout(), settings.minBodyRate());
        this.table = table;
        this.tokens = tokens;
        this.admission = admission;
        this.caps = caps;
        this.metrics = metrics;
        this.threads = threads;
    }

    void start() throws IOException {
        server = WebServer.start(settings, this::handle);
        threads.bind(server);
    }

    int port() {
        return server.port();
    }

    private void handle(HttpCall exchange) {
        String method = exchange.method();
        // Route on the raw path: an encoded slash inside an id is part of the id, never a separator.
        String path = exchange.rawPath();
        RouteTable.Match match = table.match(path);
        Finish finish = new Finish(match, System.nanoTime(), method, path);
        try {
            dispatch(exchange, method, path, match, finish);
        } catch (RuntimeException e) {
            finish.failed(exchange, e);
        } catch (IOException e) {
            log.debug("event=http_io_error error={}", e.toString());
        }
        if (!exchange.isLater()) {
            finish.finished(exchange);
        }
    }

    /**
     * A public route answers anyone; every other path first needs a token (401 without one, whatever the method),
     * then, for the API, the front door's admission and the owner's caps, then its method (405) and its role (403).
     */
    private void dispatch(HttpCall exchange, String method, String path, RouteTable.Match match, Finish finish)
            throws IOException {
        if (match.open()) {
            match.route(exchange, method).handler().handle(exchange, new Route.Call(null, match.parameter(), path,
                    finish));
            return;
        }
        Principal caller = Bearer.caller(exchange, tokens);
        if (match.admitted()) {
            // Shed what waited too long for a thread before it costs PostgreSQL anything (503 overloaded).
            admission.admit(exchange);
            // What this owner holds open is counted from here; the request gives it back when it is finished.
            exchange = finish.tracking(caps.track(exchange, caller.ownerId()));
        }
        if (match.routes().isEmpty()) {
            throw Problem.notFound("no such resource");
        }
        Route route = match.route(exchange, method);
        if (!route.role().admits(caller)) {
            throw Problem.forbidden(route.forbidden());
        }
        route.handler().handle(exchange, new Route.Call(caller, match.parameter(), path, finish));
    }

    /** Answers a request's failure and records the request: on its own thread, or later for a submission. */
    private final class Finish implements JobsApi.Later {
        private final RouteTable.Match match;
        private final long started;
        private final String method;
        private final String path;

        /** What the request holds of its owner's caps, once it is authenticated. */
        private volatile OwnerCaps.Tracked tracked;

        Finish(RouteTable.Match match, long started, String method, String path) {
            this.match = match;
            this.started = started;
            this.method = method;
            this.path = path;
        }

        @Override
        public void failed(HttpCall exchange, Throwable error) {
            Problem problem = problem(error);
            if (exchange.status() != 0) {
                log.warn("event=http_error_after_answer method={} path={} status={} error={}", method, path,
                        exchange.status(), error.toString());
                return;
            }
            try {
                Exchanges.sendProblem(exchange, match.errors().shaped(exchange, problem));
            } catch (IOException e) {
                log.debug("event=http_io_error error={}", e.toString());
            }
        }

        /** The problem a failure is answered with: its own, 503 while PostgreSQL is away, else 500. */
        private Problem problem(Throwable error) {
            if (error instanceof Problem p) {
                return p;
            }
            if (error instanceof RuntimeException e && DatabaseException.isUnavailable(e)) {
                log.warn("event=http_database_unavailable method={} path={} error={}", method, path, e.toString());
                return new Problem(503, "database-unavailable", "Database unavailable",
                        "PostgreSQL cannot be reached right now; retry with the same Idempotency-Key (if this "
                                + "request was committed after all, the retry returns its job)")
                        .with("retry_after_seconds", "1");
            }
            log.error("event=http_error method={} path={} error={}", method, path, error.toString(), error);
            return new Problem(500, "internal", "Internal error",
                    "the server could not complete the request; nothing was half-written, retry with the same "
                            + "Idempotency-Key");
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
            metrics.request(match.label(method), status, Duration.ofNanos(System.nanoTime() - started));
        }
    }

    @Override
    public void close() {
        if (server != null) {
            server.close();
        }
    }
}
