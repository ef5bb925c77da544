package dev.onejob.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.models.messages.ContentBlockParam;
import com.anthropic.models.messages.Message;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.StopReason;
import com.anthropic.models.messages.Tool;
import com.anthropic.models.messages.ToolResultBlockParam;
import com.anthropic.models.messages.ToolUseBlock;
import com.fasterxml.jackson.databind.JsonNode;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.JsonValue;
import com.openai.core.http.HttpResponseFor;
import com.openai.core.http.StreamResponse;
import com.openai.errors.OpenAIServiceException;
import com.openai.models.FunctionDefinition;
import com.openai.models.FunctionParameters;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionFunctionTool;
import com.openai.models.chat.completions.ChatCompletionMessageFunctionToolCall;
import com.openai.models.chat.completions.ChatCompletionToolMessageParam;
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
 * Tool-calling agent loops through the drop-in endpoints with the official SDKs: each step of the loop is one job
 * (one key), answered by one provider call however often the SDK retries it, and a call in one format is served by a
 * provider of the other with its tools translated both ways. The simulated model calls the tools in the order given,
 * one per turn, then answers in text ({@code ToolTurns}). Aliases as in {@link DropInIT}: {@code primary-only} is an
 * OpenAI-protocol provider, {@code careful} targets an Anthropic-protocol one.
 */
class DropInToolsIT {
    @RegisterExtension
    static final DropInPipeline dropIn = new DropInPipeline();

    private static final Map<String, Object> CITY = Map.of("type", "object",
            "properties", Map.of("city", Map.of("type", "string")), "required", List.of("city"));
    private static final List<String> TOOLS = List.of("get_weather", "get_time");

    private static ChatCompletionFunctionTool openAiTool(String name) {
        FunctionParameters.Builder parameters = FunctionParameters.builder();
        CITY.forEach((key, value) -> parameters.putAdditionalProperty(key, JsonValue.from(value)));
        return ChatCompletionFunctionTool.builder().function(FunctionDefinition.builder().name(name)
                .description("Looks up " + name.substring(4) + " for a city").parameters(parameters.build()).build())
                .build();
    }

    private static Tool anthropicTool(String name) {
        return Tool.builder().name(name).description("Looks up " + name.substring(4) + " for a city")
                .inputSchema(Tool.InputSchema.builder().properties(com.anthropic.core.JsonValue.from(CITY.get(
                        "properties"))).required(List.of("city")).build()).build();
    }

    private static String key(String loop, int step) {
        return loop + "-step-" + step;
    }

    @Test
    void anOpenAiAgentLoopRetriedAfterTimeoutsIsOneJobAndOneCallPerStep() {
        // given a provider slower than the SDK's timeout, so the SDK retries every step
        dropIn.pipeline().simulator("primary").setDefaultBehaviour(Behaviour.answerAfter(Duration.ofMillis(600)));
        String loop = "agent-" + UUID.randomUUID();
        ChatCompletionCreateParams.Builder conversation = ChatCompletionCreateParams.builder().model("primary-only")
                .addUserMessage("What are the weather and the time in Paris?").temperature(0.0);
        TOOLS.forEach(name -> conversation.addTool(openAiTool(name)));
        List<String> jobs = new ArrayList<>();
        List<ChatCompletion.Choice.FinishReason> reasons = new ArrayList<>();
        OpenAIClient impatient = OpenAIOkHttpClient.builder().baseUrl(dropIn.pipeline().baseUrl() + "/v1")
                .apiKey(dropIn.pipeline().tokens.get("alice")).timeout(Duration.ofMillis(250)).maxRetries(8).build();
        try {
            // when the loop runs: call, run the tools asked for, call again with their results
            for (int step = 1; step <= 3; step++) {
                HttpResponseFor<ChatCompletion> answered = impatient.chat().completions().withRawResponse()
                        .create(conversation.build().toBuilder()
                                .putAdditionalHeader("Idempotency-Key", key(loop, step)).build());
                ChatCompletion answer = answered.parse();
                jobs.add(answered.headers().values("onejob-job-id").get(0));
                // the first try timed out: what answered is the SDK's retry, attached to the same job
                assertEquals(List.of("true"), answered.headers().values("idempotent-replayed"));
                ChatCompletion.Choice choice = answer.choices().get(0);
                reasons.add(choice.finishReason());
                conversation.addMessage(choice.message());
                for (var call : choice.message().toolCalls().orElse(List.of())) {
                    ChatCompletionMessageFunctionToolCall function = call.asFunction();
                    assertTrue(Json.parse(function.function().arguments()).path("city").isTextual(),
                            function.function().arguments());
                    conversation.addMessage(ChatCompletionToolMessageParam.builder().toolCallId(function.id())
                            .content("{\"" + function.function().name() + "\": \"fine\"}").build());
                }
            }
        } finally {
            impatient.close();
        }

        // then the model called each tool in turn, then answered in text
        assertEquals(List.of(ChatCompletion.Choice.FinishReason.TOOL_CALLS, ChatCompletion.Choice.FinishReason.TOOL_CALLS,
                ChatCompletion.Choice.FinishReason.STOP), reasons);
        // and each step was one job, with one attempt, and one provider call, though the SDK sent it several times
        assertOneCallPerStep(jobs, "primary");
    }

    @Test
    void anAnthropicAgentLoopServedByAnOpenAiProviderTranslatesToolsBothWays() {
        // given an Anthropic-format loop on an alias whose provider speaks OpenAI's protocol, slower than the SDK
        dropIn.pipeline().simulator("primary").setDefaultBehaviour(Behaviour.answerAfter(Duration.ofMillis(600)));
        String loop = "agent-" + UUID.randomUUID();
        MessageCreateParams.Builder conversation = MessageCreateParams.builder().model("primary-only").maxTokens(300)
                .addUserMessage("What are the weather and the time in Paris?");
        TOOLS.forEach(name -> conversation.addTool(anthropicTool(name)));
        List<String> jobs = new ArrayList<>();
        List<StopReason> reasons = new ArrayList<>();
        List<String> called = new ArrayList<>();
        AnthropicClient impatient = AnthropicOkHttpClient.builder().baseUrl(dropIn.pipeline().baseUrl())
                .apiKey(dropIn.pipeline().tokens.get("alice")).timeout(Duration.ofMillis(250)).maxRetries(8).build();
        try {
            for (int step = 1; step <= 3; step++) {
                var answered = impatient.messages().withRawResponse().create(conversation.build().toBuilder()
                        .putAdditionalHeader("Idempotency-Key", key(loop, step)).build());
                Message answer = answered.parse();
                jobs.add(answered.headers().values("onejob-job-id").get(0));
                assertEquals(List.of("true"), answered.headers().values("idempotent-replayed"));
                reasons.add(answer.stopReason().orElseThrow());
                conversation.addMessage(answer);
                List<ContentBlockParam> results = new ArrayList<>();
                for (var block : answer.content()) {
                    block.toolUse().ifPresent((ToolUseBlock use) -> {
                        called.add(use.name());
                        assertTrue(use._input().toString().contains("city"), use._input().toString());
                        results.add(ContentBlockParam.ofToolResult(ToolResultBlockParam.builder().toolUseId(use.id())
                                .content("fine").build()));
                    });
                }
                if (!results.isEmpty()) {
                    conversation.addUserMessageOfContentBlockParams(results);
                }
            }
        } finally {
            impatient.close();
        }

        // then the tools were called in turn, in Anthropic's shape, and the last answer was text
        assertEquals(List.of(StopReason.TOOL_USE, StopReason.TOOL_USE, StopReason.END_TURN), reasons);
        assertEquals(TOOLS, called);
        assertOneCallPerStep(jobs, "primary");
    }

    private static void assertOneCallPerStep(List<String> jobs, String provider) {
        assertEquals(3, jobs.stream().distinct().count(), jobs.toString());
        for (String jobId : jobs) {
            JsonNode job = dropIn.pipeline().job(jobId);
            assertEquals("SUCCEEDED", job.path("status").asText(), job.toString());
            assertEquals(1, job.path("attempts").size(), job.toString());
            String attempt = job.path("attempts").get(0).path("id").asText();
            assertEquals(1, dropIn.pipeline().simulator(provider).requestsWithIdempotencyKey(attempt), job.toString());
        }
    }

    @Test
    void streamedToolCallsArriveInTheCallersShapeFromAProviderOfTheOtherProtocol() {
        // given calls whose alias targets the Anthropic-protocol provider
        ChatCompletionCreateParams.Builder openAi = ChatCompletionCreateParams.builder().model("careful")
                .addUserMessage("What is the weather in Paris?").addTool(openAiTool("get_weather"))
                .putAdditionalHeader("Idempotency-Key", "stream-" + UUID.randomUUID());

        // when it is streamed
        StringBuilder arguments = new StringBuilder();
        List<String> names = new ArrayList<>();
        List<ChatCompletionChunk.Choice.FinishReason> reasons = new ArrayList<>();
        try (StreamResponse<ChatCompletionChunk> stream = dropIn.openAi().chat().completions()
                .createStreaming(openAi.build())) {
            stream.stream().flatMap(chunk -> chunk.choices().stream()).forEach(choice -> {
                choice.delta().toolCalls().orElse(List.of()).forEach(call -> call.function().ifPresent(f -> {
                    f.name().ifPresent(names::add);
                    f.arguments().ifPresent(arguments::append);
                }));
                choice.finishReason().ifPresent(reasons::add);
            });
        }

        // then the tool call came as OpenAI streams one, its arguments a JSON object of the tool's schema
        assertEquals(List.of("get_weather"), names);
        assertTrue(Json.parse(arguments.toString()).path("city").isTextual(), arguments.toString());
        assertEquals(List.of(ChatCompletionChunk.Choice.FinishReason.TOOL_CALLS), reasons);

        // and an Anthropic stream of the same kind carries a tool_use block and its input as JSON deltas
        MessageCreateParams anthropic = MessageCreateParams.builder().model("careful").maxTokens(300)
                .addUserMessage("What is the weather in Paris?").addTool(anthropicTool("get_weather"))
                .putAdditionalHeader("Idempotency-Key", "stream-" + UUID.randomUUID()).build();
        List<String> blocks = new ArrayList<>();
        StringBuilder input = new StringBuilder();
        try (var stream = dropIn.anthropic().messages().createStreaming(anthropic)) {
            stream.stream().forEach(event -> {
                event.contentBlockStart().flatMap(start -> start.contentBlock().toolUse())
                        .ifPresent(use -> blocks.add(use.name()));
                event.contentBlockDelta().flatMap(delta -> delta.delta().inputJson())
                        .ifPresent(json -> input.append(json.partialJson()));
            });
        }
        assertEquals(List.of("get_weather"), blocks);
        assertTrue(Json.parse(input.toString()).path("city").isTextual(), input.toString());
    }

    @Test
    void aParameterOnlyOneProtocolTakesRoutesTheJobToThatProtocolsProviders() {
        // when an OpenAI call with a seed names an alias whose target speaks Anthropic's protocol
        HttpResponseFor<ChatCompletion> seeded = dropIn.openAi().chat().completions().withRawResponse().create(
                ChatCompletionCreateParams.builder().model("careful").addUserMessage("I loved it").seed(7)
                        .putAdditionalHeader("Idempotency-Key", "seed-" + UUID.randomUUID()).build());

        // then it ran on the alias's OpenAI-protocol provider only, which no translation would have to drop it for
        JsonNode job = dropIn.pipeline().job(seeded.headers().values("onejob-job-id").get(0));
        assertEquals("primary", job.path("target").asText(), job.toString());
        assertEquals(0, job.path("fallbacks").size(), job.toString());

        // and an Anthropic call with top_k on an alias of OpenAI-protocol providers only is refused, naming it
        com.anthropic.errors.BadRequestException refused = assertThrows(
                com.anthropic.errors.BadRequestException.class, () -> dropIn.anthropic().messages().create(
                        MessageCreateParams.builder().model("primary-only").maxTokens(100)
                                .putAdditionalBodyProperty("top_k", com.anthropic.core.JsonValue.from(5))
                                .addUserMessage("I loved it")
                                .putAdditionalHeader("Idempotency-Key", "topk-" + UUID.randomUUID()).build()));
        assertTrue(refused.getMessage().contains("top_k"), refused.getMessage());
        // in Anthropic's own error type
        JsonNode body = Json.MAPPER.valueToTree(com.anthropic.core.ObjectMappers.jsonMapper()
                .convertValue(refused.body(), Object.class));
        assertEquals("invalid_request_error", body.at("/error/type").asText(), body.toString());
    }

    @Test
    void theSameKeyWithOtherToolsIsAConflictNotAGuess() {
        // given a call with one tool, answered
        String key = "tools-" + UUID.randomUUID();
        dropIn.openAi().chat().completions().create(ChatCompletionCreateParams.builder().model("primary-only")
                .addUserMessage("What is the weather in Paris?").addTool(openAiTool("get_weather"))
                .putAdditionalHeader("Idempotency-Key", key).build());

        // when the same key comes with another tool
        OpenAIServiceException conflict = assertThrows(OpenAIServiceException.class,
                () -> dropIn.openAi().chat().completions().create(ChatCompletionCreateParams.builder()
                        .model("primary-only").addUserMessage("What is the weather in Paris?")
                        .addTool(openAiTool("get_time")).putAdditionalHeader("Idempotency-Key", key).build()));

        // then
        assertEquals(409, conflict.statusCode());
    }
}
