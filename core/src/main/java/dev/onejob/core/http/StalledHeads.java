package dev.onejob.core.http;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.ssl.SslConnection;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The request-head time limit of a {@link WebServer} ({@link WebServer.Settings#requestHeadTimeout}): tracks every
 * open HTTP connection (as a listener on the connector), is told when a request starts and when its answer is
 * complete ({@link #track}), and sweeps a few times a second for connections that sent part of a request head but no
 * whole head in time, which it answers 408 and closes. A slow-loris client that trickles bytes would defeat the idle
 * timeout. Also counts the open connections.
 */
final class StalledHeads implements Connection.Listener {
    /** The server's logger: a head timeout is the server's event in the logs. */
    private static final Logger log = LoggerFactory.getLogger(WebServer.class);

    private final Map<Connection, Tracked> connections = new ConcurrentHashMap<>();
    private final Server server;
    private final QueuedThreadPool pool;
    private final int threads;
    private final long headTimeoutNanos;
    private volatile Scheduler.Task sweep;

    /** A connection's state for the request-head time limit. */
    private static final class Tracked {
        volatile boolean inRequest;
        /** Bytes read when the last answer was complete (0 for a new connection). */
        volatile long bytesInAtWait;
        /** When a sweep first saw bytes of the next request head arrive (0: none seen yet). */
        volatile long headStartedNanos;
    }

    StalledHeads(Server server, QueuedThreadPool pool, WebServer.Settings settings) {
        this.server = server;
        this.pool = pool;
        this.threads = settings.threads();
        this.headTimeoutNanos = settings.requestHeadTimeout().toNanos();
    }

    @Override
    public void onOpened(Connection connection) {
        // The HTTP connection only: under TLS its bytes are the decrypted ones; the TLS connection beneath
        // it counts handshake bytes that no request head follows.
        if (!(connection instanceof SslConnection)) {
            connections.put(connection, new Tracked());
        }
    }

    @Override
    public void onClosed(Connection connection) {
        connections.remove(connection);
    }

    /** Connections open now. */
    int open() {
        return connections.size();
    }

    /**
     * Marks a request on {@code connection} as started, and returns {@code callback} wrapped to mark it answered when
     * it completes (the next request head is timed from then on); {@code callback} itself for a connection not tracked.
     */
    Callback track(Connection connection, Callback callback) {
        Tracked tracked = connections.get(connection);
        if (tracked == null) {
            return callback;
        }
        tracked.inRequest = true;
        tracked.headStartedNanos = 0;
        return Callback.from(callback, () -> {
            tracked.bytesInAtWait = connection.getBytesIn();
            tracked.headStartedNanos = 0;
            tracked.inRequest = false;
        });
    }

    /** Sweeps now and then while the server runs. */
    void start() {
        long every = Math.max(100, Math.min(1000, TimeUnit.NANOSECONDS.toMillis(headTimeoutNanos) / 2));
        sweep = server.getScheduler().schedule(() -> {
            try {
                sweepStalledHeads();
            } finally {
                if (server.isRunning()) {
                    start();
                }
            }
        }, every, TimeUnit.MILLISECONDS);
    }

    void stop() {
        if (sweep != null) {
            sweep.cancel();
        }
    }

    /**
     * Answers 408 and closes every connection that sent part of a request head (bytes since its last answer) but no
     * whole head within the time limit.
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
            timeOut(connection);
        }
    }

    private void timeOut(Connection connection) {
        log.info("event=http_request_head_timeout remote={} bytes_in={}",
                connection.getEndPoint().getRemoteSocketAddress(), connection.getBytesIn());
        byte[] body = ProblemJson.forStatus(408, "the request head did not arrive within "
                + TimeUnit.NANOSECONDS.toMillis(headTimeoutNanos) + " ms");
        byte[] head = ("HTTP/1.1 408 Request Timeout\r\nContent-Type: " + ProblemJson.CONTENT_TYPE
                + "\r\nContent-Length: " + body.length + "\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        // Written to the socket directly, then the socket closed: closing the connection instead would have
        // Jetty answer the half-read request a second time (a 500 for the early end of its stream).
        EndPoint endPoint = connection.getEndPoint();
        try {
            endPoint.write(Callback.from(endPoint::close, failure -> endPoint.close()), ByteBuffer.wrap(head),
                    ByteBuffer.wrap(body));
        } catch (RuntimeException e) {
            endPoint.close();
        }
    }
}
