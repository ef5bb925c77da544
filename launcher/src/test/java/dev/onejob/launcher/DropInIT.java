package dev.onejob.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.anthropic.models.messages.Base64ImageSource;
import com.anthropic.models.messages.ContentBlockParam;
import com.anthropic.models.messages.ImageBlockParam;
import com.anthropic.models.messages.Message;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.TextBlockParam;
import com.anthropic.models.models.ModelInfo;
import com.anthropic.models.models.ModelListPage;
import com.anthropic.models.models.ModelListParams;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.openai.client.OpenAIClient;
import com.openai.core.JsonValue;
import com.openai.core.ObjectMappers;
import com.openai.core.http.HttpResponseFor;
import com.openai.errors.BadRequestException;
import com.openai.errors.OpenAIServiceException;
import com.openai.models.ResponseFormatJsonObject;
import com.openai.models.ResponseFormatJsonSchema;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionContentPart;
import com.openai.models.chat.completions.ChatCompletionContentPartImage;
import com.openai.models.chat.completions.ChatCompletionContentPartText;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.models.Model;
import dev.onejob.core.json.Json;
import dev.onejob.simulator.Behaviour;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The drop-in endpoints with the providers' official SDKs as the clients, pointed at the ingest service of the whole
 * pipeline (simulators behind it, speaking the real wire protocols). The aliases: {@code fast} is primary (OpenAI
 * wire, soft timeout 1 s) then backup (Anthropic wire), {@code careful} is backup then primary, {@code primary-only}
 * is primary alone.
 */
class DropInIT {
    @RegisterExtension
    static final DropInPipeline dropIn = new DropInPipeline();

    static ChatCompletionCreateParams chat(String model, String key, String text) {
        ChatCompletionCreateParams.Builder params = ChatCompletionCreateParams.builder().model(model)
                .addSystemMessage("Answer briefly.").addUserMessage(text).temperature(0.0);
        if (key != null) {
            params.putAdditionalHeader("Idempotency-Key", key);
        }
        return params.build();
    }

    static String key() {
        return "dropin-" + UUID.randomUUID();
    }

    private static String header(HttpResponseFor<?> response, String name) {
        return response.headers().values(name).stream().findFirst().orElse(null);
    }

    @Test
    void aRetriedCallWithOneKeyMakesOneProviderCall() {
        // given one intent, one key
        String key = key();

        // when the app's call is sent twice with it
        HttpResponseFor<ChatCompletion> first = dropIn.openAi().chat().completions().withRawResponse()
                .create(chat("fast", key, "I loved it"));
        HttpResponseFor<ChatCompletion> second = dropIn.openAi().chat().completions().withRawResponse()
                .create(chat("fast", key, "I loved it"));

        // then both answer with the same job's answer, and the provider was called once
        ChatCompletion answer = first.parse();
        String text = answer.choices().get(0).message().content().orElseThrow();
        assertTrue(!text.isEmpty(), "an answer: " + answer);
        assertEquals(text, second.parse().choices().get(0).message().content().orElseThrow());
        assertEquals(answer.id(), second.parse().id());
        String jobId = header(first, "onejob-job-id");
        String attemptId = header(first, "onejob-attempt-id");
        assertEquals(jobId, header(second, "onejob-job-id"));
        assertEquals("true", header(second, "idempotent-replayed"));
        // and each answer has a request id of its own, as the SDK reads it
        String requestId = first.requestId().orElseThrow();
        assertTrue(requestId.matches("req_[0-9a-f]{32}"), requestId);
        assertEquals(requestId, header(first, "request-id"));
        assertNotEquals(requestId, second.requestId().orElseThrow());
        assertEquals(1, dropIn.pipeline().simulator("primary").requestsWithIdempotencyKey(attemptId));
        // and the usage is the winning attempt's, as the ledger billed it
        JsonNode job = dropIn.pipeline().job(jobId);
        JsonNode usage = job.path("attempts").get(0).path("usage");
        assertEquals(usage.path("input_tokens").asLong(), answer.usage().orElseThrow().promptTokens());
        assertEquals(usage.path("output_tokens").asLong(), answer.usage().orElseThrow().completionTokens());
        assertEquals("passthrough", job.path("contract").asText());
    }

    @Test
    void aCallWithoutAKeyIsRefusedAndSaysHowToSetOne() {
        // when
        OpenAIServiceException refused = assertThrows(OpenAIServiceException.class,
                () -> dropIn.openAi().chat().completions().create(chat("fast", null, "I loved it")));

        // then 400, naming the header and the SDK options, and nothing was written or called
        assertEquals(400, refused.statusCode());
        assertTrue(refused.headers().values("x-request-id").get(0).startsWith("req_"), "an error has a request id");
        assertTrue(refused.getMessage().contains("Idempotency-Key"), refused.getMessage());
        assertTrue(refused.getMessage().contains("extra_headers"), refused.getMessage());
        // and the error object is OpenAI's, with onejob's reason as its code
        JsonNode error = errorOf(refused);
        assertEquals("invalid_request_error", error.path("type").asText(), error.toString());
        assertEquals("idempotency_key_missing", error.path("code").asText(), error.toString());
        assertTrue(error.has("param") && error.get("param").isNull(), error.toString());
    }

    @Test
    void aTimeoutLeavesTheJobUnknownAndARetryWithTheKeyAttachesToIt() {
        // given a primary that answers only after 4 s (its soft timeout is 1 s)
        dropIn.pipeline().simulator("primary").setDefaultBehaviour(Behaviour.hangThenAnswer(Duration.ofSeconds(4)));
        String key = key();
        double before = dropIn.pipeline().requests("POST /v1/chat/completions", 504);

        // when the call waits 2 s at most
        OpenAIServiceException timedOut = assertThrows(OpenAIServiceException.class,
                () -> dropIn.openAi().chat().completions().create(chat("fast", key, "I loved it").toBuilder()
                        .putAdditionalHeader("Prefer", "wait=2").build()));

        // then 504 naming the job, its UNKNOWN attempt, and telling the SDK not to retry: it sent it once
        assertEquals(504, timedOut.statusCode());
        assertEquals("false", timedOut.headers().values("x-should-retry").get(0));
        JsonNode error = errorOf(timedOut);
        String jobId = error.path("job_id").asText();
        assertEquals("UNKNOWN", error.path("attempt_status").asText(), error.toString());
        assertEquals("timeout_error", error.path("type").asText(), error.toString());
        assertEquals("job_not_finished", error.path("code").asText(), error.toString());
        assertEquals(jobId, dropIn.pipeline().job(jobId).path("id").asText(), error.toString());
        assertEquals("UNKNOWN", dropIn.pipeline().job(jobId).path("attempts").get(0).path("status").asText());
        assertEquals(before + 1, dropIn.pipeline().requests("POST /v1/chat/completions", 504));

        // when the app retries with the same key, waiting long enough this time
        HttpResponseFor<ChatCompletion> retried = dropIn.openAi().chat().completions().withRawResponse()
                .create(chat("fast", key, "I loved it"));

        // then it attached to the same job, whose one attempt's late answer won; no second call, no failover
        assertEquals(jobId, header(retried, "onejob-job-id"));
        JsonNode job = dropIn.pipeline().job(jobId);
        assertEquals("SUCCEEDED", job.path("status").asText());
        assertEquals(1, job.path("attempts").size(), job.toString());
        String retriedAttempt = header(retried, "onejob-attempt-id");
        assertEquals(1, dropIn.pipeline().simulator("primary").requestsWithIdempotencyKey(retriedAttempt));
        assertEquals(0, dropIn.pipeline().simulator("backup").requestsWithIdempotencyKey(retriedAttempt));
    }

    @Test
    void a500FromThePrimaryFailsOverToTheCertifiedBackup() {
        // given a primary that fails
        dropIn.pipeline().simulator("primary").setDefaultBehaviour(Behaviour.status(500));

        // when
        HttpResponseFor<ChatCompletion> answered = dropIn.openAi().chat().completions().withRawResponse()
                .create(chat("fast", key(), "I loved it"));

        // then the backup (another wire protocol) answered, as the second attempt of the one job
        assertTrue(answered.parse().choices().get(0).message().content().isPresent());
        JsonNode job = dropIn.pipeline().job(header(answered, "onejob-job-id"));
        assertEquals(2, job.path("attempts").size(), job.toString());
        assertEquals("FAILED", job.path("attempts").get(0).path("status").asText());
        assertEquals("backup", job.path("attempts").get(1).path("provider").asText());
        assertEquals(job.path("attempts").get(1).path("id").asText(), header(answered, "onejob-attempt-id"));
    }

    @Test
    void aStructuredAnswerFollowsTheCallersSchemaAndAnInventedKeyFailsTheContract() {
        // given a call with a JSON schema for its answer, which forbids keys it does not define
        ChatCompletionCreateParams structured = chat("primary-only", key(), "I loved it").toBuilder()
                .responseFormat(ResponseFormatJsonSchema.builder().jsonSchema(ResponseFormatJsonSchema.JsonSchema
                        .builder().name("verdict").strict(true).schema(ResponseFormatJsonSchema.JsonSchema.Schema
                                .builder()
                                .putAdditionalProperty("type", JsonValue.from("object"))
                                .putAdditionalProperty("additionalProperties", JsonValue.from(false))
                                .putAdditionalProperty("required", JsonValue.from(List.of("sentiment")))
                                .putAdditionalProperty("properties", JsonValue.from(Map.of("sentiment",
                                        Map.of("enum", List.of("positive", "negative", "neutral"))))).build())
                        .build()).build()).build();

        // when it is answered
        ChatCompletion answer = dropIn.openAi().chat().completions().create(structured);

        // then the content is JSON following the schema
        JsonNode content = Json.parse(answer.choices().get(0).message().content().orElseThrow());
        assertEquals(1, content.size(), content.toString());
        assertTrue(content.path("sentiment").isTextual(), content.toString());

        // when the provider invents a key the schema does not define
        dropIn.pipeline().simulator("primary").setDefaultBehaviour(Behaviour.inventKey("confidence"));
        ChatCompletionCreateParams again = structured.toBuilder().replaceAdditionalHeaders("Idempotency-Key", key())
                .build();
        OpenAIServiceException broken = assertThrows(OpenAIServiceException.class,
                () -> dropIn.openAi().chat().completions().create(again));

        // then the job FAILED its contract: 422, not retried
        assertEquals(422, broken.statusCode());
        assertTrue(broken.getMessage().contains("confidence"), broken.getMessage());
        assertEquals("false", broken.headers().values("x-should-retry").get(0));

        // when the caller's schema allows other keys (it says nothing of them), as the provider would take it
        ChatCompletionCreateParams open = ChatCompletionCreateParams.builder().model("primary-only")
                .addUserMessage("I loved it").putAdditionalHeader("Idempotency-Key", key())
                .responseFormat(ResponseFormatJsonSchema.builder().jsonSchema(ResponseFormatJsonSchema.JsonSchema
                        .builder().name("verdict").schema(ResponseFormatJsonSchema.JsonSchema.Schema.builder()
                                .putAdditionalProperty("type", JsonValue.from("object"))
                                .putAdditionalProperty("required", JsonValue.from(List.of("sentiment")))
                                .putAdditionalProperty("properties", JsonValue.from(Map.of("sentiment",
                                        Map.of("enum", List.of("positive", "negative", "neutral"))))).build())
                        .build()).build()).build();

        // then the same answer is the caller's: onejob's check is the schema the caller sent
        JsonNode kept = Json.parse(dropIn.openAi().chat().completions().create(open).choices().get(0).message()
                .content().orElseThrow());
        assertTrue(kept.has("confidence") && kept.has("sentiment"), kept.toString());
    }

    @Test
    void aJsonObjectCallGetsAnObjectFromEitherWireAndMustSayJson() {
        // given calls asking for any JSON object, one served over OpenAI's wire, one over Anthropic's
        ChatCompletionCreateParams openAiWire = chat("primary-only", key(), "Answer in JSON: I loved it").toBuilder()
                .responseFormat(ResponseFormatJsonObject.builder().build()).build();
        ChatCompletionCreateParams anthropicWire = openAiWire.toBuilder().model("careful")
                .replaceAdditionalHeaders("Idempotency-Key", key()).build();

        // when
        JsonNode direct = Json.parse(dropIn.openAi().chat().completions().create(openAiWire).choices().get(0)
                .message().content().orElseThrow());
        JsonNode translated = Json.parse(dropIn.openAi().chat().completions().create(anthropicWire).choices().get(0)
                .message().content().orElseThrow());

        // then each content is a JSON object; the OpenAI-wire provider was asked with json_object itself (its
        // simulator writes {"answer": ...} only then), the Anthropic-wire one with a forced tool of {type: object}
        assertTrue(direct.path("answer").isTextual(), direct.toString());
        assertTrue(translated.isObject(), translated.toString());

        // when a json_object call does not say JSON, as OpenAI requires
        ChatCompletionCreateParams silent = chat("primary-only", key(), "I loved it").toBuilder()
                .responseFormat(ResponseFormatJsonObject.builder().build()).build();
        BadRequestException refused = assertThrows(BadRequestException.class,
                () -> dropIn.openAi().chat().completions().create(silent));

        // then it is refused before any job, naming the rule
        assertTrue(refused.getMessage().contains("json_object needs the word 'JSON'"), refused.getMessage());
    }

    /** A 1x1 PNG, as a caller's app sends a screenshot. */
    private static final String PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6"
            + "kgAAAABJRU5ErkJggg==";

    @Test
    void aUsersImagesReachAProviderOfEitherProtocolInItsOwnShape() {
        // given an OpenAI call showing an image, on the alias whose first provider speaks Anthropic's protocol
        ChatCompletionCreateParams openAi = ChatCompletionCreateParams.builder().model("careful")
                .addUserMessageOfArrayOfContentParts(List.of(
                        ChatCompletionContentPart.ofText(ChatCompletionContentPartText.builder()
                                .text("What is in this picture?").build()),
                        ChatCompletionContentPart.ofImageUrl(ChatCompletionContentPartImage.builder()
                                .imageUrl(ChatCompletionContentPartImage.ImageUrl.builder()
                                        .url("data:image/png;base64," + PNG)
                                        .detail(ChatCompletionContentPartImage.ImageUrl.Detail.LOW).build())
                                .build())))
                .putAdditionalHeader("Idempotency-Key", key()).build();
        // and an Anthropic call showing one, on the alias whose first provider speaks OpenAI's
        MessageCreateParams anthropic = MessageCreateParams.builder().model("fast").maxTokens(100)
                .addUserMessageOfContentBlockParams(List.of(
                        ContentBlockParam.ofImage(ImageBlockParam.builder().source(Base64ImageSource.builder()
                                .mediaType(Base64ImageSource.MediaType.IMAGE_PNG).data(PNG).build()).build()),
                        ContentBlockParam.ofText(TextBlockParam.builder().text("Describe it.").build())))
                .putAdditionalHeader("Idempotency-Key", key()).build();

        // when
        HttpResponseFor<ChatCompletion> viaAnthropic = dropIn.openAi().chat().completions().withRawResponse()
                .create(openAi);
        var viaOpenAi = dropIn.anthropic().messages().withRawResponse().create(anthropic);

        // then each was answered by its first provider, on the first attempt: each simulator checks an image part
        // as its provider does, so a part in the other protocol's shape would have been a 400 and a failed attempt
        JsonNode first = dropIn.pipeline().job(header(viaAnthropic, "onejob-job-id"));
        assertEquals("SUCCEEDED", first.path("status").asText(), first.toString());
        assertEquals("backup", first.path("attempts").get(0).path("provider").asText(), first.toString());
        assertEquals(1, first.path("attempts").size(), first.toString());
        assertTrue(viaAnthropic.parse().choices().get(0).message().content().isPresent());
        JsonNode second = dropIn.pipeline().job(viaOpenAi.headers().values("onejob-job-id").get(0));
        assertEquals("SUCCEEDED", second.path("status").asText(), second.toString());
        assertEquals("primary", second.path("attempts").get(0).path("provider").asText(), second.toString());
        assertEquals(1, second.path("attempts").size(), second.toString());
        assertTrue(viaOpenAi.parse().content().size() > 0);
    }

    @Test
    void aTruncatedAnswerSaysSoInEachFormatAndOnItsAttempt() {
        // given calls whose output limit is shorter than the answer
        ChatCompletionCreateParams openAi = ChatCompletionCreateParams.builder().model("primary-only")
                .addUserMessage("Tell me a long story about a parcel").maxCompletionTokens(3)
                .putAdditionalHeader("Idempotency-Key", key()).build();
        MessageCreateParams anthropic = MessageCreateParams.builder().model("careful").maxTokens(3)
                .addUserMessage("Tell me a long story about a parcel")
                .putAdditionalHeader("Idempotency-Key", key()).build();

        // when
        HttpResponseFor<ChatCompletion> cut = dropIn.openAi().chat().completions().withRawResponse().create(openAi);
        Message cutMessage = dropIn.anthropic().messages().create(anthropic);

        // then each SDK reads the provider's own reason, and the attempt keeps it
        assertEquals(ChatCompletion.Choice.FinishReason.LENGTH, cut.parse().choices().get(0).finishReason());
        assertEquals(com.anthropic.models.messages.StopReason.MAX_TOKENS, cutMessage.stopReason().orElseThrow());
        JsonNode job = dropIn.pipeline().job(header(cut, "onejob-job-id"));
        assertEquals("length", job.path("attempts").get(0).path("finish_reason").asText(), job.toString());
        // and an answer that ends by itself says so
        assertEquals(ChatCompletion.Choice.FinishReason.STOP, dropIn.openAi().chat().completions()
                .create(chat("primary-only", key(), "I loved it")).choices().get(0).finishReason());
    }

    @Test
    void anAnthropicCallIsAJobToo() {
        // when
        MessageCreateParams params = MessageCreateParams.builder().model("careful").maxTokens(200)
                .system("Answer briefly.").addUserMessage("I loved it")
                .putAdditionalHeader("Idempotency-Key", key()).build();
        com.anthropic.core.http.HttpResponseFor<Message> answered = dropIn.anthropic().messages().withRawResponse()
                .create(params);
        Message first = answered.parse();
        Message second = dropIn.anthropic().messages().create(params);

        // then one job, one call, the same answer, under a request id the Anthropic SDK reads
        String text = first.content().get(0).text().orElseThrow().text();
        assertTrue(!text.isEmpty());
        assertEquals(first.id(), second.id());
        assertEquals(text, second.content().get(0).text().orElseThrow().text());
        assertTrue(first.usage().outputTokens() > 0, first.usage().toString());
        assertTrue(answered.requestId().orElseThrow().startsWith("req_"), answered.requestId().toString());
    }

    @Test
    void ownersAreIsolated() {
        // given alice's job under a key
        String key = key();
        HttpResponseFor<ChatCompletion> alices = dropIn.openAi().chat().completions().withRawResponse()
                .create(chat("fast", key, "I loved it"));

        // when bob sends the same key
        OpenAIClient bob = dropIn.openAiFor("bob");
        try {
            HttpResponseFor<ChatCompletion> bobs = bob.chat().completions().withRawResponse()
                    .create(chat("fast", key, "I loved it"));

            // then bob got a job of his own, and cannot read alice's
            assertNotEquals(header(alices, "onejob-job-id"), header(bobs, "onejob-job-id"));
            assertEquals(404, dropIn.pipeline().send("GET", "/v1/jobs/" + header(alices, "onejob-job-id"), "bob",
                    Map.of(), null).statusCode());
        } finally {
            bob.close();
        }
    }

    @Test
    void eachSdkListsTheAliasesAsItsModelsAndRetrievesOne() {
        // when the OpenAI SDK lists the models
        List<Model> openAi = dropIn.openAi().models().list().data();

        // then the aliases of providers.yaml, in the file's order, each valid as the SDK checks it and naming its route
        assertEquals(List.of("fast", "careful", "primary-only"), openAi.stream().map(Model::id).toList());
        openAi.forEach(Model::validate);
        assertEquals("onejob", openAi.get(0).ownedBy());
        assertEquals(JsonValue.from("primary"), openAi.get(0)._additionalProperties().get("target"));
        assertEquals(JsonValue.from(List.of("backup")), openAi.get(0)._additionalProperties().get("fallbacks"));
        assertEquals("careful", dropIn.openAi().models().retrieve("careful").id());
        var encoded = dropIn.pipeline().send("GET", "/v1/models/primary%2Donly", "alice", Map.of(), null);
        assertEquals(200, encoded.statusCode(), "a name percent-encoded in the path is decoded: " + encoded.body());
        assertEquals("primary-only", Json.parse(encoded.body()).path("id").asText());

        // and the Anthropic SDK gets Anthropic's page of ModelInfo, one page at a time
        ModelListPage page = dropIn.anthropic().models()
                .list(ModelListParams.builder().limit(2L).build());
        assertEquals(List.of("fast", "careful"), page.data().stream().map(ModelInfo::id).toList());
        assertTrue(page.hasNextPage(), "a third alias is left");
        List<String> all = new ArrayList<>();
        page.autoPager().forEach(model -> all.add(model.validate().id()));
        assertEquals(List.of("fast", "careful", "primary-only"), all);
        ModelInfo careful = dropIn.anthropic().models().retrieve("careful");
        assertEquals("careful (backup, then primary)", careful.displayName());
        assertEquals(ModelInfo.Lifecycle.ACTIVE, careful.lifecycle());

        // and a model that is no alias is each SDK's own not-found error
        com.openai.errors.NotFoundException openAiMissing = assertThrows(com.openai.errors.NotFoundException.class,
                () -> dropIn.openAi().models().retrieve("gpt-4o"));
        assertTrue(openAiMissing.getMessage().contains("fast"), openAiMissing.getMessage());
        assertThrows(com.anthropic.errors.NotFoundException.class,
                () -> dropIn.anthropic().models().retrieve("claude-sonnet-4-5"));
    }

    /** The {@code error} object of a drop-in error's body, as the SDK received it. */
    private static JsonNode errorOf(OpenAIServiceException e) {
        try {
            JsonNode body = Json.parse(ObjectMappers.jsonMapper().writeValueAsString(e.body()));
            return body.has("error") ? body.get("error") : body;
        } catch (JsonProcessingException failed) {
            throw new IllegalStateException(failed);
        }
    }
}
