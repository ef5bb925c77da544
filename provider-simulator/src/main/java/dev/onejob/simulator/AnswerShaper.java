package dev.onejob.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Map;
import java.util.function.Function;

/**
 * Turns a request and the content behaviour applied to it into a {@link Completion}.
 *
 * <p>Consumes the request, the effective behaviour and the answer function (the schema-driven
 * {@link AnswerGenerator} unless a test supplied its own); produces the model's output, damaged or grown the way
 * the behaviour says: an answer that is a JSON string is free text ({@link Completion.Text}), any other is a JSON
 * answer ({@link Completion.Structured}). {@code large_answer} grows the valid answer to its size and {@code paced}
 * to at least one character per piece ({@link AnswerPadding}). Owns nothing. Transport behaviours (hang, status,
 * reset) never reach it; the others ({@code answer}, {@code lognormal}, {@code fail_mid_stream}) get the plain answer.
 */
final class AnswerShaper {

    /** Value of the key {@code invent_key} adds: a plausible model "confidence". */
    static final double INVENTED_VALUE = 0.87;

    private final Function<SimRequest, JsonNode> answerFunction;

    AnswerShaper(Function<SimRequest, JsonNode> answerFunction) {
        this.answerFunction = answerFunction;
    }

    Completion shape(Behaviour behaviour, SimRequest request) {
        if (behaviour instanceof Behaviour.MangleNonAscii) {
            return complete(AnswerGenerator.answerWithFreeText(request, mangle(request.userText())));
        }
        JsonNode answer = answerFunction.apply(request);
        if (behaviour instanceof Behaviour.MalformedJson) {
            return new Completion.Text(truncate(Json.write(answer)));
        }
        if (behaviour instanceof Behaviour.IgnoreFormat) {
            return new Completion.Text(prose(answer));
        }
        if (behaviour instanceof Behaviour.InventKey invent && answer.isObject()) {
            return new Completion.Structured(((ObjectNode) answer.deepCopy()).put(invent.key(), INVENTED_VALUE));
        }
        if (behaviour instanceof Behaviour.PoisonAnswer poison && answer.isTextual()) {
            return new Completion.Text(poisoned(poison, answer.asText()));
        }
        if (behaviour instanceof Behaviour.PoisonAnswer poison && answer.isObject()) {
            return new Completion.Structured(poison(poison, request.outputSchema(), (ObjectNode) answer.deepCopy()));
        }
        if (behaviour instanceof Behaviour.DropField drop && answer.isObject()) {
            ObjectNode damaged = answer.deepCopy();
            String field = drop.field() != null ? drop.field() : firstRequired(request.outputSchema(), damaged);
            if (field != null) {
                damaged.remove(field);
            }
            return new Completion.Structured(damaged);
        }
        if (behaviour instanceof Behaviour.LargeAnswer large) {
            return complete(AnswerPadding.toSize(answer, request.outputSchema(), request.promptText(),
                    large.sizeBytes()));
        }
        if (behaviour instanceof Behaviour.Paced paced) {
            return complete(AnswerPadding.atLeastChars(answer, request.outputSchema(), request.promptText(),
                    paced.pieces()));
        }
        return withinLimit(complete(answer), request);
    }

    /**
     * A plain free-text answer longer than the call's {@code max_tokens} (or {@code max_completion_tokens}) is cut at
     * that many tokens, as a model's is, and says so: {@code finish_reason: length}, {@code stop_reason: max_tokens}.
     * The behaviours that shape an answer's size on purpose are left as they made it.
     */
    static Completion withinLimit(Completion completion, SimRequest request) {
        JsonNode limit = request.body().hasNonNull("max_completion_tokens") ? request.body().get("max_completion_tokens")
                : request.body().get("max_tokens");
        if (!(completion instanceof Completion.Text text) || limit == null || !limit.canConvertToLong()
                || TokenCounter.approximate(text.text()) <= limit.asLong()) {
            return completion;
        }
        long bytes = 0;
        int end = 0;
        while (end < text.text().length()) {
            int next = text.text().offsetByCodePoints(end, 1);
            bytes += text.text().substring(end, next).getBytes(StandardCharsets.UTF_8).length;
            if (bytes > limit.asLong() * 4) {
                break;
            }
            end = next;
        }
        return new Completion.Text(text.text().substring(0, end), true);
    }

    private static Completion complete(JsonNode answer) {
        return answer.isTextual() ? new Completion.Text(answer.asText()) : new Completion.Structured(answer);
    }

    /** The answer with its first free-text string (a string property without {@code enum}) poisoned. */
    private static ObjectNode poison(Behaviour.PoisonAnswer poison, JsonNode schema, ObjectNode answer) {
        String field = null;
        for (Map.Entry<String, JsonNode> property : answer.properties()) {
            JsonNode declared = schema == null ? null : schema.path("properties").get(property.getKey());
            if (property.getValue().isTextual() && (declared == null || !declared.has("enum"))) {
                field = property.getKey();
                break;
            }
        }
        if (field == null) {
            field = "poison";
        }
        return answer.put(field, poisoned(poison, answer.path(field).asText("")));
    }

    private static String poisoned(Behaviour.PoisonAnswer poison, String text) {
        return switch (poison.flavour()) {
            case "nul" -> text + "\u0000";
            case "lone_surrogate" -> text + "\ud800";
            default -> text + "x".repeat(Math.max(0, poison.sizeBytes() - text.length()));
        };
    }

    /** The prompt as an encoding that cannot represent non-ASCII would pass it on: each such char a '?'. */
    static String mangle(String text) {
        StringBuilder mangled = new StringBuilder(text.length());
        text.codePoints().forEach(cp -> mangled.append(cp < 128 ? (char) cp : '?'));
        return mangled.toString();
    }

    /** A proper prefix of a JSON object's text never parses: the closing brace is always cut off. */
    private static String truncate(String json) {
        int keep = Math.max(1, json.length() - Math.max(1, json.length() / 3));
        return json.substring(0, keep);
    }

    private static String prose(JsonNode answer) {
        for (Map.Entry<String, JsonNode> field : answer.properties()) {
            if (field.getValue().isValueNode() && !field.getValue().isNull()) {
                return "Sure! The " + field.getKey() + " is " + field.getValue().asText() + ".";
            }
        }
        return "Sure! Here is what I found in your message.";
    }

    private static String firstRequired(JsonNode schema, ObjectNode answer) {
        JsonNode required = schema == null ? null : schema.get("required");
        if (required != null && required.isArray() && !required.isEmpty()) {
            return required.get(0).asText();
        }
        Iterator<String> names = answer.fieldNames();
        return names.hasNext() ? names.next() : null;
    }
}
