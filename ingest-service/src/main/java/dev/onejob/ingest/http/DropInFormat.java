package dev.onejob.ingest.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.billing.Usage;
import dev.onejob.core.contract.FinishReason;
import dev.onejob.core.json.Json;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * One provider wire format of the drop-in endpoints: how its request becomes the variables of a
 * {@link dev.onejob.core.contract.Passthrough} job, and how a finished job is answered in its shape.
 *
 * <p>Made by {@link ChatCompletionsFormat} ({@code POST /v1/chat/completions}) and {@link MessagesFormat}
 * ({@code POST /v1/messages}); consumed by {@link DropInApi}. A request the format cannot pass through faithfully (an
 * image, more than one choice) is refused with the parameter named, never silently changed.
 */
interface DropInFormat {

    /** {@code openai} or {@code anthropic}: the label of the metrics and the shape of error bodies. */
    String name();

    /** Reads a request body; the problems are empty when it can be a job. */
    Call read(JsonNode body);

    /** The answer to a call whose job succeeded with {@code result}; {@code usage} is the winning attempt's. */
    ObjectNode answer(Finished finished);

    /** The events a stream sends, in this format. */
    StreamEvents stream(Finished.Head head, boolean includeUsage);

    /**
     * A request, read.
     *
     * @param model        the model alias it names
     * @param variables    the passthrough contract's variables
     * @param stream       whether the answer is streamed
     * @param includeUsage OpenAI {@code stream_options.include_usage}: a final chunk with the usage
     * @param problems     why it cannot be a job, each naming the parameter
     */
    record Call(String model, ObjectNode variables, boolean stream, boolean includeUsage, List<String> problems) {
    }

    /**
     * A succeeded job, as an answer needs it.
     *
     * @param head         what names the answer
     * @param text         the answer's text: the free text, or the structured result as JSON
     * @param usage        what the winning attempt's provider billed; null when it reported nothing
     * @param finishReason why the winning attempt's provider stopped; null when it said nothing onejob maps
     * @param toolCalls    the answer's calls of the call's tools ({@code id}, {@code name}, {@code arguments}), in
     *                     the job's neutral form; empty for none
     */
    record Finished(Head head, String text, Usage usage, FinishReason finishReason, List<JsonNode> toolCalls) {
        public Finished {
            toolCalls = List.copyOf(toolCalls);
        }

        /** An answer without tool calls. */
        public Finished(Head head, String text, Usage usage, FinishReason finishReason) {
            this(head, text, usage, finishReason, List.of());
        }

        /** The answer's id (from the job's), the model alias and when the job was created (epoch seconds). */
        record Head(String id, String model, long created) {
        }
    }

    /** The server-sent events of one streamed answer. */
    interface StreamEvents {
        /** The events before any text. */
        List<String> start();

        /** The events carrying one piece of text. */
        List<String> delta(String text);

        /** The events that end a stream whose job succeeded: its finish reason and usage. */
        List<String> end(Finished finished);

        /**
         * The event that ends a stream whose job did not succeed: {@code problem}'s error object in this format's
         * dialect ({@link DropInProblems#error}), saying {@code message}, wrapped as the format does.
         */
        String error(Problem problem, String message);
    }

    /**
     * A request body being read: its model, the variables made of it so far, and the problems found, starting with
     * the fields this format neither passes through ({@code passed}) nor ignores ({@code ignored}).
     */
    record Reading(String model, ObjectNode variables, List<String> problems) {
        static Reading of(JsonNode body, Set<String> passed, Set<String> ignored) {
            List<String> problems = new ArrayList<>();
            DropInFormat.unsupported(body, passed, ignored, problems);
            return new Reading(DropInFormat.model(body, problems), Json.object(), problems);
        }

        Call call(boolean stream, boolean includeUsage) {
            return new Call(model, variables, stream, includeUsage, problems);
        }
    }

    /** One {@code data:} event (with an optional {@code event:} name). */
    static String event(String name, JsonNode data) {
        return (name == null ? "" : "event: " + name + "\n") + "data: " + Json.write(data) + "\n\n";
    }

    /** The text of a content that is a string or an array of text parts; null (with a problem) otherwise. */
    static String text(JsonNode content, String where, List<String> problems) {
        if (content != null && content.isTextual()) {
            return content.asText();
        }
        if (content != null && content.isArray()) {
            StringBuilder text = new StringBuilder();
            for (JsonNode part : content) {
                if (!"text".equals(part.path("type").asText()) || !part.path("text").isTextual()) {
                    problems.add(where + ": only text parts are passed through (found type '"
                            + part.path("type").asText("?") + "')");
                    return null;
                }
                text.append(part.get("text").asText());
            }
            return text.toString();
        }
        problems.add(where + " must be a string or an array of text parts");
        return null;
    }

    /** Adds a problem for each field of {@code body} not in {@code passed} or {@code ignored}. */
    static void unsupported(JsonNode body, Set<String> passed, Set<String> ignored, List<String> problems) {
        List<String> unknown = new ArrayList<>();
        for (Iterator<String> names = body.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!passed.contains(name) && !ignored.contains(name)) {
                unknown.add(name.length() > 64 ? name.substring(0, 64) + "..." : name);
            }
        }
        if (!unknown.isEmpty()) {
            problems.add("unsupported parameter" + (unknown.size() > 1 ? "s " : " ") + String.join(", ", unknown)
                    + ": onejob passes through the messages, the sampling parameters and the response format "
                    + "only (see docs/drop-in.md)");
        }
    }

    /** Copies a number field if present, checking it is a number. */
    static void number(JsonNode body, String from, ObjectNode variables, String to, List<String> problems) {
        JsonNode value = body.get(from);
        if (value == null || value.isNull()) {
            return;
        }
        if (!value.isNumber()) {
            problems.add("'" + from + "' must be a number");
            return;
        }
        variables.set(to, value);
    }

    /** The {@code model}, required and a string. */
    static String model(JsonNode body, List<String> problems) {
        JsonNode model = body.get("model");
        if (model == null || !model.isTextual() || model.asText().isEmpty()) {
            problems.add("'model' is required: a model alias of providers.yaml");
            return null;
        }
        return model.asText();
    }

    /** Both formats' stop sequences: a string or a list of strings. */
    static void stop(JsonNode stop, String from, ObjectNode variables, List<String> problems) {
        if (stop == null || stop.isNull()) {
            return;
        }
        var list = variables.putArray("stop");
        if (stop.isTextual()) {
            list.add(stop.asText());
            return;
        }
        if (!stop.isArray()) {
            problems.add("'" + from + "' must be a string or a list of strings");
            return;
        }
        for (JsonNode item : stop) {
            if (!item.isTextual()) {
                problems.add("'" + from + "' must hold strings only");
                return;
            }
            list.add(item.asText());
        }
    }

    /** Whether {@code body.field} is {@code true}; a value that is not a boolean is a problem. */
    static boolean flag(JsonNode body, String field, List<String> problems) {
        JsonNode value = body.get(field);
        if (value == null || value.isNull()) {
            return false;
        }
        if (!value.isBoolean()) {
            problems.add("'" + field + "' must be true or false");
            return false;
        }
        return value.asBoolean();
    }
}
