package dev.onejob.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Locale;
import java.util.Set;

/**
 * Maps behaviours to and from the control-plane JSON spec.
 *
 * <p>Consumes spec objects such as {@code {"kind":"status","status":429,"retry_after_s":3,"one_shot":true}} or
 * {@code {"kind":"status","status":429,"retry_after_s":1,"times":2}}; produces {@link Spec} values (and the reverse).
 * Owns the spec's field names; unknown kinds, unknown fields and out-of-range values are rejected with an
 * {@link IllegalArgumentException} naming the field. Every kind may carry {@code one_shot} or {@code times}, not both.
 */
public final class BehaviourJson {

    /**
     * A behaviour plus how long its rule lasts: {@code oneShot}, consumed by the first request it applies to (then the
     * default is {@code answer} again, a per-key rule is gone); or {@code times} (1 or more), consumed by that many
     * requests, after which the rule it replaced applies again; or neither ({@code false}, {@code null}): until replaced.
     */
    public record Spec(Behaviour behaviour, boolean oneShot, Integer times) {
        public Spec {
            if (oneShot && times != null) {
                throw new IllegalArgumentException("'one_shot' and 'times' cannot be combined; use one of them");
            }
            if (times != null && times < 1) {
                throw new IllegalArgumentException("'times' must be >= 1, was " + times);
            }
        }

        public Spec(Behaviour behaviour, boolean oneShot) {
            this(behaviour, oneShot, null);
        }
    }

    /** The spec's kind of each behaviour record, worked out once per record. */
    private static final ClassValue<String> KINDS = new ClassValue<>() {
        @Override
        protected String computeValue(Class<?> type) {
            return type.getSimpleName().replaceAll("(?<=[a-z])(?=[A-Z])", "_").toLowerCase(Locale.ROOT);
        }
    };

    private BehaviourJson() {
    }

    /**
     * The spec's {@code kind} of a behaviour (and its name in the ledger): its record's name in snake case,
     * {@code DropField} is {@code drop_field}, as {@link #parse} reads it.
     */
    static String kindOf(Class<? extends Behaviour> type) {
        return KINDS.get(type);
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
            case "status" -> new Behaviour.Status(requiredInt(spec, "status"), optionalInt(spec, "retry_after_s"),
                    optionalLong(spec, "retry_after_ms", null), optionalLong(spec, "reset_after_ms", null));
            case "malformed_json" -> new Behaviour.MalformedJson();
            case "invent_key" -> new Behaviour.InventKey(optionalText(spec, "key", "confidence"));
            case "drop_field" -> new Behaviour.DropField(optionalText(spec, "field", null),
                    optionalInt(spec, "every_nth", 1));
            case "ignore_format" -> new Behaviour.IgnoreFormat();
            case "mangle_non_ascii" -> new Behaviour.MangleNonAscii();
            case "reset" -> new Behaviour.Reset();
            case "fail_mid_stream" -> new Behaviour.FailMidStream(optionalInt(spec, "after_events"));
            case "poison_answer" -> new Behaviour.PoisonAnswer(optionalText(spec, "flavour", "nul"),
                    optionalInt(spec, "size_bytes", 2 * 1024 * 1024));
            case "paced" -> new Behaviour.Paced(requiredInt(spec, "pieces"), requiredLong(spec, "interval_ms"),
                    optionalBoolean(spec, "streamed_only"));
            case "large_answer" -> new Behaviour.LargeAnswer(requiredInt(spec, "size_bytes"));
            case "mix" -> new Mix(requiredShare(spec), parse(spec.get("then")).behaviour(),
                    parse(spec.get("otherwise")).behaviour());
            default -> throw new IllegalArgumentException("unknown behaviour kind '" + kind + "'");
        };
        rejectUnknownFields(spec, kind);
        JsonNode oneShot = spec.get("one_shot");
        if (oneShot != null && !oneShot.isNull() && !oneShot.isBoolean()) {
            throw new IllegalArgumentException("'one_shot' must be a boolean");
        }
        return new Spec(behaviour, oneShot != null && oneShot.asBoolean(), optionalInt(spec, "times"));
    }

    public static ObjectNode write(Spec spec) {
        ObjectNode written = write(spec.behaviour(), spec.oneShot());
        if (spec.times() != null) {
            written.put("times", spec.times());
        }
        return written;
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
            putIfSet(spec, "retry_after_ms", status.retryAfterMs());
            putIfSet(spec, "reset_after_ms", status.resetAfterMs());
        } else if (behaviour instanceof Behaviour.Paced paced) {
            spec.put("pieces", paced.pieces());
            spec.put("interval_ms", paced.intervalMs());
            if (paced.streamedOnly()) {
                spec.put("streamed_only", true);
            }
        } else if (behaviour instanceof Mix mix) {
            spec.put("share", mix.share());
            spec.set("then", write(mix.then(), false));
            spec.set("otherwise", write(mix.otherwise(), false));
        } else if (behaviour instanceof Behaviour.LargeAnswer large) {
            spec.put("size_bytes", large.sizeBytes());
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

    /** New optional fields are written only when set, so the specs of older behaviours read as they always did. */
    private static void putIfSet(ObjectNode spec, String field, Long value) {
        if (value != null) {
            spec.put(field, value);
        }
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
            case "answer" -> Set.of("kind", "one_shot", "times", "delay_ms");
            case "hang" -> Set.of("kind", "one_shot", "times", "answer_after_ms");
            case "lognormal" -> Set.of("kind", "one_shot", "times", "median_ms", "p99_ms");
            case "status" -> Set.of("kind", "one_shot", "times", "status", "retry_after_s", "retry_after_ms",
                    "reset_after_ms");
            case "invent_key" -> Set.of("kind", "one_shot", "times", "key");
            case "drop_field" -> Set.of("kind", "one_shot", "times", "field", "every_nth");
            case "poison_answer" -> Set.of("kind", "one_shot", "times", "flavour", "size_bytes");
            case "fail_mid_stream" -> Set.of("kind", "one_shot", "times", "after_events");
            case "paced" -> Set.of("kind", "one_shot", "times", "pieces", "interval_ms", "streamed_only");
            case "large_answer" -> Set.of("kind", "one_shot", "times", "size_bytes");
            case "mix" -> Set.of("kind", "one_shot", "times", "share", "then", "otherwise");
            default -> Set.of("kind", "one_shot", "times");
        };
    }

    private static boolean optionalBoolean(JsonNode spec, String field) {
        JsonNode value = spec.get(field);
        if (value != null && !value.isNull() && !value.isBoolean()) {
            throw new IllegalArgumentException("'" + field + "' must be a boolean");
        }
        return value != null && value.asBoolean();
    }

    private static double requiredShare(JsonNode spec) {
        JsonNode share = spec.get("share");
        if (share == null || !share.isNumber()) {
            throw new IllegalArgumentException("'share' must be a number within 0..1");
        }
        return share.asDouble();
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
        if (value != null && (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE)) {
            throw new IllegalArgumentException("'" + field + "' is out of range: " + value);
        }
        return value == null ? null : value.intValue();
    }

    private static int optionalInt(JsonNode spec, String field, int fallback) {
        Integer value = optionalInt(spec, field);
        return value == null ? fallback : value;
    }

    private static int requiredInt(JsonNode spec, String field) {
        Integer value = optionalInt(spec, field);
        if (value == null) {
            throw new IllegalArgumentException("'" + field + "' is required");
        }
        return value;
    }

    private static long requiredLong(JsonNode spec, String field) {
        Long value = optionalLong(spec, field, null);
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
