package dev.onejob.providers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.config.ProviderConfig;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Flow;
import org.junit.jupiter.api.Test;

/** A provider reply's body is read with a bound on what is kept, however long it is. */
class BoundedBodyTest {
    private static final int MIB = 1024 * 1024;

    /** A subscription that counts what the reader asks for and whether it hung up. */
    private static final class Counting implements Flow.Subscription {
        long requested;
        boolean cancelled;

        @Override
        public void request(long n) {
            requested += n;
        }

        @Override
        public void cancel() {
            cancelled = true;
        }
    }

    private static ByteBuffer ascii(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void aGibibyteAnswerIsReadToItsEndKeepingNoMoreThanTheLimitAndItsUsageIsFoundAtItsEnd() {
        // given an answer of 1 GiB of text between the reply's head and its usage block
        BoundedBody body = BoundedBody.answer(ProviderConfig.ANSWER_BYTES_LIMIT);
        Counting subscription = new Counting();
        body.onSubscribe(subscription);
        byte[] text = new byte[MIB];
        Arrays.fill(text, (byte) 'a');
        long sent = 0;
        long mostHeld = 0;

        // when it arrives a mebibyte at a time
        ByteBuffer head = ascii("{\"id\":\"chatcmpl-1\",\"choices\":[{\"message\":{\"content\":\"");
        sent += head.remaining();
        body.onNext(List.of(head));
        for (int i = 0; i < 1024; i++) {
            body.onNext(List.of(ByteBuffer.wrap(text)));
            sent += text.length;
            mostHeld = Math.max(mostHeld, body.heldBytes());
        }
        ByteBuffer end = ascii("\"}}],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":268435456}}");
        sent += end.remaining();
        body.onNext(List.of(end));
        body.onComplete();
        BoundedBody.Read read = body.getBody().toCompletableFuture().join();

        // then all of it was read, never more than the limit kept, and the usage is the reply's own
        assertTrue(mostHeld <= ProviderConfig.ANSWER_BYTES_LIMIT, mostHeld + " bytes held");
        assertEquals(BoundedBody.TAIL_BYTES, body.heldBytes(), "past the limit only the tail is kept");
        assertFalse(subscription.cancelled, "an answer over its limit is read to its end, for its usage");
        assertEquals(sent, read.bytes());
        assertTrue(read.over());
        assertNull(read.text());
        JsonNode usage = ProviderTransport.usageAtEnd(read.tail());
        assertEquals(9, usage.path("prompt_tokens").asLong());
        assertEquals(268435456L, usage.path("completion_tokens").asLong());
    }

    @Test
    void anEndlessErrorBodyIsCutAtItsLimitAndTheRestIsNotRead() {
        // given an error body that never ends
        BoundedBody body = BoundedBody.cut(BoundedBody.ERROR_BYTES_LIMIT);
        Counting subscription = new Counting();
        body.onSubscribe(subscription);
        byte[] chunk = new byte[16 * 1024];
        Arrays.fill(chunk, (byte) 'x');

        // when it keeps coming
        body.onNext(List.of(ascii("{\"error\":{\"message\":\"boom ")));
        int chunks = 0;
        while (!body.getBody().toCompletableFuture().isDone() && chunks < 1_000) {
            body.onNext(List.of(ByteBuffer.wrap(chunk)));
            chunks++;
        }
        BoundedBody.Read read = body.getBody().toCompletableFuture().join();

        // then the reader hung up once it had its limit, and kept exactly that much
        assertTrue(subscription.cancelled, "the rest of the body must not be read");
        assertTrue(chunks <= BoundedBody.ERROR_BYTES_LIMIT / chunk.length + 1, chunks + " chunks read");
        assertTrue(read.over());
        assertEquals(BoundedBody.ERROR_BYTES_LIMIT, read.text().length());
        assertTrue(read.text().startsWith("{\"error\":{\"message\":\"boom "));
    }

    @Test
    void aBodyWithinItsLimitIsKeptWhole() {
        BoundedBody body = BoundedBody.answer(64);
        body.onSubscribe(new Counting());
        body.onNext(List.of(ascii("{\"a\":"), ascii("1}")));
        body.onComplete();

        BoundedBody.Read read = body.getBody().toCompletableFuture().join();

        assertEquals("{\"a\":1}", read.text());
        assertFalse(read.over());
        assertEquals(7, read.bytes());
    }

    @Test
    void theUsageFoundIsTheReplysOwnNotOneQuotedInTheAnswer() {
        String tail = "ld say \\\"usage\\\": {\\\"prompt_tokens\\\": 1}\"}}],\"usage\" : {\"prompt_tokens\":5,"
                + "\"completion_tokens\":6,\"prompt_tokens_details\":{\"cached_tokens\":0}}}";

        JsonNode usage = ProviderTransport.usageAtEnd(tail);

        assertEquals(5, usage.path("prompt_tokens").asLong());
        assertNull(ProviderTransport.usageAtEnd("aaaa\"}}],\"usage\":{\"prompt_tok"), "a cut usage block is none");
    }
}
