package dev.onejob.ingest.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.billing.Usage;
import dev.onejob.core.contract.FinishReason;
import dev.onejob.core.contract.Passthrough;
import dev.onejob.core.json.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The OpenAI Chat Completions format of the drop-in endpoints ({@code POST /v1/chat/completions}).
 *
 * <p>Passes through {@code messages} ({@code system} and {@code developer} messages become the system text;
 * {@code user}, {@code assistant} and {@code tool} messages the conversation, an assistant's {@code tool_calls}
 * included; text content, and a user's {@code image_url} parts), {@code tools} (functions), {@code tool_choice},
 * {@code parallel_tool_calls}, {@code temperature}, {@code top_p}, {@code max_tokens} or
 * {@code max_completion_tokens}, {@code stop}, {@code response_format} ({@code text}, {@code json_object} for any
 * JSON object, or {@code json_schema}, whose schema becomes the job's output schema), and {@code seed},
 * {@code frequency_penalty} and {@code presence_penalty}, which route the job to OpenAI-protocol providers only.
 * Accepts and ignores {@code user}, {@code metadata}, {@code store} and {@code n: 1}. Refuses anything else
 * (logprobs, more than one choice, legacy {@code functions}, audio and file parts) with the parameter named.
 */
final class ChatCompletionsFormat implements DropInFormat {
    private static final Set<String> PASSED = Set.of("model", "messages", "temperature", "top_p", "max_tokens",
            "max_completion_tokens", "stop", "response_format", "stream", "stream_options", "tools", "tool_choice",
            "parallel_tool_calls", "seed", "frequency_penalty", "presence_penalty");
    private static final Set<String> IGNORED = Set.of("user", "metadata", "store", "n");

    @Override
    public String name() {
        return "openai";
    }

    @Override
    public Call read(JsonNode body) {
        Reading reading = Reading.of(body, PASSED, IGNORED);
        List<String> problems = reading.problems();
        ObjectNode variables = reading.variables();
        if (body.has("n") && !(body.get("n").isIntegralNumber() && body.get("n").asInt() == 1)) {
            problems.add("'n' must be 1: a job has one answer");
        }
        messages(body.get("messages"), variables, problems);
        DropInFormat.number(body, "temperature", variables, "temperature", problems);
        DropInFormat.number(body, "top_p", variables, "top_p", problems);
        DropInFormat.number(body, "seed", variables, "seed", problems);
        DropInFormat.number(body, "frequency_penalty", variables, "frequency_penalty", problems);
        DropInFormat.number(body, "presence_penalty", variables, "presence_penalty", problems);
        if (body.hasNonNull("max_tokens") && body.hasNonNull("max_completion_tokens")) {
            problems.add("send 'max_completion_tokens' or 'max_tokens', not both");
        }
        DropInFormat.number(body, "max_tokens", variables, "max_tokens", problems);
        DropInFormat.number(body, "max_completion_tokens", variables, "max_tokens", problems);
        DropInFormat.stop(body.get("stop"), "stop", variables, problems);
        responseFormat(body.get("response_format"), variables, problems);
        DropInTools.readOpenAi(body, variables, problems);
        boolean stream = DropInFormat.flag(body, "stream", problems);
        JsonNode options = body.path("stream_options");
        boolean includeUsage = options.path("include_usage").asBoolean(false);
        if (!options.isMissingNode() && !options.isNull() && !stream) {
            problems.add("'stream_options' is only allowed with 'stream': true");
        }
        return reading.call(stream, includeUsage);
    }

    private static void messages(JsonNode messages, ObjectNode variables, List<String> problems) {
        if (messages == null || !messages.isArray() || messages.isEmpty()) {
            problems.add("'messages' is required: a non-empty array");
            return;
        }
        StringBuilder system = new StringBuilder();
        ArrayNode turns = variables.putArray("messages");
        for (int i = 0; i < messages.size(); i++) {
            JsonNode message = messages.get(i);
            String role = message.path("role").asText("");
            String where = "messages[" + i + "].content";
            switch (role) {
                case "system", "developer" -> {
                    String text = DropInFormat.text(message.get("content"), where, problems);
                    if (text != null) {
                        system.append(system.length() == 0 ? "" : "\n").append(text);
                    }
                }
                case "user", "assistant" -> {
                    if (message.hasNonNull("function_call")) {
                        problems.add("messages[" + i + "].function_call is not passed through: send tool_calls");
                    }
                    boolean calls = "assistant".equals(role) && message.hasNonNull("tool_calls");
                    JsonNode content = message.get("content");
                    if ("user".equals(role) && DropInImages.shown(content, false)) {
                        turns.addObject().put("role", role).set("content",
                                DropInImages.fromOpenAi(content, where, problems));
                        continue;
                    }
                    String text = calls && (content == null || content.isNull()) ? ""
                            : DropInFormat.text(content, where, problems);
                    if (text != null) {
                        ObjectNode turn = turns.addObject().put("role", role).put("content", text);
                        if (calls) {
                            DropInTools.openAiCalls(message.get("tool_calls"), "messages[" + i + "].tool_calls", turn,
                                    problems);
                        }
                    }
                }
                case "tool" -> {
                    String text = DropInFormat.text(message.get("content"), where, problems);
                    if (!message.path("tool_call_id").isTextual()) {
                        problems.add("messages[" + i + "].tool_call_id is required: the call the tool answers");
                    } else if (text != null) {
                        turns.addObject().put("role", "tool").put("content", text)
                                .put("tool_call_id", message.get("tool_call_id").asText());
                    }
                }
                default -> problems.add("messages[" + i + "].role '" + role + "' is not passed through (system, "
                        + "developer, user, assistant and tool are)");
            }
        }
        if (system.length() > 0) {
            variables.put("system", system.toString());
        }
        if (turns.isEmpty()) {
            problems.add("'messages' needs at least one user or assistant message");
        }
    }

    private static void responseFormat(JsonNode format, ObjectNode variables, List<String> problems) {
        if (format == null || format.isNull()) {
            return;
        }
        String type = format.path("type").asText("");
        switch (type) {
            case "text" -> {
            }
            case "json_schema" -> {
                JsonNode spec = format.path("json_schema");
                if (!spec.path("schema").isObject()) {
                    problems.add("response_format.json_schema.schema is required: the JSON Schema of the answer");
                    return;
                }
                variables.set("output_schema", spec.get("schema"));
                if (spec.path("name").isTextual()) {
                    variables.put("schema_name", spec.get("name").asText());
                }
                JsonNode strict = spec.get("strict");
                if (strict != null && !strict.isNull()) {
                    if (strict.isBoolean()) {
                        variables.put("schema_strict", strict.asBoolean());
                    } else {
                        problems.add("response_format.json_schema.strict must be true or false");
                    }
                }
            }
            case "json_object" -> variables.put(Passthrough.JSON_OBJECT, true);
            default -> problems.add("response_format.type must be 'text', 'json_object' or 'json_schema'");
        }
    }

    @Override
    public ObjectNode answer(Finished finished) {
        ObjectNode body = head(finished.head(), "chat.completion");
        ObjectNode choice = body.putArray("choices").addObject();
        choice.put("index", 0);
        ObjectNode message = choice.putObject("message").put("role", "assistant");
        if (finished.toolCalls().isEmpty() || !finished.text().isEmpty()) {
            message.put("content", finished.text());
        } else {
            message.putNull("content");
        }
        message.putNull("refusal");
        if (!finished.toolCalls().isEmpty()) {
            message.set("tool_calls", DropInTools.toOpenAi(finished.toolCalls(), false));
        }
        choice.putNull("logprobs");
        choice.put("finish_reason", FinishReason.toOpenAi(finished.finishReason()));
        body.set("usage", usage(finished.usage()));
        return body;
    }

    private static ObjectNode head(Finished.Head head, String object) {
        ObjectNode body = Json.object();
        body.put("id", head.id());
        body.put("object", object);
        body.put("created", head.created());
        body.put("model", head.model());
        return body;
    }

    private static JsonNode usage(Usage usage) {
        if (usage == null) {
            return Json.MAPPER.nullNode();
        }
        ObjectNode node = Json.object();
        node.put("prompt_tokens", usage.inputTokens());
        node.put("completion_tokens", usage.outputTokens());
        node.put("total_tokens", usage.inputTokens() + usage.outputTokens());
        node.putObject("prompt_tokens_details").put("cached_tokens", usage.cachedInputTokens());
        return node;
    }

    @Override
    public StreamEvents stream(Finished.Head head, boolean includeUsage) {
        return new StreamEvents() {
            @Override
            public List<String> start() {
                return List.of(chunk(Json.object().put("role", "assistant").put("content", ""), null));
            }

            @Override
            public List<String> delta(String text) {
                return List.of(chunk(Json.object().put("content", text), null));
            }

            @Override
            public List<String> end(Finished finished) {
                List<String> events = new ArrayList<>();
                if (!finished.toolCalls().isEmpty()) {
                    ObjectNode delta = Json.object();
                    delta.set("tool_calls", DropInTools.toOpenAi(finished.toolCalls(), true));
                    events.add(chunk(delta, null));
                }
                events.add(chunk(Json.object(), FinishReason.toOpenAi(finished.finishReason())));
                if (includeUsage) {
                    ObjectNode last = head(head, "chat.completion.chunk");
                    last.putArray("choices");
                    last.set("usage", usage(finished.usage()));
                    events.add(DropInFormat.event(null, last));
                }
                events.add("data: [DONE]\n\n");
                return events;
            }

            @Override
            public String error(Problem problem, String message) {
                ObjectNode event = Json.object();
                event.set("error", DropInProblems.error(problem, false).put("message", message));
                return DropInFormat.event(null, event);
            }

            private String chunk(ObjectNode delta, String finishReason) {
                ObjectNode chunk = head(head, "chat.completion.chunk");
                ObjectNode choice = chunk.putArray("choices").addObject();
                choice.put("index", 0);
                choice.set("delta", delta);
                choice.putNull("logprobs");
                if (finishReason == null) {
                    choice.putNull("finish_reason");
                } else {
                    choice.put("finish_reason", finishReason);
                }
                if (includeUsage) {
                    chunk.putNull("usage");
                }
                return DropInFormat.event(null, chunk);
            }
        };
    }
}
