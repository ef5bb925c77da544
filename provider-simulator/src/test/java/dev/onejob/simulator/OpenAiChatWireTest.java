package dev.onejob.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.sun.net.httpserver.Headers;
import java.time.Clock;
import java.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class OpenAiChatWireTest {

    @ParameterizedTest
    @CsvSource({"0, 0s", "20, 20ms", "250, 250ms", "999, 999ms", "1000, 1s", "1500, 1.5s", "1250, 1.25s",
        "17148, 17.148s", "60000, 1m0s", "61250, 1m1.25s", "360000, 6m0s", "3600000, 1h0m0s", "3723000, 1h2m3s"})
    void durationsAreWrittenAsOpenAisRateLimitHeadersWriteThem(long ms, String expected) {
        assertEquals(expected, OpenAiChatWire.duration(ms));
    }

    @ParameterizedTest
    @CsvSource({"250, 2025-01-01T12:00:00.250Z", "30000, 2025-01-01T12:00:30Z"})
    void theResetHeadersSayWhenTheLimitResets(long resetAfterMs, String anthropicReset) {
        // given
        Instant now = Instant.parse("2025-01-01T12:00:00Z");
        Headers openAi = new Headers();
        Headers anthropic = new Headers();

        // when
        new OpenAiChatWire(null, Clock.systemUTC()).addRateLimitReset(openAi, resetAfterMs, now);
        AnthropicWire.messages(null).addRateLimitReset(anthropic, resetAfterMs, now);

        // then
        assertEquals(OpenAiChatWire.duration(resetAfterMs), openAi.getFirst("x-ratelimit-reset-requests"));
        assertEquals(anthropicReset, anthropic.getFirst("anthropic-ratelimit-requests-reset"));
    }
}
