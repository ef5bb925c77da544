package dev.onejob.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.billing.Usage;
import dev.onejob.core.json.Json;
import dev.onejob.core.json.StorableText;
import dev.onejob.providers.CallOutcome;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What the worker publishes of a provider's answer is always storable, and an unstorable answer is no result. */
class AnswerGuardTest {
    private static final Duration LATENCY = Duration.ofMillis(20);

    private static ObjectNode answer(String summary) {
        return Json.object().put("sentiment", "positive").put("summary", summary);
    }

    @Test
    void aStorableAnswerIsPassedOnAsItIs() {
        CallOutcome.Succeeded ok = new CallOutcome.Succeeded(answer("fine 😀"), "req-1", LATENCY);

        assertSame(ok, AnswerGuard.storable(ok));
    }

    @Test
    void anAnswerWithANulOrAnUnpairedSurrogateIsAnInvalidAnswerKeptLosslessly() {
        for (char poison : new char[] {0, 0xD800}) {
            ObjectNode result = answer("a" + poison + "b");

            CallOutcome guarded = AnswerGuard.storable(new CallOutcome.Succeeded(result, "req-1", LATENCY));

            CallOutcome.Failed failed = assertInstanceOf(CallOutcome.Failed.class, guarded);
            assertEquals("invalid_answer", failed.code());
            assertTrue(failed.sent() && !failed.retryable(), "sent, and not worth the same request again");
            assertTrue(failed.message().contains("$.summary"), failed.message());
            assertEquals(Optional.empty(), StorableText.problem(failed.offendingAnswer()));
            assertEquals(result, Json.parse(failed.offendingAnswer()), "the kept answer parses back to the answer");
            assertEquals("req-1", failed.providerRequestId());
        }
    }

    @Test
    void anAnswerOverWhatTheTopicsCarryIsTooLargeBilledAndOnlyItsStartIsKept() {
        ObjectNode result = answer("x".repeat(AnswerGuard.MAX_RESULT_BYTES));
        Usage usage = new Usage(10, 3_000_000, 0);

        CallOutcome.Failed failed = assertInstanceOf(CallOutcome.Failed.class,
                AnswerGuard.storable(new CallOutcome.Succeeded(result, null, LATENCY, usage)));

        assertEquals("answer_too_large", failed.code());
        assertEquals(usage, failed.usage(), "the oversized answer was paid for");
        assertTrue(failed.sent() && !failed.retryable());
        assertTrue(failed.message().contains("onejob carries"), failed.message());
        assertTrue(failed.offendingAnswer().length() < AnswerGuard.MAX_KEPT_ANSWER_CHARS + 100);
        assertTrue(failed.offendingAnswer().endsWith("chars in all]"));
    }

    @Test
    void anAnswerOfSixHundredKibibytesIsStoredAsItIs() {
        ObjectNode result = answer("y".repeat(600 * 1024));
        assertEquals(result, assertInstanceOf(CallOutcome.Succeeded.class,
                AnswerGuard.storable(new CallOutcome.Succeeded(result, null, LATENCY))).result());
    }

    @Test
    void providerTextInFailuresAndUnknownsIsEscapedAndCut() {
        CallOutcome.Failed violation = new CallOutcome.Failed("contract_violation", "bad \u0000 answer", false, true,
                200, "req", "{\"summary\":\"" + "y".repeat(200_000) + (char) 0xDC00 + "\"}", LATENCY);
        CallOutcome.Failed failed = assertInstanceOf(CallOutcome.Failed.class, AnswerGuard.storable(violation));
        assertEquals("contract_violation", failed.code());
        assertEquals("bad \\u0000 answer", failed.message());
        assertTrue(failed.offendingAnswer().length() < AnswerGuard.MAX_KEPT_ANSWER_CHARS + 100);
        assertEquals(Optional.empty(), StorableText.problem(failed.offendingAnswer()));

        CallOutcome.Unknown unknown = assertInstanceOf(CallOutcome.Unknown.class,
                AnswerGuard.storable(new CallOutcome.Unknown("reset after " + (char) 0xD800, LATENCY)));
        assertFalse(StorableText.problem(unknown.reason()).isPresent());
    }

    @Test
    void aCutNeverSplitsASurrogatePair() {
        String text = "a".repeat(9) + "😀" + "b";

        String cut = AnswerGuard.cut(text, 10);

        assertTrue(cut.startsWith("a".repeat(9) + "..."), cut);
        assertEquals(Optional.empty(), StorableText.problem(cut));
    }

    @Test
    void anAnswerWithANumberOfAnAbsurdExponentIsAnInvalidAnswerKeptInExponentForm() {
        ObjectNode result = answer("fine");
        result.set("score", Json.parse("1e5000000"));

        CallOutcome.Failed failed = assertInstanceOf(CallOutcome.Failed.class,
                AnswerGuard.storable(new CallOutcome.Succeeded(result, null, LATENCY)));

        assertEquals("invalid_answer", failed.code());
        assertTrue(failed.message().contains("$.score"), failed.message());
        assertTrue(failed.offendingAnswer().contains("1E+5000000"), failed.offendingAnswer());
    }
}
