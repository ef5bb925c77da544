package dev.onejob.simulator;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Objects;

/**
 * What the simulated provider charges for one model, in US dollars per million tokens.
 *
 * <p>Consumed by the request handler, which prices every billed answer with {@link #cost}; configured in
 * {@link SimulatorConfig#prices()}. Owns nothing: an immutable value.
 *
 * @param inputUsdPerMillion       price of an input token that was not read from the cache
 * @param outputUsdPerMillion      price of an output token
 * @param cachedInputUsdPerMillion price of an input token read from the cache
 */
public record Price(BigDecimal inputUsdPerMillion, BigDecimal outputUsdPerMillion,
                    BigDecimal cachedInputUsdPerMillion) {

    /** Costs are in US dollars with this many decimal places, rounded half up. */
    public static final int COST_SCALE = 10;
    /** What a model without a configured price costs: nothing (its tokens are still exported). */
    public static final Price FREE = new Price(BigDecimal.ZERO, BigDecimal.ZERO, BigDecimal.ZERO);

    private static final int PER_MILLION = 6;

    public Price {
        requireNotNegative(inputUsdPerMillion, "input price");
        requireNotNegative(outputUsdPerMillion, "output price");
        requireNotNegative(cachedInputUsdPerMillion, "cached input price");
    }

    /** From decimal texts such as {@code "0.15"}, so no price ever passes through a double. */
    public static Price perMillion(String input, String output, String cachedInput) {
        return new Price(new BigDecimal(input), new BigDecimal(output), new BigDecimal(cachedInput));
    }

    /**
     * {@code (input - cached) * input price + cached * cached price + output * output price}, each price per
     * million tokens, computed exactly and rounded once to {@link #COST_SCALE} places, half up.
     *
     * @param inputTokens       every input token, cached ones included
     * @param outputTokens      output tokens
     * @param cachedInputTokens the input tokens read from the cache, 0..inputTokens
     */
    public BigDecimal cost(long inputTokens, long outputTokens, long cachedInputTokens) {
        if (inputTokens < 0 || outputTokens < 0 || cachedInputTokens < 0 || cachedInputTokens > inputTokens) {
            throw new IllegalArgumentException("token counts must be >= 0 with cached <= input, were input="
                    + inputTokens + ", output=" + outputTokens + ", cached=" + cachedInputTokens);
        }
        BigDecimal perMillion = BigDecimal.valueOf(inputTokens - cachedInputTokens).multiply(inputUsdPerMillion)
                .add(BigDecimal.valueOf(cachedInputTokens).multiply(cachedInputUsdPerMillion))
                .add(BigDecimal.valueOf(outputTokens).multiply(outputUsdPerMillion));
        return perMillion.movePointLeft(PER_MILLION).setScale(COST_SCALE, RoundingMode.HALF_UP);
    }

    private static void requireNotNegative(BigDecimal price, String name) {
        Objects.requireNonNull(price, name);
        if (price.signum() < 0) {
            throw new IllegalArgumentException(name + " must be >= 0, was " + price);
        }
    }
}
