package dev.onejob.launcher;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import java.io.IOException;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The whole pipeline ({@link PipelineFixture}) with the providers' official SDK clients pointed at its drop-in
 * endpoints as alice, for the drop-in tests: a JUnit extension that starts it all before a test class, sets the
 * simulators' behaviours back after each test and closes it all after the class.
 */
final class DropInPipeline implements BeforeAllCallback, AfterEachCallback, AfterAllCallback {
    private PipelineFixture pipeline;
    private OpenAIClient openAi;
    private AnthropicClient anthropic;

    @Override
    public void beforeAll(ExtensionContext context) throws IOException {
        pipeline = new PipelineFixture();
        openAi = openAiFor("alice");
        anthropic = AnthropicOkHttpClient.builder().baseUrl(pipeline.baseUrl()).apiKey(pipeline.tokens.get("alice"))
                .build();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        pipeline.stack.services().simulators().values().forEach(sim -> sim.resetBehaviours());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (openAi != null) {
            openAi.close();
        }
        if (anthropic != null) {
            anthropic.close();
        }
        if (pipeline != null) {
            pipeline.close();
        }
    }

    PipelineFixture pipeline() {
        return pipeline;
    }

    /** The OpenAI SDK on {@code /v1}, as alice. */
    OpenAIClient openAi() {
        return openAi;
    }

    /** The Anthropic SDK on the base URL, as alice. */
    AnthropicClient anthropic() {
        return anthropic;
    }

    /** The OpenAI SDK on {@code /v1} with {@code owner}'s token; the caller closes it. */
    OpenAIClient openAiFor(String owner) {
        return OpenAIOkHttpClient.builder().baseUrl(pipeline.baseUrl() + "/v1").apiKey(pipeline.tokens.get(owner))
                .build();
    }
}
