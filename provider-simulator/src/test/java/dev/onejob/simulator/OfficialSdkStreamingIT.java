package dev.onejob.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.JsonValue;
import com.anthropic.helpers.MessageAccumulator;
import com.anthropic.models.messages.Message;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.StructuredMessage;
import com.anthropic.models.messages.StructuredMessageCreateParams;
import com.anthropic.models.messages.Tool;
import com.anthropic.models.messages.ToolChoiceTool;
import com.anthropic.models.messages.ToolUseBlock;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.helpers.ChatCompletionAccumulator;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionStreamOptions;
import com.openai.models.chat.completions.StructuredChatCompletion;
import com.openai.models.chat.completions.StructuredChatCompletionCreateParams;
import com.openai.models.completions.CompletionUsage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * The official SDKs (openai-java, anthropic-java) as clients of the streamed answers: what they parse and accumulate
 * from a stream must be what they get from the same request answered whole.
 */
class OfficialSdkStreamingIT {

    private static final String REVIEW = "The battery is great. Positive!";

    /** The structured answer both SDKs derive a JSON Schema from and parse the answer into. */
    public static class Review {
        public String sentiment;
        public String summary;
    }

    /** A simulator of its own for each test, closed after it. */
    @AutoClose
    private ProviderSimulator simulator = SimHttp.startSimulator(
            SimulatorConfig.defaults().withName("sdk-it").withApiKey("sk-test"));

    @Test
    void openAiSdkAccumulatesTheStreamIntoTheWholeAnswerAndItsUsage() {
        // given
        OpenAIClient client = OpenAIOkHttpClient.builder().baseUrl(simulator.baseUrl() + "/v1").apiKey("sk-test")
                .maxRetries(0).build();
        StructuredChatCompletionCreateParams<Review> whole = ChatCompletionCreateParams.builder()
                .model("gpt-4o-mini").addUserMessage(REVIEW).responseFormat(Review.class).build();
        StructuredChatCompletionCreateParams<Review> streamed = ChatCompletionCreateParams.builder()
                .model("gpt-4o-mini").addUserMessage(REVIEW).responseFormat(Review.class)
                .streamOptions(ChatCompletionStreamOptions.builder().includeUsage(true).build()).build();
        StructuredChatCompletion<Review> answer = client.chat().completions().create(whole);
        ChatCompletionAccumulator accumulator = ChatCompletionAccumulator.create();

        // when
        try (var stream = client.chat().completions().createStreaming(streamed)) {
            stream.stream().forEach(accumulator::accumulate);
        }

        // then
        StructuredChatCompletion<Review> accumulated = accumulator.chatCompletion(Review.class);
        Review expected = answer.choices().get(0).message().content().orElseThrow();
        Review review = accumulated.choices().get(0).message().content().orElseThrow();
        assertTrue(review.sentiment.startsWith("sim-"), review.sentiment);
        assertEquals(expected.sentiment, review.sentiment);
        assertEquals(expected.summary, review.summary);
        CompletionUsage usage = accumulated.usage().orElseThrow();
        assertEquals(answer.usage().orElseThrow().promptTokens(), usage.promptTokens());
        assertEquals(answer.usage().orElseThrow().completionTokens(), usage.completionTokens());
        assertEquals(2, simulator.usageExport().size());
    }

    @Test
    void openAiSdkReadingACutStreamGetsTheChunksThatCameThenAnError() {
        // given
        simulator.setDefaultBehaviour(Behaviour.failMidStream(4));
        OpenAIClient client = OpenAIOkHttpClient.builder().baseUrl(simulator.baseUrl() + "/v1").apiKey("sk-test")
                .maxRetries(0).build();
        ChatCompletionCreateParams params = ChatCompletionCreateParams.builder().model("gpt-4o-mini")
                .addUserMessage(REVIEW).build();
        List<ChatCompletionChunk> chunks = new ArrayList<>();

        // when
        RuntimeException failure = assertThrows(RuntimeException.class, () -> {
            try (var stream = client.chat().completions().createStreaming(params)) {
                stream.stream().forEach(chunks::add);
            }
        });

        // then
        assertEquals(4, chunks.size(), "every chunk sent before the cut, then " + failure);
        assertEquals(1, simulator.ledger().size());
    }

    @Test
    void anthropicSdkAccumulatesAStreamedStructuredOutputIntoTheWholeAnswer() {
        // given
        AnthropicClient client = AnthropicOkHttpClient.builder().baseUrl(simulator.baseUrl()).apiKey("sk-test")
                .maxRetries(0).build();
        StructuredMessageCreateParams<Review> params = MessageCreateParams.builder().model("claude-sonnet-4-5")
                .maxTokens(200).addUserMessage(REVIEW).outputConfig(Review.class).build();
        StructuredMessage<Review> answer = client.messages().create(params);
        MessageAccumulator accumulator = MessageAccumulator.create();

        // when
        try (var stream = client.messages().createStreaming(params)) {
            stream.stream().forEach(accumulator::accumulate);
        }

        // then
        StructuredMessage<Review> accumulated = accumulator.message(Review.class);
        Review expected = answer.content().get(0).text().orElseThrow().text();
        Review review = accumulated.content().get(0).text().orElseThrow().text();
        assertEquals(expected.sentiment, review.sentiment);
        assertEquals(expected.summary, review.summary);
        assertEquals(answer.usage().inputTokens(), accumulated.usage().inputTokens());
        assertEquals(answer.usage().outputTokens(), accumulated.usage().outputTokens());
    }

    @Test
    void anthropicSdkAccumulatesAStreamedToolUseIntoTheWholeToolInput() {
        // given
        AnthropicClient client = AnthropicOkHttpClient.builder().baseUrl(simulator.baseUrl()).apiKey("sk-test")
                .maxRetries(0).build();
        Tool tool = Tool.builder().name("record_review").inputSchema(Tool.InputSchema.builder()
                .properties(Tool.InputSchema.Properties.builder()
                        .putAdditionalProperty("sentiment", JsonValue.from(Map.of("type", "string",
                                "enum", List.of("positive", "negative"))))
                        .putAdditionalProperty("score", JsonValue.from(Map.of("type", "integer", "minimum", 1,
                                "maximum", 5)))
                        .build())
                .addRequired("sentiment").build()).build();
        MessageCreateParams params = MessageCreateParams.builder().model("claude-sonnet-4-5").maxTokens(200)
                .addUserMessage(REVIEW).addTool(tool).toolChoice(ToolChoiceTool.builder().name("record_review").build())
                .build();
        Message answer = client.messages().create(params);
        MessageAccumulator accumulator = MessageAccumulator.create();

        // when
        try (var stream = client.messages().createStreaming(params)) {
            stream.stream().forEach(accumulator::accumulate);
        }

        // then
        ToolUseBlock expected = answer.content().get(0).toolUse().orElseThrow();
        ToolUseBlock toolUse = accumulator.message().content().get(0).toolUse().orElseThrow();
        assertEquals("record_review", toolUse.name());
        assertEquals(expected._input().convert(Map.class), toolUse._input().convert(Map.class));
        assertEquals("positive", toolUse._input().convert(Map.class).get("sentiment"));
        assertEquals(answer.stopReason(), accumulator.message().stopReason());
    }
}
