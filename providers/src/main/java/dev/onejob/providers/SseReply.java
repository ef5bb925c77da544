package dev.onejob.providers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.json.Json;
import java.util.concurrent.Flow;

/**
 * A streamed reply (Server-Sent Events), read line by line as it arrives, its pieces of answer handed to a
 * {@link ChunkSink}, and assembled into the reply the same call would have had unstreamed, so it is read by exactly
 * the code that reads those ({@link WireFormat#answer()}, {@link WireFormat#usage()}).
 *
 * <p>Made per protocol by {@link #openAi} and {@link #anthropic}. A stream that ends without its end event, or with
 * an error event, says so in {@link Assembled#problem()}: such a reply is no answer.
 */
abstract class SseReply implements Flow.Subscriber<String> {
    /**
     * The assembled reply, or why there is none. {@code tooLarge}: the answer's text ran past the limit set with
     * {@link #limitTo}; the reply then holds the text up to the limit, and its usage block as the provider sent it.
     */
    record Assembled(ObjectNode reply, String problem, boolean errorEvent, boolean tooLarge, long answerChars) {
        Assembled(ObjectNode reply, String problem, boolean errorEvent) {
            this(reply, problem, errorEvent, false, 0);
        }
    }

    private final ChunkSink sink;
    private long maxChars = Long.MAX_VALUE;
    private long answerChars;
    private final StringBuilder data = new StringBuilder();
    private String event;
    private boolean ended;
    private String error;
    /** A line or an event was longer than any answer may be: dropped unread, and the answer too large. */
    private boolean overlong;
    /** The event being read went past that bound: its further data lines are dropped until its blank line. */
    private boolean droppingEvent;

    SseReply(ChunkSink sink) {
        this.sink = sink;
    }

    /**
     * Keeps at most {@code maxChars} characters of answer: past them the stream is still read to its end (for the
     * usage the provider reports there), its text neither kept nor handed on.
     */
    final SseReply limitTo(long maxChars) {
        this.maxChars = maxChars;
        return this;
    }

    static SseReply openAi(ChunkSink sink) {
        return new OpenAiSseReply(sink);
    }

    static SseReply anthropic(ChunkSink sink) {
        return new AnthropicSseReply(sink);
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
        subscription.request(Long.MAX_VALUE);
    }

    /** A line longer than any answer may be arrived ({@link BoundedLines}): it was dropped unread. */
    final void overlong() {
        overlong = true;
    }

    @Override
    public void onNext(String line) {
        if (line.isEmpty()) {
            droppingEvent = false;
            dispatch();
        } else if (line.startsWith("data:")) {
            if (droppingEvent || data.length() + line.length() > ProviderConfig.ANSWER_BYTES_LIMIT) {
                // An event of many data lines, longer than any answer may be: dropped, like an over-long line.
                overlong = true;
                droppingEvent = true;
                data.setLength(0);
                return;
            }
            data.append(data.length() == 0 ? "" : "\n").append(stripOneSpace(line.substring(5)));
        } else if (line.startsWith("event:")) {
            event = stripOneSpace(line.substring(6));
        }
        // Comments (":") and other fields (id, retry) carry nothing a reply needs.
    }

    @Override
    public void onError(Throwable throwable) {
        // The exchange's future fails with it; nothing to assemble.
    }

    @Override
    public void onComplete() {
        dispatch();
    }

    private void dispatch() {
        if (data.length() == 0) {
            event = null;
            return;
        }
        String text = data.toString();
        String name = event;
        data.setLength(0);
        event = null;
        if (ended || error != null) {
            return;
        }
        if (text.equals("[DONE]")) {
            ended = true;
            return;
        }
        JsonNode json;
        try {
            json = Json.parse(text);
        } catch (IllegalArgumentException e) {
            error = "the stream held an event that is not JSON: " + e.getMessage();
            return;
        }
        if ("error".equals(name) || json.has("error") && !json.has("choices")) {
            error = json.path("error").path("message").asText(Json.write(json));
            return;
        }
        if (event(name, json)) {
            ended = true;
        }
    }

    /** Reads one event; true when it is the stream's end event. */
    abstract boolean event(String name, JsonNode data);

    /** The reply as the unstreamed call would have had it. */
    abstract ObjectNode reply();

    /** Counts a piece of answer; true when it is within the limit, so kept and handed on. */
    final boolean keep(String text) {
        answerChars += text.length();
        return answerChars <= maxChars;
    }

    /** Hands a piece on. */
    final void piece(String text) {
        if (text != null && !text.isEmpty()) {
            sink.piece(text);
        }
    }

    /** Called by the body handler once the body is complete. */
    final Assembled assembled() {
        if (error != null) {
            return new Assembled(null, "the provider's stream ended with an error event: " + error, true);
        }
        if (!ended) {
            return new Assembled(null, "the provider's stream ended before its end event", false);
        }
        sink.end();
        return new Assembled(reply(), null, false, overlong || answerChars > maxChars, answerChars);
    }

    private static String stripOneSpace(String value) {
        return value.startsWith(" ") ? value.substring(1) : value;
    }
}
