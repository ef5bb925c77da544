package dev.onejob.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Refusals (the status behaviour) as the providers send them: error shapes, retry and rate-limit reset headers. */
class RefusalIT extends SimulatorPerTest {

    RefusalIT() {
        super(SimulatorConfig.defaults().withName("refusal-it"));
    }

    @Test
    void anAnthropic529IsAnOverloadedErrorWithItsRetryAndResetHeadersAndIsNotBilled() throws Exception {
        // given
        simulator.setBehaviour("busy", Behaviour.status(529, 2).withRetryAfterMs(1500).withResetAfterMs(30_000));
        Instant before = Instant.now();

        // when
        HttpResponse<String> response = http.anthropic(SimHttp.ANTHROPIC,
                SimHttp.anthropicBody("hi", SimHttp.sentimentSchema()), "busy");

        // then
        Instant after = Instant.now();
        assertEquals(529, response.statusCode());
        JsonNode error = SimHttp.json(response.body());
        assertEquals("error", error.get("type").asText());
        assertEquals("overloaded_error", error.at("/error/type").asText());
        assertFalse(error.at("/error/message").asText().isEmpty());
        assertEquals("2", response.headers().firstValue("Retry-After").orElseThrow());
        assertEquals("1500", response.headers().firstValue("retry-after-ms").orElseThrow());
        String reset = response.headers().firstValue("anthropic-ratelimit-requests-reset").orElseThrow();
        assertTrue(reset.endsWith("Z"), "an RFC 3339 UTC instant: " + reset);
        Instant resetAt = Instant.parse(reset);
        assertFalse(resetAt.isBefore(before.plusSeconds(30).minusMillis(1)), reset + " vs " + before);
        assertFalse(resetAt.isAfter(after.plusSeconds(30)), reset + " vs " + after);
        assertFalse(response.headers().firstValue("x-ratelimit-reset-requests").isPresent());
        assertEquals(List.of(), simulator.usageExport());
        LedgerEntry entry = simulator.ledger().get(0);
        assertEquals("status", entry.behaviour());
        assertEquals(529, entry.status());
        assertFalse(entry.isBilled());
    }

    @Test
    void anOpenAi429SetOverTheControlPlaneCarriesRetryAfterMsAndTheResetInOpenAisDurationFormat() throws Exception {
        // given
        HttpResponse<String> put = http.control("PUT", "/_sim/behaviour",
                "{\"kind\":\"status\",\"status\":429,\"retry_after_s\":1,\"retry_after_ms\":250,\"reset_after_ms\":360000}");

        // when
        HttpResponse<String> response = http.openAi(SimHttp.openAiBody("hi", null), "attempt-1");

        // then
        assertEquals(200, put.statusCode(), put.body());
        assertEquals(360_000, SimHttp.json(put.body()).get("reset_after_ms").asLong());
        assertEquals(429, response.statusCode());
        JsonNode error = SimHttp.json(response.body()).get("error");
        assertEquals("requests", error.get("type").asText());
        assertEquals("rate_limit_exceeded", error.get("code").asText());
        assertEquals("1", response.headers().firstValue("Retry-After").orElseThrow());
        assertEquals("250", response.headers().firstValue("retry-after-ms").orElseThrow());
        assertEquals("6m0s", response.headers().firstValue("x-ratelimit-reset-requests").orElseThrow());
        assertEquals(List.of(), simulator.usageExport());
    }

    @Test
    void aResetHeaderComesWithoutRetryAfterWhenOnlyTheResetIsGiven() throws Exception {
        // given
        simulator.setDefaultBehaviour(new Behaviour.Status(429, null, null, 250L));

        // when
        HttpResponse<String> openAi = http.openAi(SimHttp.openAiBody("hi", null), null);
        HttpResponse<String> anthropic = http.anthropic(SimHttp.ANTHROPIC, SimHttp.anthropicBody("hi", null), null);

        // then
        assertEquals("250ms", openAi.headers().firstValue("x-ratelimit-reset-requests").orElseThrow());
        assertTrue(anthropic.headers().firstValue("anthropic-ratelimit-requests-reset").isPresent());
        for (HttpResponse<String> response : List.of(openAi, anthropic)) {
            assertEquals(429, response.statusCode());
            assertFalse(response.headers().firstValue("Retry-After").isPresent());
            assertFalse(response.headers().firstValue("retry-after-ms").isPresent());
        }
    }

    @Test
    void aPlainStatusSendsNoRetryOrResetHeader() throws Exception {
        // given
        simulator.setDefaultBehaviour(Behaviour.status(503));

        // when
        HttpResponse<String> response = http.anthropic(SimHttp.ANTHROPIC, SimHttp.anthropicBody("hi", null), null);

        // then
        assertEquals(503, response.statusCode());
        for (String header : List.of("Retry-After", "retry-after-ms", "anthropic-ratelimit-requests-reset")) {
            assertFalse(response.headers().firstValue(header).isPresent(), header);
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
        "openai, 429, requests, rate_limit_exceeded",
        "openai, 503, server_error, service_unavailable",
        "anthropic, 429, rate_limit_error, ",
        "anthropic, 503, overloaded_error, ",
        "anthropic, 529, overloaded_error, ",
    })
    void eachWireRefusesWithItsProvidersErrorType(String wire, int status, String type, String code)
            throws Exception {
        // given
        simulator.setDefaultBehaviour(Behaviour.status(status, 1));

        // when
        HttpResponse<String> response = "openai".equals(wire)
                ? http.openAi(OpenAiChatStreamIT.streamed(SimHttp.openAiBody("hi", null), true), null)
                : http.anthropic(SimHttp.ANTHROPIC, SimHttp.anthropicBody("hi", null).put("stream", true), null);

        // then a refusal of a streamed request is the JSON error, never a stream
        assertEquals(status, response.statusCode());
        assertTrue(response.headers().firstValue("Content-Type").orElseThrow().startsWith("application/json"));
        JsonNode body = SimHttp.json(response.body());
        if ("openai".equals(wire)) {
            assertEquals(type, body.at("/error/type").asText());
            assertEquals(code, body.at("/error/code").asText());
        } else {
            assertEquals("error", body.get("type").asText());
            assertEquals(type, body.at("/error/type").asText());
        }
        assertEquals(List.of(), simulator.usageExport());
    }

    @Test
    void aRetryWithANewAttemptIdAfterOneRefusalIsAnswered() throws Exception {
        // given one refusal saying "retry after 50 ms", then answers
        simulator.setDefaultBehaviour(Behaviour.status(429).withRetryAfterMs(50), 1);

        // when
        HttpResponse<String> refused = http.openAi(SimHttp.openAiBody("hi", null), "attempt-1");
        HttpResponse<String> retried = http.openAi(SimHttp.openAiBody("hi", null), "attempt-2");

        // then
        assertEquals(429, refused.statusCode());
        assertEquals("50", refused.headers().firstValue("retry-after-ms").orElseThrow());
        assertEquals(200, retried.statusCode());
        assertEquals(1, simulator.usageExport().size());
    }
}
