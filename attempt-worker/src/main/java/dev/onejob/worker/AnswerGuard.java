package dev.onejob.worker;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectWriter;
import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.json.Json;
import dev.onejob.core.json.JsonNumbers;
import dev.onejob.core.json.StorableText;
import dev.onejob.core.ledger.AttemptFailure;
import dev.onejob.providers.CallOutcome;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Makes what a provider sent storable before the worker publishes it. Consumes a {@link CallOutcome}; produces one
 * that PostgreSQL can store and the {@code attempt-completions} topic accepts, whatever the provider answered.
 *
 * <p>A result that cannot be stored (a U+0000 or an unpaired surrogate in a string, which {@code jsonb} refuses or
 * would change), or that holds a number outside {@link JsonNumbers}' bounds, is no result: the attempt is a definite
 * failure, code {@code invalid_answer}, and failover proceeds as for any definite failure. One larger than
 * {@link #MAX_RESULT_BYTES}, what the topics carry (the provider client already held the answer to its call's own
 * bound), is {@code answer_too_large}: billed, and not failed over. The answer is kept for the
 * operator as JSON text with those characters written as {@code \\uXXXX} escapes (lossless), cut at
 * {@link #MAX_KEPT_ANSWER_CHARS}. Error messages, offending answers and UNKNOWN reasons, which come from the
 * provider too, are escaped and cut the same way. Without this, one such answer made the reconciler's write fail on
 * every replay and stalled its partition.
 */
final class AnswerGuard {
    /** A result larger than this is refused: it travels in a completion, a job result and a jsonb column. */
    static final int MAX_RESULT_BYTES = ProviderConfig.ANSWER_BYTES_LIMIT;
    /** How much of an answer that is no result is kept for the operator. */
    static final int MAX_KEPT_ANSWER_CHARS = 64 * 1024;
    /** How much of a provider's error text is kept. */
    static final int MAX_MESSAGE_CHARS = 4 * 1024;
    static final String INVALID_ANSWER = "invalid_answer";
    private static final ObjectWriter AS_SENT = Json.MAPPER.writer()
            .without(JsonGenerator.Feature.WRITE_BIGDECIMAL_AS_PLAIN);

    private AnswerGuard() {
    }

    static CallOutcome storable(CallOutcome outcome) {
        if (outcome instanceof CallOutcome.Succeeded ok) {
            return storableResult(ok);
        }
        if (outcome instanceof CallOutcome.Failed failed) {
            return new CallOutcome.Failed(failed.code(), cut(StorableText.escape(failed.message()), MAX_MESSAGE_CHARS),
                    failed.retryable(), failed.sent(), failed.httpStatus(), text(failed.providerRequestId(), 256),
                    failed.offendingAnswer() == null ? null : kept(failed.offendingAnswer()), failed.latency(),
                    failed.usage(), failed.retryAfter());
        }
        CallOutcome.Unknown unknown = (CallOutcome.Unknown) outcome;
        return new CallOutcome.Unknown(cut(StorableText.escape(unknown.reason()), MAX_MESSAGE_CHARS),
                unknown.latency());
    }

    private static CallOutcome storableResult(CallOutcome.Succeeded ok) {
        String requestId = text(ok.providerRequestId(), 256);
        Optional<String> unstorable = StorableText.problem(ok.result());
        if (unstorable.isPresent()) {
            return invalid("the provider's answer cannot be stored: " + unstorable.get()
                    + " (kept with such characters written as \\u escapes)", requestId, asSent(ok.result()), ok);
        }
        Optional<String> outOfRange = JsonNumbers.problem(ok.result());
        if (outOfRange.isPresent()) {
            return invalid("the provider's answer has a number no job means: " + outOfRange.get(), requestId,
                    asSent(ok.result()), ok);
        }
        String written = Json.write(ok.result());
        int bytes = written.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_RESULT_BYTES) {
            return new CallOutcome.Failed(AttemptFailure.ANSWER_TOO_LARGE, "the provider's"
                    + " answer is " + bytes + " bytes, over the " + MAX_RESULT_BYTES + " onejob carries", false, true,
                    null, requestId, kept(written), ok.latency(), ok.usage());
        }
        return requestId == null || requestId.equals(ok.providerRequestId()) ? ok
                : new CallOutcome.Succeeded(ok.result(), requestId, ok.latency(), ok.usage(), ok.finishReason());
    }

    private static CallOutcome.Failed invalid(String message, String requestId, String answer,
                                              CallOutcome.Succeeded ok) {
        // Sent, and not worth the same request again on the same provider: the model may well answer the same way.
        return new CallOutcome.Failed(INVALID_ANSWER, message, false, true, null, requestId, kept(answer),
                ok.latency(), ok.usage());
    }

    /** The answer as JSON text with numbers in exponent form: never spelled out, however large. */
    private static String asSent(JsonNode result) {
        try {
            return AS_SENT.writeValueAsString(result);
        } catch (JsonProcessingException e) {
            return "(the answer could not be written: " + e.getOriginalMessage() + ")";
        }
    }

    private static String kept(String answer) {
        return cut(StorableText.escape(answer), MAX_KEPT_ANSWER_CHARS);
    }

    private static String text(String value, int max) {
        return value == null ? null : cut(StorableText.escape(value), max);
    }

    /** At most {@code max} chars, never splitting a surrogate pair, marked when cut. */
    static String cut(String text, int max) {
        if (text == null || text.length() <= max) {
            return text;
        }
        int end = Character.isHighSurrogate(text.charAt(max - 1)) ? max - 1 : max;
        return text.substring(0, end) + "... [cut: " + text.length() + " chars in all]";
    }

    /** For the unit test: the JSON text the guard keeps of {@code result}. */
    static String keptForm(JsonNode result) {
        return kept(asSent(result));
    }
}
