package dev.onejob.providers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.billing.Prices;
import dev.onejob.core.config.Cooldown;
import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.config.ProviderProtocol;
import dev.onejob.core.config.RetryPolicy;
import dev.onejob.core.contract.Contracts;
import dev.onejob.core.contract.Passthrough;
import dev.onejob.core.contract.Prompt;
import dev.onejob.core.json.Json;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What each adapter sends for a passthrough call: tools, tool calls and results, and parameters as given. */
class WireBodiesTest {
    private static final JsonNode STEP = Json.parse("""
            {"messages":[{"role":"user","content":"Weather in Paris?"},
              {"role":"assistant","content":"","tool_calls":[{"id":"call_1","name":"get_weather",
                "arguments":{"city":"Paris"}}]},
              {"role":"tool","content":"sunny","tool_call_id":"call_1","is_error":true},
              {"role":"tool","content":"warm","tool_call_id":"call_2"}],
             "tools":[{"name":"get_weather","parameters":{"type":"object"},"strict":true}],
             "tool_choice":{"type":"required","parallel":false},"seed":7,"max_tokens":50}""");

    private static Prompt prompt(JsonNode variables) {
        return Contracts.load(Path.of("../config/contracts")).find(Passthrough.ID).orElseThrow().prompt(variables);
    }

    private static ProviderConfig provider(ProviderProtocol protocol, String maxTokensField) {
        return new ProviderConfig("p", protocol, URI.create("http://127.0.0.1:1"), "m", null, "o200k_base", 1000,
                Duration.ofSeconds(1), Duration.ofSeconds(2), (Prices) null, Duration.ofHours(1), RetryPolicy.DEFAULT,
                1000, Cooldown.DEFAULT, maxTokensField);
    }

    private static final JsonNode IMAGES = Json.parse("""
            {"messages":[{"role":"user","content":[{"type":"text","text":"What is this?"},
              {"type":"image","url":"data:image/png;base64,iVBORw0KGgo=","detail":"low"},
              {"type":"text","text":"And this?"},{"type":"image","url":"https://example.com/cat.jpg"}]}]}""");

    @Test
    void eachProtocolGetsAUsersImagesInOrderInItsOwnShape() {
        JsonNode openAi = OpenAiChatClient.body(provider(ProviderProtocol.OPENAI_CHAT, "max_tokens"), prompt(IMAGES));
        JsonNode anthropic = AnthropicMessagesClient.prompt("m", prompt(IMAGES));

        assertEquals(Json.parse("""
                [{"type":"text","text":"What is this?"},
                 {"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo=","detail":"low"}},
                 {"type":"text","text":"And this?"},
                 {"type":"image_url","image_url":{"url":"https://example.com/cat.jpg"}}]
                """), openAi.at("/messages/0/content"));
        // OpenAI's detail has no Anthropic counterpart; a data URL becomes a base64 source, a URL a url source
        assertEquals(Json.parse("""
                [{"type":"text","text":"What is this?"},
                 {"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}},
                 {"type":"text","text":"And this?"},
                 {"type":"image","source":{"type":"url","url":"https://example.com/cat.jpg"}}]
                """), anthropic.at("/messages/0/content"));
    }

    @Test
    void openAiGetsFunctionsToolMessagesAndItsOwnParameters() {
        JsonNode body = OpenAiChatClient.body(provider(ProviderProtocol.OPENAI_CHAT,
                ProviderConfig.MAX_COMPLETION_TOKENS), prompt(STEP));

        assertEquals(Json.parse("""
                [{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\\"city\\":\\"Paris\\"}"}}]"""),
                body.at("/messages/1/tool_calls"));
        assertTrue(body.at("/messages/1/content").isNull());
        assertEquals("call_1", body.at("/messages/2/tool_call_id").asText());
        assertEquals("required", body.get("tool_choice").asText());
        assertFalse(body.get("parallel_tool_calls").asBoolean());
        assertTrue(body.at("/tools/0/function/strict").asBoolean());
        assertEquals(7, body.get("seed").asInt());
        // the provider's model takes max_completion_tokens, and refuses max_tokens
        assertEquals(50, body.get("max_completion_tokens").asInt());
        assertFalse(body.has("max_tokens"));
    }

    @Test
    void anthropicGetsToolUseAndOneUserMessageOfToolResults() {
        JsonNode body = AnthropicMessagesClient.prompt("m", prompt(STEP));

        assertEquals(Json.parse("""
                [{"type":"tool_use","id":"call_1","name":"get_weather","input":{"city":"Paris"}}]"""),
                body.at("/messages/1/content"));
        assertEquals(3, body.get("messages").size());
        assertEquals(Json.parse("""
                [{"type":"tool_result","tool_use_id":"call_1","content":"sunny","is_error":true},
                 {"type":"tool_result","tool_use_id":"call_2","content":"warm"}]"""), body.at("/messages/2/content"));
        assertEquals(Json.parse("""
                {"type":"any","disable_parallel_tool_use":true}"""), body.get("tool_choice"));
        assertEquals(Json.parse("""
                [{"name":"get_weather","input_schema":{"type":"object"}}]"""), body.get("tools"));
    }
}
