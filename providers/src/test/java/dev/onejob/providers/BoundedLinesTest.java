package dev.onejob.providers;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * An event stream's lines, split from its bytes with a bound: a provider that never sends a line break costs a
 * bounded buffer, and the lines around an over-long one arrive as sent.
 */
class BoundedLinesTest {
    private final List<String> seen = new ArrayList<>();
    private final AtomicInteger overlong = new AtomicInteger();
    private final BoundedLines lines = new BoundedLines(new Flow.Subscriber<>() {
        @Override
        public void onSubscribe(Flow.Subscription subscription) {
        }

        @Override
        public void onNext(String line) {
            seen.add(line);
        }

        @Override
        public void onError(Throwable throwable) {
        }

        @Override
        public void onComplete() {
            seen.add("<end>");
        }
    }, 16, overlong::incrementAndGet);

    @Test
    void linesEndAtCrLfOrCrlfEvenAcrossBuffers() {
        send("data: a\r", "\ndata: b\n\nevent: é\rdata: c");
        lines.onComplete();
        assertEquals(List.of("data: a", "data: b", "", "event: é", "data: c", "<end>"), seen);
        assertEquals(0, overlong.get());
    }

    @Test
    void aLineLongerThanTheBoundIsDroppedAndTold() {
        // a megabyte with no line break, in pieces, between two ordinary lines
        send("data: first\n");
        for (int i = 0; i < 1024; i++) {
            send("x".repeat(1024));
        }
        send("\ndata: last\n");
        lines.onComplete();
        assertEquals(List.of("data: first", "data: last", "<end>"), seen);
        assertEquals(1, overlong.get());
    }

    private void send(String... pieces) {
        List<ByteBuffer> buffers = new ArrayList<>();
        for (String piece : pieces) {
            buffers.add(ByteBuffer.wrap(piece.getBytes(StandardCharsets.UTF_8)));
        }
        lines.onNext(buffers);
    }
}
