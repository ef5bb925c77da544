package dev.onejob.providers;

import java.io.ByteArrayOutputStream;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * A provider reply's body, read with a bound on what is kept in memory, whatever the provider sends.
 *
 * <ul>
 *   <li>{@link #answer}: a 2xx reply that is not an event stream. Kept whole up to its limit; past it the reply is
 *       an answer too large to keep, and, as a streamed one is, it is read to its end (the usage the provider
 *       reports comes last) keeping only its last {@link #TAIL_BYTES}.</li>
 *   <li>{@link #cut}: an error reply, or any reply only a short text is taken from. Kept up to its limit; past it
 *       the rest is not read: the connection is dropped.</li>
 * </ul>
 *
 * <p>Consumes the body's buffers as the HTTP client hands them over; produces a {@link Read}. Owns the bytes kept.
 */
final class BoundedBody implements HttpResponse.BodySubscriber<BoundedBody.Read> {
    /** How much of an error reply is read: only a message is taken from it. */
    static final int ERROR_BYTES_LIMIT = 64 * 1024;
    /** How much of an answer's end is kept once it is over its limit: where its usage block is. */
    static final int TAIL_BYTES = 64 * 1024;

    /**
     * What was read. {@code text}: the body (up to the limit for a cut one), or null for an answer over its limit;
     * {@code bytes}: how many bytes were read; {@code over}: the body was longer than the limit; {@code tail}: for
     * an answer over its limit, its last bytes as text (possibly starting mid-character), else null.
     */
    record Read(String text, long bytes, boolean over, String tail) {
    }

    private final int limit;
    private final boolean readToEnd;
    private final CompletableFuture<Read> result = new CompletableFuture<>();
    private ByteArrayOutputStream kept = new ByteArrayOutputStream();
    private byte[] tail;
    /** Where the next byte goes in {@link #tail}, and whether it has wrapped around. */
    private int tailNext;
    private boolean tailFull;
    private long bytes;
    private boolean over;
    private Flow.Subscription subscription;

    private BoundedBody(int limit, boolean readToEnd) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be >= 1, was " + limit);
        }
        this.limit = limit;
        this.readToEnd = readToEnd;
    }

    /** A 2xx answer: kept up to {@code limit} bytes, past them read to its end with only its tail kept. */
    static BoundedBody answer(int limit) {
        return new BoundedBody(limit, true);
    }

    /** An error reply (or a short one): kept up to {@code limit} bytes, the rest not read. */
    static BoundedBody cut(int limit) {
        return new BoundedBody(limit, false);
    }

    /** A body handler for a short reply's text, cut at {@code limit} bytes. */
    static HttpResponse.BodyHandler<String> text(int limit) {
        return info -> HttpResponse.BodySubscribers.mapping(cut(limit), Read::text);
    }

    /** The bytes held now: what was kept of the body plus the tail (for tests: it never exceeds the bound). */
    synchronized long heldBytes() {
        return (kept == null ? 0 : kept.size()) + (tail == null ? 0 : tail.length);
    }

    @Override
    public CompletionStage<Read> getBody() {
        return result;
    }

    @Override
    public synchronized void onSubscribe(Flow.Subscription subscription) {
        this.subscription = subscription;
        subscription.request(1);
    }

    @Override
    public void onNext(List<ByteBuffer> buffers) {
        Flow.Subscription next;
        synchronized (this) {
            if (result.isDone()) {
                return;
            }
            for (ByteBuffer buffer : buffers) {
                if (!take(buffer)) {
                    subscription.cancel();
                    complete();
                    return;
                }
            }
            next = subscription;
        }
        next.request(1);
    }

    /** Takes one buffer; false once a cut body has all it keeps. */
    private boolean take(ByteBuffer buffer) {
        bytes += buffer.remaining();
        if (!over) {
            int room = limit - kept.size();
            if (buffer.remaining() <= room) {
                copy(buffer, buffer.remaining(), kept);
                return true;
            }
            over = true;
            if (!readToEnd) {
                copy(buffer, room, kept);
                return false;
            }
            // Over: nothing of the answer is kept but its end, which starts with the end of what was kept so far.
            byte[] sofar = kept.toByteArray();
            kept = null;
            tail = new byte[TAIL_BYTES];
            keepTail(ByteBuffer.wrap(sofar, Math.max(0, sofar.length - TAIL_BYTES),
                    Math.min(sofar.length, TAIL_BYTES)));
        }
        if (readToEnd) {
            keepTail(buffer);
        }
        return true;
    }

    private static void copy(ByteBuffer buffer, int count, ByteArrayOutputStream out) {
        byte[] chunk = new byte[count];
        buffer.get(chunk);
        out.write(chunk, 0, count);
    }

    private void keepTail(ByteBuffer buffer) {
        if (buffer.remaining() > tail.length) {
            buffer.position(buffer.limit() - tail.length);
        }
        while (buffer.hasRemaining()) {
            int count = Math.min(buffer.remaining(), tail.length - tailNext);
            buffer.get(tail, tailNext, count);
            tailNext += count;
            if (tailNext == tail.length) {
                tailNext = 0;
                tailFull = true;
            }
        }
    }

    @Override
    public synchronized void onError(Throwable throwable) {
        result.completeExceptionally(throwable);
    }

    @Override
    public synchronized void onComplete() {
        complete();
    }

    private void complete() {
        if (result.isDone()) {
            return;
        }
        if (kept != null) {
            result.complete(new Read(kept.toString(StandardCharsets.UTF_8), bytes, over, null));
            return;
        }
        byte[] ordered;
        if (tailFull) {
            ordered = new byte[tail.length];
            System.arraycopy(tail, tailNext, ordered, 0, tail.length - tailNext);
            System.arraycopy(tail, 0, ordered, tail.length - tailNext, tailNext);
        } else {
            ordered = Arrays.copyOf(tail, tailNext);
        }
        result.complete(new Read(null, bytes, true, new String(ordered, StandardCharsets.UTF_8)));
    }
}
