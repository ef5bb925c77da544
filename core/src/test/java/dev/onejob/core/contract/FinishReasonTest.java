package dev.onejob.core.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/** Each provider's reason to one neutral reason, and back in each caller's format. */
class FinishReasonTest {

    @ParameterizedTest
    @CsvSource({
        "STOP, stop, end_turn, stop, end_turn",
        "STOP_SEQUENCE, , stop_sequence, stop, stop_sequence",
        "LENGTH, length, max_tokens, length, max_tokens",
        "TOOL_CALLS, tool_calls, tool_use, tool_calls, tool_use",
        "CONTENT_FILTER, content_filter, refusal, content_filter, refusal",
    })
    void eachProvidersReasonReadsAndIsWrittenInEachFormat(FinishReason reason, String openAiIn, String anthropicIn,
                                                           String openAiOut, String anthropicOut) {
        if (openAiIn != null) {
            assertEquals(reason, FinishReason.fromOpenAi(openAiIn));
        }
        assertEquals(reason, FinishReason.fromAnthropic(anthropicIn));
        assertEquals(openAiOut, FinishReason.toOpenAi(reason));
        assertEquals(anthropicOut, FinishReason.toAnthropic(reason));
    }

    @ParameterizedTest
    @EnumSource(FinishReason.class)
    void theStoredValueReadsBack(FinishReason reason) {
        assertEquals(reason, FinishReason.fromWire(reason.wire()));
    }

    @Test
    void aReasonOnejobDoesNotMapIsNoneAndAnsweredAsANaturalEnd() {
        assertNull(FinishReason.fromAnthropic("pause_turn"));
        assertNull(FinishReason.fromOpenAi(null));
        assertEquals("stop", FinishReason.toOpenAi(null));
        assertEquals("end_turn", FinishReason.toAnthropic(null));
        assertThrows(IllegalArgumentException.class, () -> FinishReason.fromWire("bored"));
    }
}
