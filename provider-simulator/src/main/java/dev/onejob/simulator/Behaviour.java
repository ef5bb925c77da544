package dev.onejob.simulator;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * What the simulator does with one protocol request, as a closed set of value types.
 *
 * <p>Consumed by the request handler (which applies it) and by {@link BehaviourJson} (which maps it
 * to and from the control-plane spec, e.g. {@code {"kind":"answer","delay_ms":0}}). Owns nothing:
 * every variant is an immutable record. Each variant's {@link #kind()}, its name in snake case, is the spec's
 * {@code kind} and the value recorded in the ledger.
 */
public sealed interface Behaviour permits Behaviour.Answer, Behaviour.Lognormal, Behaviour.Hang, Behaviour.Status,
        Behaviour.Paced, Behaviour.LargeAnswer, Behaviour.MalformedJson, Behaviour.InventKey, Behaviour.DropField,
        Behaviour.IgnoreFormat, Behaviour.MangleNonAscii, Behaviour.PoisonAnswer, Behaviour.FailMidStream,
        Behaviour.Reset, Mix {

    /**
     * The spec and ledger name of this behaviour: its record's name in snake case, e.g. {@code "drop_field"} for
     * {@link DropField} ({@link BehaviourJson#kindOf}).
     */
    default String kind() {
        return BehaviourJson.kindOf(getClass());
    }

    /** A normal success after {@code delayMs} milliseconds. */
    record Answer(long delayMs) implements Behaviour {
        public Answer {
            requireNotNegative(delayMs, "delay_ms");
        }
    }

    /**
     * A normal success after a delay drawn for each request from a lognormal distribution with the given median
     * and 99th percentile, the shape of real model latencies (most calls near the median, a long tail).
     */
    record Lognormal(long medianMs, long p99Ms) implements Behaviour {
        /** The standard normal quantile of 0.99. */
        private static final double Z99 = 2.3263478740408408;

        public Lognormal {
            if (medianMs < 1) {
                throw new IllegalArgumentException("median_ms must be at least 1, was " + medianMs);
            }
            if (p99Ms < medianMs) {
                throw new IllegalArgumentException("p99_ms must be at least median_ms, was " + p99Ms);
            }
        }

        /** One delay: {@code median * exp(sigma * z)} with {@code sigma = ln(p99 / median) / z(0.99)}. */
        public long drawMs(RandomGenerator random) {
            double sigma = Math.log((double) p99Ms / medianMs) / Z99;
            return Math.round(medianMs * Math.exp(sigma * random.nextGaussian()));
        }
    }

    /**
     * Reads the request, then holds the connection open and answers (success) after
     * {@code answerAfterMs}, or never ({@code null}) until the simulator closes.
     */
    record Hang(Long answerAfterMs) implements Behaviour {
        public Hang {
            requireNotNegativeIfGiven(answerAfterMs, "answer_after_ms");
        }
    }

    /**
     * An error in the protocol's own error shape (see {@link Wire#error}), never billed. Headers when given:
     * {@code Retry-After} ({@code retryAfterSeconds}), {@code retry-after-ms} ({@code retryAfterMs}, OpenAI's) and the
     * wire's rate-limit reset header ({@code resetAfterMs}, see {@link Wire#addRateLimitReset}).
     */
    record Status(int status, Integer retryAfterSeconds, Long retryAfterMs, Long resetAfterMs) implements Behaviour {
        public Status {
            requireWithin(status, 400, 599, "status");
            requireNotNegativeIfGiven(retryAfterSeconds, "retry_after_s");
            requireNotNegativeIfGiven(retryAfterMs, "retry_after_ms");
            requireNotNegativeIfGiven(resetAfterMs, "reset_after_ms");
        }

        public Status(int status, Integer retryAfterSeconds) {
            this(status, retryAfterSeconds, null, null);
        }

        /** This refusal with a {@code retry-after-ms} header of {@code ms}. */
        public Status withRetryAfterMs(long ms) {
            return new Status(status, retryAfterSeconds, ms, resetAfterMs);
        }

        /** This refusal with the wire's rate-limit reset header saying the limit resets {@code ms} from now. */
        public Status withResetAfterMs(long ms) {
            return new Status(status, retryAfterSeconds, retryAfterMs, ms);
        }
    }

    /**
     * A normal answer (billed as usual) whose streamed form sends its text in exactly {@code pieces} content pieces,
     * {@code intervalMs} apart: status, headers and the events before the first piece at once, the first piece right
     * after them, the events after the last piece at once. Not streamed, the whole answer comes after
     * {@code pieces * intervalMs}, or at once with {@code streamedOnly} (a plan that paces only what streams). An
     * answer shorter than {@code pieces} characters is lengthened as {@link LargeAnswer} does, so no piece is empty
     * where the answer has room for it.
     */
    record Paced(int pieces, long intervalMs, boolean streamedOnly) implements Behaviour {
        static final int MAX_PIECES = 100_000;
        static final long MAX_INTERVAL_MS = 3_600_000;

        public Paced {
            requireWithin(pieces, 1, MAX_PIECES, "pieces");
            requireWithin(intervalMs, 0, MAX_INTERVAL_MS, "interval_ms");
        }

        /** Paced whether streamed or not. */
        public Paced(int pieces, long intervalMs) {
            this(pieces, intervalMs, false);
        }
    }

    /**
     * A valid answer (billed as usual) of about {@code sizeBytes}: with a schema, the conforming answer with its first
     * free-text string (no {@code enum}, {@code const}, {@code pattern}, {@code format}, and a {@code maxLength} that
     * allows it) padded with ASCII prose until its compact JSON has {@code sizeBytes} UTF-8 bytes; without one, prose
     * of {@code sizeBytes}. See {@link AnswerPadding}.
     */
    record LargeAnswer(int sizeBytes) implements Behaviour {
        public LargeAnswer {
            requireSize(sizeBytes);
        }
    }

    /** 200, but the answer is a truncated (so invalid) JSON text. */
    record MalformedJson() implements Behaviour {
    }

    /** A valid answer plus an invented top-level key. */
    record InventKey(String key) implements Behaviour {
        public InventKey {
            Objects.requireNonNull(key, "key");
        }
    }

    /**
     * A valid answer minus {@code field} ({@code null} = the schema's first required field), on every
     * {@code everyNth}-th request this behaviour is applied to (1 = every request).
     */
    record DropField(String field, int everyNth) implements Behaviour {
        public DropField {
            if (everyNth < 1) {
                throw new IllegalArgumentException("every_nth must be >= 1, was " + everyNth);
            }
        }
    }

    /** Prose instead of the requested JSON. */
    record IgnoreFormat() implements Behaviour {
    }

    /** Free-text string values echo the user prompt with every non-ASCII character replaced by '?'. */
    record MangleNonAscii() implements Behaviour {
    }

    /**
     * A valid answer made unstorable the way {@code flavour} says: {@code nul} puts a U+0000 into the first free-text
     * string, {@code lone_surrogate} an unpaired surrogate (U+D800, sent as the JSON escape {@code \\ud800}),
     * {@code oversize} pads that string to {@code sizeBytes}. What a prompt can steer a model into.
     */
    record PoisonAnswer(String flavour, int sizeBytes) implements Behaviour {
        public static final List<String> FLAVOURS = List.of("nul", "lone_surrogate", "oversize");

        public PoisonAnswer {
            if (!FLAVOURS.contains(flavour)) {
                throw new IllegalArgumentException("flavour must be one of " + FLAVOURS + ", was '" + flavour + "'");
            }
            requireSize(sizeBytes);
        }
    }

    /**
     * A full success whose connection is dropped part-way through the answer, as when a provider's front end dies
     * mid-answer. A streamed answer stops after {@code afterEvents} events ({@code null} = half of them, rounded down),
     * never reaching its last event ({@code [DONE]} / {@code message_stop}) nor the end of the chunked body; a
     * non-streamed one stops after half its body's bytes (fewer than its {@code Content-Length}). Billed like the full
     * answer: the provider generated it all.
     */
    record FailMidStream(Integer afterEvents) implements Behaviour {
        public FailMidStream {
            requireNotNegativeIfGiven(afterEvents, "after_events");
        }

        /** How many of a stream's {@code total} events are sent before the cut: always fewer than all. */
        int eventsBeforeCut(int total) {
            return Math.max(0, Math.min(afterEvents == null ? total / 2 : afterEvents, total - 1));
        }
    }

    /** Reads the request, then closes the connection without any response. */
    record Reset() implements Behaviour {
    }

    static Behaviour answer() {
        return new Answer(0);
    }

    static Behaviour answerAfter(Duration delay) {
        return new Answer(delay.toMillis());
    }

    static Behaviour lognormal(Duration median, Duration p99) {
        return new Lognormal(median.toMillis(), p99.toMillis());
    }

    static Behaviour hangForever() {
        return new Hang(null);
    }

    static Behaviour hangThenAnswer(Duration answerAfter) {
        return new Hang(answerAfter.toMillis());
    }

    static Status status(int status) {
        return new Status(status, null);
    }

    static Status status(int status, int retryAfterSeconds) {
        return new Status(status, retryAfterSeconds);
    }

    static Behaviour paced(int pieces, Duration interval) {
        return new Paced(pieces, interval.toMillis());
    }

    static Behaviour largeAnswer(int sizeBytes) {
        return new LargeAnswer(sizeBytes);
    }

    static Behaviour malformedJson() {
        return new MalformedJson();
    }

    static Behaviour inventKey(String key) {
        return new InventKey(key);
    }

    static Behaviour dropField(String field, int everyNth) {
        return new DropField(field, everyNth);
    }

    static Behaviour ignoreFormat() {
        return new IgnoreFormat();
    }

    static Behaviour mangleNonAscii() {
        return new MangleNonAscii();
    }

    static Behaviour poisonAnswer(String flavour) {
        return new PoisonAnswer(flavour, 2 * 1024 * 1024);
    }

    static Behaviour failMidStream() {
        return new FailMidStream(null);
    }

    static Behaviour failMidStream(int afterEvents) {
        return new FailMidStream(afterEvents);
    }

    static Behaviour reset() {
        return new Reset();
    }

    private static void requireSize(int sizeBytes) {
        requireWithin(sizeBytes, 1, 64 * 1024 * 1024, "size_bytes");
    }

    private static void requireWithin(long value, long min, long max, String name) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + " must be " + min + ".." + max + ", was " + value);
        }
    }

    private static void requireNotNegative(long value, String name) {
        if (value < 0) {
            throw new IllegalArgumentException(name + " must be >= 0, was " + value);
        }
    }

    /** An optional value ({@code null}: not given) that must not be negative when given. */
    private static void requireNotNegativeIfGiven(Number value, String name) {
        if (value != null) {
            requireNotNegative(value.longValue(), name);
        }
    }
}
