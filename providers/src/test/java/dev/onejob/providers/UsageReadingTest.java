package dev.onejob.providers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.onejob.core.billing.Usage;
import dev.onejob.core.json.Json;
import org.junit.jupiter.api.Test;

/** The tokens each protocol's reply says were billed, read the same way whichever protocol said it. */
class UsageReadingTest {

    @Test
    void openAiPromptTokensIncludeTheCachedOnes() {
        assertEquals(new Usage(1200, 80, 1024), OpenAiChatClient.usage(Json.parse("""
                {"usage": {"prompt_tokens": 1200, "completion_tokens": 80, "total_tokens": 1280,
                           "prompt_tokens_details": {"cached_tokens": 1024}}}""")));
        assertEquals(new Usage(12, 8, 0), OpenAiChatClient.usage(Json.parse("""
                {"usage": {"prompt_tokens": 12, "completion_tokens": 8}}""")));
    }

    @Test
    void anthropicInputTokensAreAddedToItsCacheReadsAndWrites() {
        assertEquals(new Usage(30 + 1000 + 200, 50, 1000), AnthropicMessagesClient.usage(Json.parse("""
                {"usage": {"input_tokens": 30, "output_tokens": 50, "cache_read_input_tokens": 1000,
                           "cache_creation_input_tokens": 200}}""")));
        assertEquals(new Usage(30, 50, 0), AnthropicMessagesClient.usage(Json.parse("""
                {"usage": {"input_tokens": 30, "output_tokens": 50}}""")));
    }

    @Test
    void aReplyWithoutUsableUsageBillsNothingOnejobCanState() {
        assertNull(OpenAiChatClient.usage(Json.parse("{\"id\": \"x\"}")));
        assertNull(OpenAiChatClient.usage(Json.parse("{\"usage\": {\"prompt_tokens\": \"many\", \"completion_tokens\": 1}}")));
        assertNull(OpenAiChatClient.usage(Json.parse("{\"usage\": {\"prompt_tokens\": -3, \"completion_tokens\": 1}}")));
        assertNull(OpenAiChatClient.usage(Json.parse("""
                {"usage": {"prompt_tokens": 3, "completion_tokens": 1, "prompt_tokens_details": {"cached_tokens": 4}}}""")));
        assertNull(AnthropicMessagesClient.usage(Json.parse("{\"usage\": {\"output_tokens\": 50}}")));
    }
}
