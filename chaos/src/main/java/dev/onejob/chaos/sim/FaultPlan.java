package dev.onejob.chaos.sim;

import dev.onejob.simulator.Behaviour;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.StringJoiner;
import java.util.UUID;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The seeded misbehaviour plan of one chaos simulator: which {@link Fault} each attempt meets.
 *
 * <p>Consumes an {@code Idempotency-Key} (the attempt id); produces the simulator {@link Behaviour} for it, as a
 * behaviour plan ({@code SimulatorConfig.withBehaviourPlan}). The choice is a pure function of (seed, key): a hash,
 * never a counter, so the same seed gives every attempt the same fault whatever order the requests arrive in, and
 * every retry of one attempt id meets the same fault. Keys that are not canonical UUIDs, and missing keys, always
 * get a plain answer. Owns nothing mutable: an immutable value, safe to share between handler threads.
 *
 * @param mix the share of attempts that meets each fault ({@link #fractions()} lists them by label)
 */
public record FaultPlan(long seed, Fractions mix, long lateAnswerMs, long answerDelayMs, long longStreamMs)
        implements Function<String, Behaviour> {

    /** What one attempt meets, in the order the hash's unit interval is cut into. */
    public enum Fault {
        /** Held past the soft timeout, then answered normally (a late answer). */
        LATE_ANSWER("late_answer"),
        /** Held until the simulator closes; the caller's hard timeout ends the call. */
        HANG_FOREVER("hang_forever"),
        /** HTTP 500 in the protocol's error shape. */
        SERVER_ERROR("status_500"),
        /** A 200 whose answer breaks the contract: an invented key or a dropped required field. */
        CONTRACT_VIOLATION("contract_violation"),
        /** A 200 whose answer keeps the contract but cannot be stored: a U+0000 or an unpaired surrogate in it. */
        POISON_ANSWER("poison_answer"),
        /**
         * HTTP 429 with {@code Retry-After: 1} (OpenAI's wire also {@code retry-after-ms}): a refusal that ran nothing,
         * which onejob retries on the same provider as a new attempt (with its own attempt id, so its own fault).
         */
        RATE_LIMITED("status_429"),
        /**
         * A streamed answer that flows for a long time ({@code longStreamMs}), a piece every
         * {@link #LONG_STREAM_INTERVAL_MS}: it must never be judged UNKNOWN while it flows. A request that does not
         * stream is answered normally.
         */
        LONG_STREAM("long_stream"),
        /** A normal answer after a small delay. */
        ANSWER("answer");

        private final String label;

        Fault(String label) {
            this.label = label;
        }

        /** The name used in {@link #describe()} and {@link #fractions()}. */
        public String label() {
            return label;
        }
    }

    /**
     * The share of attempts per fault; the rest get {@link Fault#ANSWER}.
     *
     * @throws IllegalArgumentException when a share is outside 0..1 or they add up to more than 1
     */
    public record Fractions(double lateAnswer, double hangForever, double serverError, double contractViolation,
                            double poisonAnswer, double rateLimited, double longStream) {
        /**
         * 5% late answers, 5% hangs, 3% HTTP 500, 2% contract violations, 2% poison answers, 4% HTTP 429, 10% long
         * streams (which only the streamed, passthrough, calls meet).
         */
        public static final Fractions DEFAULTS = new Fractions(0.05, 0.05, 0.03, 0.02, 0.02, 0.04, 0.10);
        /** No faults: every attempt is answered normally. */
        public static final Fractions NONE = new Fractions(0, 0, 0, 0, 0, 0, 0);

        public Fractions {
            for (double share : new double[] {lateAnswer, hangForever, serverError, contractViolation, poisonAnswer,
                    rateLimited, longStream}) {
                if (!(share >= 0 && share <= 1)) {
                    throw new IllegalArgumentException("a fault fraction must be within 0..1, was " + share);
                }
            }
            if (lateAnswer + hangForever + serverError + contractViolation + poisonAnswer + rateLimited + longStream
                    > 1 + 1e-9) {
                throw new IllegalArgumentException("fault fractions add up to more than 1: " + lateAnswer + " + "
                        + hangForever + " + " + serverError + " + " + contractViolation + " + " + poisonAnswer + " + "
                        + rateLimited + " + " + longStream);
            }
        }

        /** Without rate limits and long streams. */
        public Fractions(double lateAnswer, double hangForever, double serverError, double contractViolation,
                         double poisonAnswer) {
            this(lateAnswer, hangForever, serverError, contractViolation, poisonAnswer, 0, 0);
        }

        /** Without poison answers. */
        public Fractions(double lateAnswer, double hangForever, double serverError, double contractViolation) {
            this(lateAnswer, hangForever, serverError, contractViolation, 0);
        }

        double answer() {
            return Math.max(0, 1 - lateAnswer - hangForever - serverError - contractViolation - poisonAnswer
                    - rateLimited - longStream);
        }

        /** The share of attempts that meet {@code fault}. */
        double of(Fault fault) {
            return switch (fault) {
                case LATE_ANSWER -> lateAnswer;
                case HANG_FOREVER -> hangForever;
                case SERVER_ERROR -> serverError;
                case CONTRACT_VIOLATION -> contractViolation;
                case POISON_ANSWER -> poisonAnswer;
                case RATE_LIMITED -> rateLimited;
                case LONG_STREAM -> longStream;
                case ANSWER -> answer();
            };
        }
    }

    public static final long DEFAULT_LATE_ANSWER_MS = 6000;
    public static final long DEFAULT_ANSWER_DELAY_MS = 50;
    /** How long a long stream flows by default: a minute. */
    public static final long DEFAULT_LONG_STREAM_MS = 60_000;
    /** The gap between a long stream's pieces, well inside the run's soft timeout. */
    public static final long LONG_STREAM_INTERVAL_MS = 500;
    /** The key a contract-violating answer invents; no contract in this project declares it. */
    static final String INVENTED_KEY = "chaos_invented";
    /** Only the canonical 8-4-4-4-12 form: {@link UUID#fromString} alone also accepts shortened groups. */
    private static final Pattern CANONICAL_UUID =
            Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

    public FaultPlan(long seed, Fractions fractions, long lateAnswerMs, long answerDelayMs) {
        this(seed, fractions, lateAnswerMs, answerDelayMs, DEFAULT_LONG_STREAM_MS);
    }

    public FaultPlan {
        if (lateAnswerMs < 0 || answerDelayMs < 0 || longStreamMs < LONG_STREAM_INTERVAL_MS) {
            throw new IllegalArgumentException("delays must be >= 0 and a long stream at least "
                    + LONG_STREAM_INTERVAL_MS + " ms, were late_answer_ms=" + lateAnswerMs + " answer_delay_ms="
                    + answerDelayMs + " long_stream_ms=" + longStreamMs);
        }
        Objects.requireNonNull(mix, "fractions");
    }

    /** The default fractions and delays for {@code seed}. */
    public static FaultPlan withDefaults(long seed) {
        return new FaultPlan(seed, Fractions.DEFAULTS, DEFAULT_LATE_ANSWER_MS, DEFAULT_ANSWER_DELAY_MS);
    }

    public FaultPlan withFractions(Fractions newFractions) {
        return new FaultPlan(seed, newFractions, lateAnswerMs, answerDelayMs, longStreamMs);
    }

    public FaultPlan withLateAnswerMs(long ms) {
        return new FaultPlan(seed, mix, ms, answerDelayMs, longStreamMs);
    }

    public FaultPlan withAnswerDelayMs(long ms) {
        return new FaultPlan(seed, mix, lateAnswerMs, ms, longStreamMs);
    }

    public FaultPlan withLongStreamMs(long ms) {
        return new FaultPlan(seed, mix, lateAnswerMs, answerDelayMs, ms);
    }

    /** The fault {@code idempotencyKey} meets; {@link Fault#ANSWER} for null and non-UUID keys. */
    public Fault faultFor(String idempotencyKey) {
        if (idempotencyKey == null || !CANONICAL_UUID.matcher(idempotencyKey).matches()) {
            return Fault.ANSWER;
        }
        double point = unit(hash(UUID.fromString(idempotencyKey)));
        double bound = 0;
        for (Fault fault : Fault.values()) {
            bound += mix.of(fault);
            if (point < bound) {
                return fault;
            }
        }
        return Fault.ANSWER;
    }

    /** The simulator behaviour for {@code idempotencyKey}; never null, so the simulator's default rule is unused. */
    @Override
    public Behaviour apply(String idempotencyKey) {
        return switch (faultFor(idempotencyKey)) {
            case LATE_ANSWER -> Behaviour.hangThenAnswer(Duration.ofMillis(lateAnswerMs));
            case HANG_FOREVER -> Behaviour.hangForever();
            case SERVER_ERROR -> Behaviour.status(500);
            case CONTRACT_VIOLATION -> violation(UUID.fromString(idempotencyKey));
            case POISON_ANSWER -> Behaviour.poisonAnswer((hash(UUID.fromString(idempotencyKey)) & 1) == 0 ? "nul"
                    : "lone_surrogate");
            case RATE_LIMITED -> Behaviour.status(429, 1).withRetryAfterMs(1000);
            case LONG_STREAM -> new Behaviour.Paced((int) (longStreamMs / LONG_STREAM_INTERVAL_MS),
                    LONG_STREAM_INTERVAL_MS, true);
            case ANSWER -> Behaviour.answerAfter(Duration.ofMillis(answerDelayMs));
        };
    }

    /** Each fault's label and configured share, in {@link Fault} order; the shares add up to 1. */
    public Map<String, Double> fractions() {
        Map<String, Double> shares = new LinkedHashMap<>();
        for (Fault fault : Fault.values()) {
            shares.put(fault.label(), mix.of(fault));
        }
        return Collections.unmodifiableMap(shares);
    }

    /**
     * One whitespace-free token for log lines, e.g. {@code seed=42,late_answer=0.050/6000ms,hang_forever=0.050,
     * status_500=0.030,contract_violation=0.020,answer=0.850/50ms} (without the line break).
     */
    public String describe() {
        StringJoiner text = new StringJoiner(",");
        text.add("seed=" + seed);
        fractions().forEach((label, share) -> {
            String delay = label.equals(Fault.LATE_ANSWER.label()) ? "/" + lateAnswerMs + "ms"
                    : label.equals(Fault.ANSWER.label()) ? "/" + answerDelayMs + "ms"
                    : label.equals(Fault.LONG_STREAM.label()) ? "/" + longStreamMs + "ms" : "";
            text.add(label + "=" + String.format(Locale.ROOT, "%.3f", share) + delay);
        });
        return text.toString();
    }

    @Override
    public String toString() {
        return "FaultPlan[" + describe() + "]";
    }

    /** Alternates by a hash bit the unit point does not use, so both kinds occur in every share. */
    private Behaviour violation(UUID key) {
        return (hash(key) & 1) == 0 ? Behaviour.inventKey(INVENTED_KEY) : Behaviour.dropField(null, 1);
    }

    private long hash(UUID key) {
        return mix(mix(seed ^ key.getMostSignificantBits()) ^ key.getLeastSignificantBits());
    }

    /** The top 53 bits as a double in [0, 1). */
    private static double unit(long hash) {
        return (hash >>> 11) * 0x1.0p-53;
    }

    /** SplitMix64's finaliser: every input bit affects every output bit. */
    private static long mix(long value) {
        long z = value + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
