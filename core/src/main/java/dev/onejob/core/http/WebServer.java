package dev.onejob.core.http;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.UriCompliance;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.Scheduler;
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
 * {@link Settings#minBodyRate}, gets a 408 and the connection is closed. A header value with a control character is refused with a 400 before
 * any route sees it, and every answer the server gives itself (malformed HTTP, limits, timeouts, a route that failed)
 * is problem+json.
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
    private final Map<Connection, Tracked> connections = new ConcurrentHashMap<>();
    private volatile Scheduler.Task sweep;

    /** A connection's state for the request-head time limit. */
    private static final class Tracked {
        volatile boolean inRequest;
        /** Bytes read when the last answer was complete (0 for a new connection). */
        volatile long bytesInAtWait;
        /** When a sweep first saw bytes of the next request head arrive (0: none seen yet). */
        volatile long headStartedNanos;
    }

    private WebServer(Settings settings, HttpRoutes routes) {
        pool = new QueuedThreadPool(settings.threads() + 8, Math.min(4, settings.threads() + 2));
        pool.setName(settings.name());
        pool.setDaemon(true);
        server = new Server(pool);
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
        ConnectionFactory[] factories;
        if (settings.tls() != null) {
            http.addCustomizer(new org.eclipse.jetty.server.SecureRequestCustomizer(false));
            HttpConnectionFactory h1 = new HttpConnectionFactory(http);
            factories = new ConnectionFactory[] {new SslConnectionFactory(settings.tls().sslContextFactory(),
                    h1.getProtocol()), h1};
        } else {
            factories = new ConnectionFactory[] {new HttpConnectionFactory(http)};
        }
        connector = new ServerConnector(server, 1, 1, factories);
        connector.setHost(settings.host());
        connector.setPort(settings.port());
        connector.setIdleTimeout(settings.idleTimeout().toMillis());
        connector.setAcceptQueueSize(1024);
        connector.addBean(new Connection.Listener() {
            @Override
            public void onOpened(Connection connection) {
                // The HTTP connection only: under TLS its bytes are the decrypted ones; the TLS connection beneath
                // it counts handshake bytes that no request head follows.
                if (!(connection instanceof org.eclipse.jetty.io.ssl.SslConnection)) {
                    connections.put(connection, new Tracked());
                }
            }

            @Override
            public void onClosed(Connection connection) {
                connections.remove(connection);
            }
        });
        server.addConnector(connector);
        server.addBean(new NetworkConnectionLimit(settings.maxConnections(), connector));
        server.setErrorHandler(new ProblemErrorHandler());
        server.setHandler(new Routes(routes, connections, settings, server));
        this.headTimeoutNanos = settings.requestHeadTimeout().toNanos();
        this.threads = settings.threads();
    }

    private final long headTimeoutNanos;
    private final int threads;

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
        web.scheduleSweep();
        return web;
    }

    public int port() {
        return connector.getLocalPort();
    }

    /** The server's threads, for work a route finishes later ({@link HttpCall#later}). */
    public java.util.concurrent.Executor executor() {
        return pool;
    }

    /** Tasks waiting for a server thread now (requests to run, connections to read). */
    public int queuedTasks() {
        return pool.getQueueSize();
    }

    /** Connections open now. */
    public int openConnections() {
        return connections.size();
    }

    private void scheduleSweep() {
        long every = Math.max(100, Math.min(1000, TimeUnit.NANOSECONDS.toMillis(headTimeoutNanos) / 2));
        sweep = server.getScheduler().schedule(() -> {
            try {
                sweepStalledHeads();
            } finally {
                if (server.isRunning()) {
                    scheduleSweep();
                }
            }
        }, every, TimeUnit.MILLISECONDS);
    }

    /**
     * Answers 408 and closes every connection that sent part of a request head (bytes since its last answer) but no
     * whole head within the time limit: a slow-loris client that trickles bytes would defeat the idle timeout.
     */
    private void sweepStalledHeads() {
        // A server whose threads are all busy reads heads late itself: a head that waits then is not the client's
        // stall, and answering it 408 would refuse a request the client sent whole.
        if (pool.getQueueSize() > threads) {
            return;
        }
        long now = System.nanoTime();
        for (Map.Entry<Connection, Tracked> entry : connections.entrySet()) {
            Connection connection = entry.getKey();
            Tracked tracked = entry.getValue();
            if (tracked.inRequest || connection.getBytesIn() <= tracked.bytesInAtWait) {
                continue;
            }
            // Timed from the first sweep that saw the head's bytes (within a sweep's period of their arrival),
            // not from the last answer: a keep-alive connection may idle long before its next request.
            if (tracked.headStartedNanos == 0) {
                tracked.headStartedNanos = now;
                continue;
            }
            if (now - tracked.headStartedNanos < headTimeoutNanos) {
                continue;
            }
            connections.remove(connection);
            log.info("event=http_request_head_timeout remote={} bytes_in={}",
                    connection.getEndPoint().getRemoteSocketAddress(), connection.getBytesIn());
            byte[] body = ProblemJson.forStatus(408, "the request head did not arrive within "
                    + TimeUnit.NANOSECONDS.toMillis(headTimeoutNanos) + " ms");
            byte[] head = ("HTTP/1.1 408 Request Timeout\r\nContent-Type: " + ProblemJson.CONTENT_TYPE
                    + "\r\nContent-Length: " + body.length + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII);
            // Written to the socket directly, then the socket closed: closing the connection instead would have
            // Jetty answer the half-read request a second time (a 500 for the early end of its stream).
            var endPoint = connection.getEndPoint();
            try {
                endPoint.write(Callback.from(endPoint::close, failure -> endPoint.close()), ByteBuffer.wrap(head),
                        ByteBuffer.wrap(body));
            } catch (RuntimeException e) {
                endPoint.close();
            }
        }
    }

    @Override
    public void close() {
        try {
            if (sweep != null) {
                sweep.cancel();
            }
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
        private final Map<Connection, Tracked> connections;
        private final Settings settings;
        private final Server server;

        Routes(HttpRoutes routes, Map<Connection, Tracked> connections, Settings settings, Server server) {
            this.routes = routes;
            this.connections = connections;
            this.settings = settings;
            this.server = server;
        }

        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            Connection connection = request.getConnectionMetaData().getConnection();
            Tracked tracked = connections.get(connection);
            Callback done = callback;
            if (tracked != null) {
                tracked.inRequest = true;
                tracked.headStartedNanos = 0;
                done = Callback.from(callback, () -> {
                    tracked.bytesInAtWait = connection.getBytesIn();
                    tracked.headStartedNanos = 0;
                    tracked.inRequest = false;
                });
            }
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
