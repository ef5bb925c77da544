package dev.onejob.core.config;

import dev.onejob.core.billing.Prices;
import java.net.URI;
import java.time.Duration;

/**
 * One provider from the providers file. {@code apiKeyEnv} names the environment variable holding the key; the key
 * itself is read only where the call is made and never kept in config, logs or events. {@code prices} is what its
 * model charges, or {@code null} when the file names none (its calls' usage is recorded, their cost is not).
 *
 * <p>The deadlines of a call (docs/providers.md): {@code softTimeout} bounds the wait for an answer, and for a
 * streamed call the wait for its first piece and the silence between pieces: past it the attempt is reported
 * UNKNOWN, and the call goes on. {@code hardTimeout} is when the call is given up: an unstreamed call with no answer,
 * a streamed one silent that long. {@code maxDuration} bounds a streamed answer as a whole, however steadily it flows.
 * {@code retry} is how its definite refusals are retried on it ({@link RetryPolicy}); {@code maxAnswerBytes} is the
 * largest answer stored from it whatever the call asked for (a call's own {@code max_tokens} may allow more, up to
 * {@link #ANSWER_BYTES_LIMIT}).
 */
public record ProviderConfig(String id, ProviderProtocol protocol, URI baseUrl, String model, String apiKeyEnv,
                             String tokenizer, int contextWindow, Duration softTimeout, Duration hardTimeout,
                             Prices prices, Duration maxDuration, RetryPolicy retry, int maxAnswerBytes,
                             Cooldown cooldown, String maxTokensField) {
    /** The request field that bounds a call's output, unless the providers file names another. */
    public static final String MAX_TOKENS = "max_tokens";
    /** What OpenAI's reasoning models take instead of {@code max_tokens}, which they refuse. */
    public static final String MAX_COMPLETION_TOKENS = "max_completion_tokens";

    /** A streamed answer may flow for an hour by default: 200,000 tokens at 60 tokens a second take 56 minutes. */
    public static final Duration DEFAULT_MAX_DURATION = Duration.ofHours(1);
    /** The largest answer stored from a provider by default. */
    public static final int DEFAULT_MAX_ANSWER_BYTES = 8 * 1024 * 1024;
    /**
     * The largest answer onejob carries at all: what {@code attempt-completions} and {@code job-results} records hold
     * with their envelope inside the answer topics' {@code max.message.bytes}
     * ({@code KafkaConfig.MAX_ANSWER_RECORD_BYTES}).
     */
    public static final int ANSWER_BYTES_LIMIT = 12 * 1024 * 1024;

    public ProviderConfig {
        if (maxDuration.compareTo(hardTimeout) < 0) {
            throw new IllegalArgumentException("max_duration (" + maxDuration + ") must not be shorter than"
                    + " hard_timeout (" + hardTimeout + ")");
        }
        if (!MAX_TOKENS.equals(maxTokensField) && !MAX_COMPLETION_TOKENS.equals(maxTokensField)) {
            throw new IllegalArgumentException("max_tokens_field must be max_tokens or max_completion_tokens, was "
                    + maxTokensField);
        }
        if (maxAnswerBytes < 1 || maxAnswerBytes > ANSWER_BYTES_LIMIT) {
            throw new IllegalArgumentException("max_answer_bytes must be 1.." + ANSWER_BYTES_LIMIT + ", was "
                    + maxAnswerBytes);
        }
    }

    /** How many bytes of answer one token of {@code max_tokens} may take at most, escaped as JSON text. */
    public static final int BYTES_PER_TOKEN_BOUND = 16;

    /**
     * The largest answer stored from a call of this provider that allows {@code maxTokens} output tokens (null: the
     * call names no bound): {@code maxAnswerBytes}, or more when the call's tokens may take more, never past
     * {@link #ANSWER_BYTES_LIMIT}.
     */
    public int answerLimit(Integer maxTokens) {
        long fromCall = maxTokens == null ? 0 : (long) maxTokens * BYTES_PER_TOKEN_BOUND;
        return (int) Math.min(ANSWER_BYTES_LIMIT, Math.max(maxAnswerBytes, fromCall));
    }

    /** A provider that bounds a call's output with {@code max_tokens}. */
    public ProviderConfig(String id, ProviderProtocol protocol, URI baseUrl, String model, String apiKeyEnv,
                          String tokenizer, int contextWindow, Duration softTimeout, Duration hardTimeout,
                          Prices prices, Duration maxDuration, RetryPolicy retry, int maxAnswerBytes,
                          Cooldown cooldown) {
        this(id, protocol, baseUrl, model, apiKeyEnv, tokenizer, contextWindow, softTimeout, hardTimeout, prices,
                maxDuration, retry, maxAnswerBytes, cooldown, MAX_TOKENS);
    }

    /** A provider with the default whole-answer bound, retries and answer size. */
    public ProviderConfig(String id, ProviderProtocol protocol, URI baseUrl, String model, String apiKeyEnv,
                          String tokenizer, int contextWindow, Duration softTimeout, Duration hardTimeout,
                          Prices prices) {
        this(id, protocol, baseUrl, model, apiKeyEnv, tokenizer, contextWindow, softTimeout, hardTimeout, prices,
                hardTimeout.compareTo(DEFAULT_MAX_DURATION) > 0 ? hardTimeout : DEFAULT_MAX_DURATION,
                RetryPolicy.DEFAULT, DEFAULT_MAX_ANSWER_BYTES, Cooldown.DEFAULT);
    }

    /** A provider whose prices are not known. */
    public ProviderConfig(String id, ProviderProtocol protocol, URI baseUrl, String model, String apiKeyEnv,
                          String tokenizer, int contextWindow, Duration softTimeout, Duration hardTimeout) {
        this(id, protocol, baseUrl, model, apiKeyEnv, tokenizer, contextWindow, softTimeout, hardTimeout, null);
    }
}
