package dev.onejob.core.http;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * Reads one request's body before its route runs, without a thread: each read takes what has arrived and asks Jetty
 * to call back when more does ({@link Request#demand}), so a client that trickles its body holds a socket and a few
 * bytes, never a server thread. Two limits end a body that does not arrive: the whole body within
 * {@link WebServer.Settings#bodyTimeout}, and, after {@link #GRACE}, at least {@link WebServer.Settings#minBodyRate}
 * bytes a second on average (a client that sends one byte a second keeps a connection's idle timeout from ever
 * firing). Either one answers 408 (by {@code onStalled}) and the connection is closed.
 *
 * <p>At most {@code maxBodyBytes + 1} bytes are kept: a route that finds more than its limit answers 413. An
 * oversized body is read and discarded up to {@link #DRAIN} more bytes first, so the 413 reaches a client that is
 * still sending (a socket closed with bytes unread is reset, and the reset can destroy the answer on its way).
 */
final class BodyReader implements Runnable {
    /** How much of an oversized body is read and discarded before its 413. */
    static final long DRAIN = 1024 * 1024;
    /** How long a body may take before its average rate is judged. */
    static final long GRACE = TimeUnit.SECONDS.toNanos(2);
    private static final long CHECK_EVERY_MS = 500;

    private final Request request;
    private final int limit;
    private final long timeoutNanos;
    private final long minRate;
    private final Scheduler scheduler;
    private final BiConsumer<byte[], Long> onBody;
    private final Consumer<String> onStalled;
    private final long started = System.nanoTime();
    private byte[] kept = new byte[0];
    private int keptLength;
    private long received;
    /** Set once the body was handed on or refused: whatever Jetty calls back later is ignored. */
    private boolean ended;
    private Scheduler.Task check;
    /** When the reader first had to wait for the client's bytes (0: the whole body came with the head). */
    private long firstDemandNanos;

    private BodyReader(Request request, WebServer.Settings settings, Scheduler scheduler,
                       BiConsumer<byte[], Long> onBody, Consumer<String> onStalled) {
        this.request = request;
        this.limit = settings.maxBodyBytes();
        this.timeoutNanos = settings.bodyTimeout().toNanos();
        this.minRate = settings.minBodyRate();
        this.scheduler = scheduler;
        this.onBody = onBody;
        this.onStalled = onStalled;
    }

    /**
     * Reads {@code request}'s body, then calls {@code onBody} with it (at most {@code maxBodyBytes + 1} bytes; empty
     * for a request without one) and how long it waited for the client's bytes (0 when they came with the head), or
     * {@code onStalled} with the reason it did not arrive. Either is called once, on this thread when the body is here
     * already, otherwise on a server thread when its last byte arrives.
     */
    static void read(Request request, WebServer.Settings settings, Scheduler scheduler,
                     BiConsumer<byte[], Long> onBody, Consumer<String> onStalled) {
        long declared = request.getLength();
        if (declared > settings.maxBodyBytes() + DRAIN) {
            // Too large to drain: the route refuses it from its Content-Length, and the connection is closed.
            onBody.accept(new byte[0], 0L);
            return;
        }
        new BodyReader(request, settings, scheduler, onBody, onStalled).run();
    }

    /** Reads what has arrived; asks to be called again when more does. */
    @Override
    public void run() {
        while (true) {
            Content.Chunk chunk;
            synchronized (this) {
                if (ended) {
                    return;
                }
                chunk = request.read();
                if (chunk == null) {
                    if (check == null) {
                        firstDemandNanos = System.nanoTime();
                        scheduleCheck();
                    }
                    request.demand(this);
                    return;
                }
            }
            if (Content.Chunk.isFailure(chunk)) {
                // The client left or the connection's idle timeout fired: nobody waits for an answer but the log.
                stalled("the request body stopped arriving: " + chunk.getFailure().getClass().getSimpleName());
                return;
            }
            boolean last = chunk.isLast();
            keep(chunk.getByteBuffer());
            chunk.release();
            if (last || received > limit + DRAIN) {
                finish();
                return;
            }
        }
    }

    private void keep(ByteBuffer buffer) {
        int length = buffer.remaining();
        received += length;
        int room = limit + 1 - keptLength;
        int take = Math.min(room, length);
        if (take > 0) {
            if (keptLength + take > kept.length) {
                kept = Arrays.copyOf(kept, Math.max(keptLength + take, Math.min(limit + 1, kept.length * 2 + 1024)));
            }
            buffer.get(kept, keptLength, take);
            keptLength += take;
        }
    }

    private void finish() {
        if (end()) {
            long waited = firstDemandNanos == 0 ? 0 : System.nanoTime() - firstDemandNanos;
            onBody.accept(keptLength == kept.length ? kept : Arrays.copyOf(kept, keptLength), waited);
        }
    }

    private void stalled(String reason) {
        if (end()) {
            onStalled.accept(reason);
        }
    }

    /** Ends the read once: true for the one caller that ended it, which answers. */
    private synchronized boolean end() {
        if (ended) {
            return false;
        }
        ended = true;
        if (check != null) {
            check.cancel();
        }
        return true;
    }

    private void scheduleCheck() {
        check = scheduler.schedule(this::checkProgress, CHECK_EVERY_MS, TimeUnit.MILLISECONDS);
    }

    /** Refuses a body that takes too long in all, or arrives too slowly on average once the grace is over. */
    private void checkProgress() {
        long elapsed;
        long got;
        synchronized (this) {
            if (ended) {
                return;
            }
            elapsed = System.nanoTime() - started;
            got = received;
        }
        if (elapsed >= timeoutNanos) {
            stalled("the request body did not arrive within " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos)
                    + " ms (" + got + " bytes came)");
            return;
        }
        if (minRate > 0 && elapsed > GRACE && got < minRate * (double) (elapsed - GRACE) / 1e9) {
            stalled("the request body arrived slower than " + minRate + " bytes a second (" + got + " bytes in "
                    + TimeUnit.NANOSECONDS.toMillis(elapsed) + " ms)");
            return;
        }
        synchronized (this) {
            if (!ended) {
                scheduleCheck();
            }
        }
    }
}
