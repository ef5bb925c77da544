package dev.onejob.core.billing;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Objects;

/**
 * What a provider's model charges, in US dollars per million tokens: input, output, and input read from the prompt
 * cache. From the {@code prices} of a provider in {@code providers.yaml}. Costs are exact decimals (never doubles),
 * at {@link #SCALE} places: the same arithmetic as the provider simulator's bill, so a reconciliation compares equal
 * numbers.
 */
public record Prices(BigDecimal inputPerMillion, BigDecimal outputPerMillion, BigDecimal cachedInputPerMillion) {
    /** Decimal places of every cost onejob stores (the ledger's {@code numeric(20,10)}). */
    public static final int SCALE = 10;
    private static final BigDecimal MILLION = BigDecimal.valueOf(1_000_000);

    public Prices {
        Objects.requireNonNull(inputPerMillion, "input");
        Objects.requireNonNull(outputPerMillion, "output");
        Objects.requireNonNull(cachedInputPerMillion, "cached_input");
        if (inputPerMillion.signum() < 0 || outputPerMillion.signum() < 0 || cachedInputPerMillion.signum() < 0) {
            throw new IllegalArgumentException("prices must not be negative");
        }
    }

    /** The cost of {@code usage}: uncached input, cached input and output, each at its price. */
    public BigDecimal cost(Usage usage) {
        BigDecimal uncached = BigDecimal.valueOf(usage.inputTokens() - usage.cachedInputTokens());
        BigDecimal microDollars = uncached.multiply(inputPerMillion)
                .add(BigDecimal.valueOf(usage.cachedInputTokens()).multiply(cachedInputPerMillion))
                .add(BigDecimal.valueOf(usage.outputTokens()).multiply(outputPerMillion));
        return microDollars.divide(MILLION, SCALE, RoundingMode.HALF_UP);
    }

    /** The most a call can cost with at most {@code inputTokens} in and {@code outputTokens} out, none cached. */
    public BigDecimal bound(long inputTokens, long outputTokens) {
        return cost(new Usage(inputTokens, outputTokens, 0));
    }
}
