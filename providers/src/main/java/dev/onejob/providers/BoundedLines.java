package dev.onejob.providers;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.Flow;

/**
 * The lines of an event stream, split from its bytes with a bound: a line is kept up to {@code maxLineBytes}; past
 * that its bytes are read and dropped until its end, and {@code onOverlong} is told, so a provider that never sends a
 * line break costs a bounded buffer, not the heap. (The JDK's line subscriber keeps a line whole, however long.)
 * Lines end at CR, LF or CRLF, as the event-stream format says; each is decoded as UTF-8.
 */
final class BoundedLines implements Flow.Subscriber<List<ByteBuffer>> {
    private final Flow.Subscriber<String> lines;
    private final int maxLineBytes;
    private final Runnable onOverlong;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();
    private boolean afterCr;
    private boolean dropping;

    BoundedLines(Flow.Subscriber<String> lines, int maxLineBytes, Runnable onOverlong) {
        this.lines = lines;
        this.maxLineBytes = maxLineBytes;
        this.onOverlong = onOverlong;
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
        lines.onSubscribe(subscription);
    }

    @Override
    public void onNext(List<ByteBuffer> buffers) {
        for (ByteBuffer buffer : buffers) {
            while (buffer.hasRemaining()) {
                byte b = buffer.get();
                if (b == '\n' && afterCr) {
                    afterCr = false;
                    continue;
                }
                afterCr = b == '\r';
                if (b == '\n' || b == '\r') {
                    endLine();
                } else if (!dropping) {
                    if (line.size() >= maxLineBytes) {
                        dropping = true;
                        line.reset();
                        onOverlong.run();
                    } else {
                        line.write(b);
                    }
                }
            }
        }
    }

    private void endLine() {
        if (dropping) {
            dropping = false;
            return;
        }
        lines.onNext(line.toString(StandardCharsets.UTF_8));
        line.reset();
    }

    @Override
    public void onError(Throwable throwable) {
        lines.onError(throwable);
    }

    @Override
    public void onComplete() {
        if (line.size() > 0) {
            endLine();
        }
        lines.onComplete();
    }
}
