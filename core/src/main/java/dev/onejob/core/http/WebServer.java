package dev.onejob.core.http;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.Executor;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.UriCompliance;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP server of the API and of every service's ops endpoint, on Jetty 12: connections are read without a
 * thread each (a stalled client holds a socket, never a server thread), and every limit is explicit. A connection
 * that has sent part of a request head and stalls for {@link Settings#requestHeadTimeout} gets a 408 and is closed;
 * an idle one is closed after {@link Settings#idleTimeout}; at most {@link Settings#maxConnections} are open at once
 * (beyond that the kernel queues new ones until one closes); a request head larger than
 * {@link Settings#maxHeaderBytes} gets a 431. A body is read before its route runs, also without a thread
 * ({@link BodyReader}); one that does not arrive within {@link Settings#bodyTimeout}, or arrives slower than
 * {@link Settings#minBodyRate}, gets a 408 and the connection is closed. A header value with a control character is
 * refused with a 400 before any route sees it, and every answer the server gives itself (malformed HTTP, limits,
 * timeouts, a route that failed) is problem+json. The request-head limit is {@link StalledHeads}'.
 */
public final class WebServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(WebServer.class);

    /**
     * @param name               thread and log name
     * @param threads            threads that run routes (routes may block on PostgreSQL; reading and writing
     *                           connections needs none)
     * @param maxConnections     open connections at most
     * @param maxHeaderBytes     the largest request head (request line and headers)
     * @param idleTimeout        how long a connection may send nothing
     * @param requestHeadTimeout how long a request head may take once its first byte arrived
     * @param tls                serve HTTPS from this certificate and key, or null for plain HTTP
     * @param maxBodyBytes       the most of a body kept for the route (one byte more tells it the body is too large)
     * @param bodyTimeout        how long a whole request body may take once its head is complete
     * @param minBodyRate        the slowest average a body may arrive at after two seconds, in bytes a second
     *                           (0: only {@code bodyTimeout} bounds it)
     */
    public record Settings(String name, String host, int port, int threads, int maxConnections, int maxHeaderBytes,
                           Duration idleTimeout, Duration requestHeadTimeout, PemTls tls, int maxBodyBytes,
                           Duration bodyTimeout, long minBodyRate) {
        /** The body limits of a server whose settings do not name them. */
        public static final int DEFAULT_MAX_BODY_BYTES = 256 * 1024;
        public static final Duration DEFAULT_BODY_TIMEOUT = Duration.ofSeconds(30);
        public static final long DEFAULT_MIN_BODY_RATE = 4096;

        public Settings(String name, String host, int port, int threads, int maxConnections, int maxHeaderBytes,
                        Duration idleTimeout, Duration requestHeadTimeout, PemTls tls) {
            this(name, host, port, threads, maxConnections, maxHeaderBytes, idleTimeout, requestHeadTimeout, tls,
                    DEFAULT_MAX_BODY_BYTES, DEFAULT_BODY_TIMEOUT, DEFAULT_MIN_BODY_RATE);
        }

        /** The defaults of a service's ops endpoint: few threads, a few connections, short limits. */
        public static Settings ops(String name, String host, int port) {
            return new Settings(name, host, port, 4, 64, 8 * 1024, Duration.ofSeconds(30), Duration.ofSeconds(5),
                    null, 64 * 1024, Duration.ofSeconds(5), DEFAULT_MIN_BODY_RATE);
        }

        public Settings withTls(PemTls pem) {
            return new Settings(name, host, port, threads, maxConnections, maxHeaderBytes, idleTimeout,
                    requestHeadTimeout, pem, maxBodyBytes, bodyTimeout, minBodyRate);
        }

        public Settings withBody(int maxBytes, Duration timeout, long minRate) {
            return new Settings(name, host, port, threads, maxConnections, maxHeaderBytes, idleTimeout,
                    requestHeadTimeout, tls, maxBytes, timeout, minRate);
        }
    }

    private final Server server;
    private final QueuedThreadPool pool;
    private final ServerConnector connector;
    private final StalledHeads stalledHeads;

    private WebServer(Settings settings, HttpRoutes routes) {
        pool = new QueuedThreadPool(settings.threads() + 8, Math.min(4, settings.threads() + 2));
        pool.setName(settings.name());
        pool.setDaemon(true);
        server = new Server(pool);
        stalledHeads = new StalledHeads(server, pool, settings);
        connector = new ServerConnector(server, 1, 1, connectionFactories(settings));
        connector.setHost(settings.host());
        connector.setPort(settings.port());
        connector.setIdleTimeout(settings.idleTimeout().toMillis());
        connector.setAcceptQueueSize(1024);
        connector.addBean(stalledHeads);
        server.addConnector(connector);
        server.addBean(new NetworkConnectionLimit(settings.maxConnections(), connector));
        server.setErrorHandler(new ProblemErrorHandler());
        server.setHandler(new Routes(routes, stalledHeads, settings, server));
    }

    /** HTTP/1.1 with the head limit and the URI rules the routes rely on, under TLS when the settings name it. */
    private static ConnectionFactory[] connectionFactories(Settings settings) {
        HttpConfiguration http = new HttpConfiguration();
        http.setRequestHeaderSize(settings.maxHeaderBytes());
        // The parser's per-connection cache of header fields costs ~100 KB per open connection (a trie of char
        // arrays): thousands of keep-alive clients made that a gigabyte of heap. Without it each header is parsed.
        http.setHeaderCacheSize(0);
        http.setSendServerVersion(false);
        http.setSendXPoweredBy(false);
        // An id may hold an encoded slash (%2F): the routes read the raw path and decode each segment themselves.
        http.setUriCompliance(UriCompliance.DEFAULT.with("onejob-ids",
                UriCompliance.Violation.AMBIGUOUS_PATH_SEPARATOR, UriCompliance.Violation.AMBIGUOUS_PATH_ENCODING,
                UriCompliance.Violation.AMBIGUOUS_PATH_SEGMENT, UriCompliance.Violation.AMBIGUOUS_EMPTY_SEGMENT));
        if (settings.tls() == null) {
            return new ConnectionFactory[] {new HttpConnectionFactory(http)};
        }
        http.addCustomizer(new SecureRequestCustomizer(false));
        HttpConnectionFactory h1 = new HttpConnectionFactory(http);
        return new ConnectionFactory[] {new SslConnectionFactory(settings.tls().sslContextFactory(),
                h1.getProtocol()), h1};
    }

    /** Starts serving; the port is known once this returns. */
    public static WebServer start(Settings settings, HttpRoutes routes) throws IOException {
        WebServer web = new WebServer(settings, routes);
        try {
            web.server.start();
        } catch (IOException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException("the HTTP server " + settings.name() + " did not start on " + settings.host() + ":"
                    + settings.port() + ": " + e.getMessage(), e);
        }
        web.stalledHeads.start();
        return web;
    }

    public int port() {
        return connector.getLocalPort();
    }

    /** The server's threads, for work a route finishes later ({@link HttpCall#later}). */
    public Executor executor() {
        return pool;
    }

    /** Tasks waiting for a server thread now (requests to run, connections to read). */
    public int queuedTasks() {
        return pool.getQueueSize();
    }

    /** Connections open now. */
    public int openConnections() {
        return stalledHeads.open();
    }

    @Override
    public void close() {
        try {
            stalledHeads.stop();
            server.stop();
        } catch (Exception e) {
            log.warn("event=http_server_stop_failed error=\"{}\"", e.toString());
        }
    }

    /**
     * Runs the routes for well-formed requests once their body is read ({@link BodyReader}: no thread waits for a
     * body); refuses control characters in header values first.
     */
    private static final class Routes extends Handler.Abstract {
        private final HttpRoutes routes;
        private final StalledHeads stalledHeads;
        private final Settings settings;
        private final Server server;

        Routes(HttpRoutes routes, StalledHeads stalledHeads, Settings settings, Server server) {
            this.routes = routes;
            this.stalledHeads = stalledHeads;
            this.settings = settings;
            this.server = server;
        }

        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            Callback done = stalledHeads.track(request.getConnectionMetaData().getConnection(), callback);
            JettyCall call = new JettyCall(request, response, done);
            String refused = controlCharacter(request.getHeaders());
            if (refused != null) {
                answer(call, request, () -> call.send(400, ProblemJson.CONTENT_TYPE, ProblemJson.forStatus(400,
                        "the value of header " + refused + " holds a control character; header values are taken "
                                + "exactly as sent, so it is refused rather than trimmed")));
                return true;
            }
            BodyReader.read(request, settings, server.getScheduler(), (body, waitedForClient) -> {
                call.body(body, waitedForClient);
                answer(call, request, () -> {
                    routes.handle(call);
                    if (call.status() == 0 && !call.isLater()) {
                        call.send(500, ProblemJson.CONTENT_TYPE, ProblemJson.forStatus(500, "the route gave no "
                                + "answer"));
                    }
                });
            }, reason -> {
                log.info("event=http_request_body_timeout remote={} reason=\"{}\"",
                        request.getConnectionMetaData().getRemoteSocketAddress(), reason);
                answer(call, request, () -> call.bodyStalled(reason));
            });
            return true;
        }

        /** What a route (or the server) does with a call; anything it throws becomes a 500 problem. */
        private interface Answer {
            void run() throws IOException;
        }

        private static void answer(JettyCall call, Request request, Answer answer) {
            try {
                answer.run();
            } catch (Throwable e) {
                log.error("event=http_route_failed method={} path={} error=\"{}\"", request.getMethod(),
                        request.getHttpURI().getPath(), e.toString(), e);
                if (call.status() == 0) {
                    try {
                        call.send(500, ProblemJson.CONTENT_TYPE, ProblemJson.forStatus(500, "the server could not "
                                + "complete the request"));
                    } catch (IOException | RuntimeException ignored) {
                        call.failed(e);
                    }
                }
            }
        }

        /** The name of the first header whose value holds a control character (not a tab), or null. */
        static String controlCharacter(HttpFields headers) {
            for (HttpField field : headers) {
                String value = field.getValue();
                if (value == null) {
                    continue;
                }
                for (int i = 0; i < value.length(); i++) {
                    char c = value.charAt(i);
                    if ((c < 0x20 && c != '\t') || c == 0x7f) {
                        return field.getName();
                    }
                }
            }
            return null;
        }
    }
}
