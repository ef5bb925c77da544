package dev.onejob.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.errors.AnthropicServiceException;
import com.anthropic.errors.ConflictException;
import com.anthropic.errors.GatewayTimeoutException;
import com.anthropic.models.messages.MessageCreateParams;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.ObjectMappers;
import com.openai.errors.BadRequestException;
import com.openai.errors.InternalServerException;
import com.openai.errors.NotFoundException;
import com.openai.errors.OpenAIServiceException;
import com.openai.errors.UnauthorizedException;
import com.openai.errors.UnexpectedStatusCodeException;
import com.openai.errors.UnprocessableEntityException;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import dev.onejob.core.json.Json;
import dev.onejob.simulator.Behaviour;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every error of the drop-in endpoints as each official SDK parses it: the SDK's own exception class for the status,
 * the provider's own error type in the error object (OpenAI's with {@code param}, Anthropic's without), onejob's
 * reason as its {@code code}, a request id, and {@code x-should-retry: false} where a retry could not help, so the
 * SDK does not send the call again.
 */
class DropInErrorsIT {
    @RegisterExtension
    static final DropInPipeline dropIn = new DropInPipeline();

    private static String key() {
        return "errors-" + UUID.randomUUID();
    }

    private static ChatCompletionCreateParams openAi(String model, String key, String text) {
        ChatCompletionCreateParams.Builder params = ChatCompletionCreateParams.builder().model(model)
                .addUserMessage(text).maxCompletionTokens(100);
        if (key != null) {
            params.putAdditionalHeader("Idempotency-Key", key);
        }
        return params.build();
    }

    private static MessageCreateParams anthropic(String model, String key, String text) {
        MessageCreateParams.Builder params = MessageCreateParams.builder().model(model).maxTokens(100)
                .addUserMessage(text);
        if (key != null) {
            params.putAdditionalHeader("Idempotency-Key", key);
        }
        return params.build();
    }

    @Test
    void aMissingKeyAnUnknownModelAndAWrongTokenAreEachTheirSdksOwnException() {
        // a missing key: 400
        expectOpenAi(BadRequestException.class, 400, "invalid_request_error", "idempotency_key_missing",
                () -> dropIn.openAi().chat().completions().create(openAi("fast", null, "Hi")));
        expectAnthropic(com.anthropic.errors.BadRequestException.class, 400, "invalid_request_error",
                "idempotency_key_missing", () -> dropIn.anthropic().messages().create(anthropic("fast", null, "Hi")));

        // a model that is no alias: 404
        expectOpenAi(NotFoundException.class, 404, "not_found_error", null,
                () -> dropIn.openAi().chat().completions().create(openAi("gpt-nope", key(), "Hi")));
        expectAnthropic(com.anthropic.errors.NotFoundException.class, 404, "not_found_error", null,
                () -> dropIn.anthropic().messages().create(anthropic("claude-nope", key(), "Hi")));

        // a token onejob does not know: 401
        OpenAIClient wrongOpenAi = OpenAIOkHttpClient.builder().baseUrl(dropIn.pipeline().baseUrl() + "/v1")
                .apiKey("not-a-token").build();
        AnthropicClient wrongAnthropic = AnthropicOkHttpClient.builder().baseUrl(dropIn.pipeline().baseUrl())
                .apiKey("not-a-token").build();
        try {
            expectOpenAi(UnauthorizedException.class, 401, "authentication_error", null,
                    () -> wrongOpenAi.chat().completions().create(openAi("fast", key(), "Hi")));
            expectAnthropic(com.anthropic.errors.UnauthorizedException.class, 401, "authentication_error", null,
                    () -> wrongAnthropic.messages().create(anthropic("fast", key(), "Hi")));
        } finally {
            wrongOpenAi.close();
            wrongAnthropic.close();
        }
    }

    @Test
    void aReusedKeyIsAConflictTheSdkDoesNotRetry() {
        // given one job per format
        String openAiKey = key();
        String anthropicKey = key();
        dropIn.openAi().chat().completions().create(openAi("fast", openAiKey, "I loved it"));
        dropIn.anthropic().messages().create(anthropic("fast", anthropicKey, "I loved it"));

        // when each key comes back with another call: 409, which OpenAI's SDK has no class of its own for
        expectOpenAi(UnexpectedStatusCodeException.class, 409, "invalid_request_error", "idempotency_key_reused",
                () -> dropIn.openAi().chat().completions().create(openAi("fast", openAiKey, "I hated it")));
        expectAnthropic(ConflictException.class, 409, "invalid_request_error", "idempotency_key_reused",
                () -> dropIn.anthropic().messages().create(anthropic("fast", anthropicKey, "I hated it")));
    }

    @Test
    void aFailedJobIsAServerErrorAndAnUnfinishedOneATimeout() {
        // given a provider that refuses every call for good
        dropIn.pipeline().simulator("primary").setDefaultBehaviour(Behaviour.status(400));

        // then the failed job is a 502 in each SDK's server-error class, and says it is final
        expectOpenAi(InternalServerException.class, 502, "server_error", "job_failed",
                () -> dropIn.openAi().chat().completions().create(openAi("primary-only", key(), "Hi")));
        expectAnthropic(com.anthropic.errors.InternalServerException.class, 502, "api_error", "job_failed",
                () -> dropIn.anthropic().messages().create(anthropic("primary-only", key(), "Hi")));

        // given a provider slower than the caller's wait
        dropIn.pipeline().simulator("primary").setDefaultBehaviour(Behaviour.hangThenAnswer(Duration.ofSeconds(3)));

        // then 504: a server error to OpenAI's SDK, Anthropic's own gateway-timeout class
        expectOpenAi(InternalServerException.class, 504, "timeout_error", "job_not_finished",
                () -> dropIn.openAi().chat().completions().create(openAi("primary-only", key(), "Hi").toBuilder()
                        .putAdditionalHeader("Prefer", "wait=1").build()));
        expectAnthropic(GatewayTimeoutException.class, 504, "timeout_error", "job_not_finished",
                () -> dropIn.anthropic().messages().create(anthropic("primary-only", key(), "Hi").toBuilder()
                        .putAdditionalHeader("Prefer", "wait=1").build()));
    }

    @Test
    void anAnswerThatBreaksTheSchemaIsUnprocessableInBothSdks() {
        // given a provider that invents a key the caller's schema forbids
        dropIn.pipeline().simulator("primary").setDefaultBehaviour(Behaviour.inventKey("confidence"));
        JsonNode schema = Json.parse("""
                {"type":"object","additionalProperties":false,"required":["sentiment"],
                 "properties":{"sentiment":{"type":"string"}}}""");

        // then 422, the SDKs' unprocessable-entity class
        expectOpenAi(UnprocessableEntityException.class, 422, "invalid_request_error", "contract_violation",
                () -> dropIn.openAi().chat().completions().create(openAi("primary-only", key(), "I loved it")
                        .toBuilder().putAdditionalBodyProperty("response_format", com.openai.core.JsonValue.from(
                                java.util.Map.of("type", "json_schema", "json_schema", java.util.Map.of("name", "v",
                                        "schema", Json.MAPPER.convertValue(schema, Object.class))))).build()));
        expectAnthropic(com.anthropic.errors.UnprocessableEntityException.class, 422, "invalid_request_error",
                "contract_violation", () -> dropIn.anthropic().messages().create(
                        anthropic("primary-only", key(), "I loved it").toBuilder().putAdditionalBodyProperty(
                                "output_config", com.anthropic.core.JsonValue.from(java.util.Map.of("format",
                                        java.util.Map.of("type", "json_schema", "schema",
                                                Json.MAPPER.convertValue(schema, Object.class))))).build()));
    }

    /** The call throws exactly {@code type}, with OpenAI's error object for {@code status}. */
    private static void expectOpenAi(Class<? extends OpenAIServiceException> type, int status, String errorType,
                                     String code, Runnable call) {
        OpenAIServiceException thrown = assertThrows(OpenAIServiceException.class, call::run);
        assertEquals(type, thrown.getClass(), thrown.getMessage());
        assertEquals(status, thrown.statusCode(), thrown.getMessage());
        JsonNode error = body(thrown.body()); // the SDK hands over the body's error member
        assertEquals(errorType, error.path("type").asText(), error.toString());
        assertTrue(error.has("param") && error.path("message").isTextual(), error.toString());
        checkCommon(error, code, thrown.headers().values("x-request-id"),
                thrown.headers().values("x-should-retry"));
    }

    /** The call throws exactly {@code type}, with Anthropic's error object for {@code status}. */
    private static void expectAnthropic(Class<? extends AnthropicServiceException> type, int status, String errorType,
                                        String code, Runnable call) {
        AnthropicServiceException thrown = assertThrows(AnthropicServiceException.class, call::run);
        assertEquals(type, thrown.getClass(), thrown.getMessage());
        assertEquals(status, thrown.statusCode(), thrown.getMessage());
        JsonNode error = body(com.anthropic.core.ObjectMappers.jsonMapper().convertValue(thrown.body(), Object.class))
                .path("error");
        assertEquals(errorType, error.path("type").asText(), error.toString());
        assertFalse(error.has("param"), "Anthropic's error object has no param: " + error);
        assertTrue(error.path("message").isTextual(), error.toString());
        checkCommon(error, code, thrown.headers().values("request-id"), thrown.headers().values("x-should-retry"));
    }

    private static void checkCommon(JsonNode error, String code, List<String> requestId, List<String> shouldRetry) {
        if (code != null) {
            assertEquals(code, error.path("code").asText(), error.toString());
        }
        assertEquals(1, requestId.size(), "one request id");
        assertTrue(requestId.get(0).matches("req_[0-9a-f]{32}"), requestId.get(0));
        assertEquals(List.of("false"), shouldRetry, "the SDK must not send it again: " + error);
    }

    private static JsonNode body(Object body) {
        try {
            return Json.parse(ObjectMappers.jsonMapper().writeValueAsString(body));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
