package dev.onejob.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Set;

/**
 * Maps behaviours to and from the control-plane JSON spec.
 *
 * <p>Consumes spec objects such as {@code {"kind":"status","status":429,"retry_after_s":3,"one_shot":true}};
 * produces {@link Spec} values (and the reverse). Owns the spec's field names; unknown kinds, unknown
 * fields and out-of-range values are rejected with an {@link IllegalArgumentException} naming the field.
 */
public final class BehaviourJson {

    /** A behaviour plus whether it is consumed by the first request it applies to. */
    public record Spec(Behaviour behaviour, boolean oneShot) {
    }

    private BehaviourJson() {
    }

    public static Spec parse(JsonNode spec) {
        if (spec == null || !spec.isObject()) {
            throw new IllegalArgumentException("behaviour spec must be a JSON object");
        }
        String kind = Json.text(spec, "kind");
        if (kind == null) {
            throw new IllegalArgumentException("behaviour spec needs a text field 'kind'");
        }
        Behaviour behaviour = switch (kind) {
            case "answer" -> new Behaviour.Answer(optionalLong(spec, "delay_ms", 0L));
            case "hang" -> new Behaviour.Hang(optionalLong(spec, "answer_after_ms", null));
            case "lognormal" -> new Behaviour.Lognormal(optionalLong(spec, "median_ms", 1_000L),
                    optionalLong(spec, "p99_ms", 8_000L));
            case "status" -> new Behaviour.Status(requiredInt(spec, "status"), optionalInt(spec, "retry_after_s"));
            case "malformed_json" -> new Behaviour.MalformedJson();
            case "invent_key" -> new Behaviour.InventKey(optionalText(spec, "key", "confidence"));
            case "drop_field" -> new Behaviour.DropField(optionalText(spec, "field", null),
                    optionalLong(spec, "every_nth", 1L).intValue());
            case "ignore_format" -> new Behaviour.IgnoreFormat();
            case "mangle_non_ascii" -> new Behaviour.MangleNonAscii();
            case "reset" -> new Behaviour.Reset();
            case "fail_mid_stream" -> new Behaviour.FailMidStream(optionalInt(spec, "after_events"));
            case "poison_answer" -> new Behaviour.PoisonAnswer(optionalText(spec, "flavour", "nul"),
                    optionalLong(spec, "size_bytes", 2L * 1024 * 1024).intValue());
            default -> throw new IllegalArgumentException("unknown behaviour kind '" + kind + "'");
        };
        rejectUnknownFields(spec, kind);
        JsonNode oneShot = spec.get("one_shot");
        if (oneShot != null && !oneShot.isNull() && !oneShot.isBoolean()) {
            throw new IllegalArgumentException("'one_shot' must be a boolean");
        }
        return new Spec(behaviour, oneShot != null && oneShot.asBoolean());
    }

    public static ObjectNode write(Behaviour behaviour, boolean oneShot) {
        ObjectNode spec = Json.object().put("kind", behaviour.kind());
        if (behaviour instanceof Behaviour.Answer answer) {
            spec.put("delay_ms", answer.delayMs());
        } else if (behaviour instanceof Behaviour.Hang hang) {
            spec.put("answer_after_ms", hang.answerAfterMs());
        } else if (behaviour instanceof Behaviour.Lognormal lognormal) {
            spec.put("median_ms", lognormal.medianMs());
            spec.put("p99_ms", lognormal.p99Ms());
        } else if (behaviour instanceof Behaviour.Status status) {
            spec.put("status", status.status());
            spec.put("retry_after_s", status.retryAfterSeconds());
        } else if (behaviour instanceof Behaviour.InventKey invent) {
            spec.put("key", invent.key());
        } else if (behaviour instanceof Behaviour.PoisonAnswer poison) {
            spec.put("flavour", poison.flavour());
            spec.put("size_bytes", poison.sizeBytes());
        } else if (behaviour instanceof Behaviour.FailMidStream cut) {
            spec.put("after_events", cut.afterEvents());
        } else if (behaviour instanceof Behaviour.DropField drop) {
            spec.put("field", drop.field());
            spec.put("every_nth", drop.everyNth());
        }
        if (oneShot) {
            spec.put("one_shot", true);
        }
        return spec;
    }

    private static void rejectUnknownFields(JsonNode spec, String kind) {
        var names = spec.fieldNames();
        while (names.hasNext()) {
            String name = names.next();
            if (!allowedFields(kind).contains(name)) {
                throw new IllegalArgumentException("field '" + name + "' is not allowed for kind '" + kind + "'");
            }
        }
    }

    private static Set<String> allowedFields(String kind) {
        return switch (kind) {
            case "answer" -> Set.of("kind", "one_shot", "delay_ms");
            case "hang" -> Set.of("kind", "one_shot", "answer_after_ms");
            case "lognormal" -> Set.of("kind", "one_shot", "median_ms", "p99_ms");
            case "status" -> Set.of("kind", "one_shot", "status", "retry_after_s");
            case "invent_key" -> Set.of("kind", "one_shot", "key");
            case "drop_field" -> Set.of("kind", "one_shot", "field", "every_nth");
            case "poison_answer" -> Set.of("kind", "one_shot", "flavour", "size_bytes");
            case "fail_mid_stream" -> Set.of("kind", "one_shot", "after_events");
            default -> Set.of("kind", "one_shot");
        };
    }

    private static Long optionalLong(JsonNode spec, String field, Long fallback) {
        JsonNode value = spec.get(field);
        if (value == null || value.isNull()) {
            return fallback;
        }
        if (!value.canConvertToLong() || !value.isIntegralNumber()) {
            throw new IllegalArgumentException("'" + field + "' must be an integer");
        }
        return value.asLong();
    }

    private static Integer optionalInt(JsonNode spec, String field) {
        Long value = optionalLong(spec, field, null);
        return value == null ? null : Math.toIntExact(value);
    }

    private static int requiredInt(JsonNode spec, String field) {
        Integer value = optionalInt(spec, field);
        if (value == null) {
            throw new IllegalArgumentException("'" + field + "' is required");
        }
        return value;
    }

    private static String optionalText(JsonNode spec, String field, String fallback) {
        JsonNode value = spec.get(field);
        if (value == null || value.isNull()) {
            return fallback;
        }
        if (!value.isTextual()) {
            throw new IllegalArgumentException("'" + field + "' must be a string");
        }
        return value.asText();
    }
}
