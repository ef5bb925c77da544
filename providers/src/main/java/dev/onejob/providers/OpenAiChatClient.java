package dev.onejob.providers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.billing.Usage;
import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.config.ProviderProtocol;
import dev.onejob.core.contract.Contract;
import dev.onejob.core.contract.FinishReason;
import dev.onejob.core.contract.Prompt;
import dev.onejob.core.json.Json;
import java.net.http.HttpRequest;
import java.util.UUID;

/**
 * The OpenAI Chat Completions adapter: {@code POST {base_url}/v1/chat/completions} with a {@code json_schema}
 * response format (strict as the prompt says), and the call's tools as functions.
 *
 * <p>Consumes a provider of protocol {@code openai-chat}, a contract and its variables; produces a
 * {@link ProviderCall} whose successful answer is {@code choices[0].message.content}, parsed as JSON and checked
 * against the prompt's schema (or, for a free-text prompt, kept as {@code {"text": ...}}). Authenticates with {@code Authorization: Bearer}; the provider request id comes from
 * {@code x-request-id}, else the reply's {@code id}. Owns nothing; sending is shared ({@link ProviderTransport}).
 */
public final class OpenAiChatClient implements ProviderClient {

    static final WireFormat WIRE = new WireFormat("/v1/chat/completions", "x-request-id",
            OpenAiChatClient::headers, OpenAiChatClient::answer, OpenAiChatClient::usage,
            body -> body.put("stream", true).putObject("stream_options").put("include_usage", true), SseReply::openAi);

    private final ProviderTransport transport;

    OpenAiChatClient(ProviderTransport transport) {
        this.transport = transport;
    }

    @Override
    public ProviderCall call(ProviderConfig provider, Contract contract, JsonNode variables, UUID attemptId,
                             ChunkSink sink) {
        ProviderClients.requireProtocol(provider, ProviderProtocol.OPENAI_CHAT);
        return transport.call(provider, contract, variables, attemptId, WIRE, prompt -> body(provider, prompt), sink);
    }

    /**
     * The request: the system text and the conversation as messages, the sampling parameters the prompt sets, and a
     * {@code json_schema} response format when the answer must be structured (strict when the prompt says so: always for
     * a contract's schema, as the caller sent it for a passthrough call), or {@code json_object} when the caller asked
     * for any JSON object.
     */
    static ObjectNode body(ProviderConfig provider, Prompt prompt) {
        ObjectNode body = Json.object();
        body.put("model", provider.model());
        ArrayNode messages = body.putArray("messages");
        if (!prompt.system().isEmpty()) {
            messages.addObject().put("role", "system").put("content", prompt.system());
        }
        prompt.turns().forEach(turn -> message(messages.addObject(), turn));
        tools(body, prompt.tools());
        if (prompt.temperature() != null) {
            body.put("temperature", prompt.temperature());
        }
        if (prompt.topP() != null) {
            body.put("top_p", prompt.topP());
        }
        body.put(provider.maxTokensField(), prompt.maxTokens());
        Prompt.OPENAI_OPTIONS.stream().filter(prompt.options()::containsKey)
                .forEach(name -> body.set(name, prompt.options().get(name)));
        if (!prompt.stop().isEmpty()) {
            prompt.stop().forEach(body.putArray("stop")::add);
        }
        if (prompt.jsonObject()) {
            body.putObject("response_format").put("type", "json_object");
        } else if (prompt.structured()) {
            ObjectNode format = body.putObject("response_format").put("type", "json_schema");
            ObjectNode schema = format.putObject("json_schema").put("name", prompt.schemaName());
            schema.set("schema", prompt.outputSchema());
            if (prompt.strict() != null) {
                schema.put("strict", prompt.strict());
            }
        }
        return body;
    }

    /**
     * One message: a tool message answers its call; an assistant message's tool calls carry arguments as JSON text; a
     * user message that shows images is its text and {@code image_url} parts, in order.
     */
    private static void message(ObjectNode message, Prompt.Turn turn) {
        message.put("role", turn.role());
        if ("tool".equals(turn.role())) {
            message.put("tool_call_id", turn.toolCallId()).put("content", turn.text());
            return;
        }
        if (!turn.parts().isEmpty()) {
            ArrayNode content = message.putArray("content");
            for (Prompt.Part part : turn.parts()) {
                if (!part.image()) {
                    content.addObject().put("type", "text").put("text", part.text());
                    continue;
                }
                ObjectNode image = content.addObject().put("type", "image_url").putObject("image_url")
                        .put("url", part.imageUrl());
                if (part.detail() != null) {
                    image.put("detail", part.detail());
                }
            }
        } else if (turn.toolCalls().isEmpty() || !turn.text().isEmpty()) {
            message.put("content", turn.text());
        } else {
            message.putNull("content");
        }
        if (!turn.toolCalls().isEmpty()) {
            ArrayNode calls = message.putArray("tool_calls");
            turn.toolCalls().forEach(call -> calls.addObject().put("id", call.id()).put("type", "function")
                    .putObject("function").put("name", call.name()).put("arguments", Json.write(call.arguments())));
        }
    }

    /** The call's tools as functions, and its choice: {@code required} and a named function as OpenAI spells them. */
    private static void tools(ObjectNode body, Prompt.Tools tools) {
        if (tools == null) {
            return;
        }
        ArrayNode list = body.putArray("tools");
        for (Prompt.Tool tool : tools.list()) {
            ObjectNode function = list.addObject().put("type", "function").putObject("function");
            function.put("name", tool.name());
            if (!tool.description().isEmpty()) {
                function.put("description", tool.description());
            }
            function.set("parameters", tool.parameters());
            if (tool.strict() != null) {
                function.put("strict", tool.strict());
            }
        }
        if ("tool".equals(tools.choice())) {
            body.putObject("tool_choice").put("type", "function").putObject("function").put("name", tools.name());
        } else {
            body.put("tool_choice", tools.choice());
        }
        if (tools.parallel() != null) {
            body.put("parallel_tool_calls", tools.parallel());
        }
    }

    private static void headers(HttpRequest.Builder request, String apiKey) {
        if (apiKey != null) {
            request.header("Authorization", "Bearer " + apiKey);
        }
    }

    /**
     * {@code usage.prompt_tokens} (which includes the cached part), {@code completion_tokens} and
     * {@code prompt_tokens_details.cached_tokens}; null when the reply has no usable usage block.
     */
    static Usage usage(JsonNode reply) {
        JsonNode usage = reply.path("usage");
        long input = WireFormat.count(usage, "prompt_tokens");
        long output = WireFormat.count(usage, "completion_tokens");
        long cached = WireFormat.count(usage.path("prompt_tokens_details"), "cached_tokens");
        if (input < 0 || output < 0 || cached < -1 || cached > input) {
            return null;
        }
        return new Usage(input, output, Math.max(0, cached));
    }

    private static WireFormat.Answer answer(JsonNode reply, Prompt prompt) {
        JsonNode message = reply.path("choices").path(0).path("message");
        JsonNode content = message.get("content");
        if (prompt.tools() != null && message.path("tool_calls").isArray() && !message.get("tool_calls").isEmpty()) {
            return toolCalls(reply, message, content);
        }
        if (content == null || !content.isTextual()) {
            String refusal = message.path("refusal").isTextual() ? " (refusal: " + message.get("refusal").asText() + ")"
                    : "";
            return WireFormat.Answer.unusable("the reply has no text in choices[0].message.content" + refusal,
                    Json.write(reply));
        }
        String text = content.asText();
        FinishReason reason = FinishReason.fromOpenAi(reply.path("choices").path(0).path("finish_reason")
                .asText(null));
        if (!prompt.structured()) {
            return WireFormat.Answer.found(Json.object().put(Prompt.TEXT, text), text, reason);
        }
        try {
            return WireFormat.Answer.found(Json.parse(text), text, reason);
        } catch (IllegalArgumentException e) {
            return WireFormat.Answer.unusable("the answer is " + e.getMessage(), text);
        }
    }

    /** An answer that calls tools: its text ("" for none) and each call, its arguments parsed from their JSON text. */
    private static WireFormat.Answer toolCalls(JsonNode reply, JsonNode message, JsonNode content) {
        ObjectNode answer = Json.object().put(Prompt.TEXT, content != null && content.isTextual() ? content.asText() : "");
        ArrayNode calls = answer.putArray(Prompt.TOOL_CALLS);
        for (JsonNode call : message.get("tool_calls")) {
            JsonNode function = call.path("function");
            JsonNode arguments;
            try {
                arguments = Json.parse(function.path("arguments").asText(""));
            } catch (IllegalArgumentException e) {
                return WireFormat.Answer.unusable("the arguments of tool call " + call.path("id").asText("?")
                        + " are not JSON: " + e.getMessage(), Json.write(message));
            }
            calls.addObject().put("id", call.path("id").asText("")).put("name", function.path("name").asText(""))
                    .set("arguments", arguments);
        }
        FinishReason reason = FinishReason.fromOpenAi(reply.path("choices").path(0).path("finish_reason").asText(null));
        return WireFormat.Answer.found(answer, Json.write(answer), reason);
    }
}
