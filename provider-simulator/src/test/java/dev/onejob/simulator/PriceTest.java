package dev.onejob.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigDecimal;
import org.junit.jupiter.api.Test;

class PriceTest {

    @Test
    void cachedInputTokensArePricedAtTheCachedPriceAndTheRestAtTheInputPrice() {
        // given 1000 input tokens of which 400 cached, and 250 output tokens
        Price sonnet = Price.perMillion("3.00", "15.00", "0.30");

        // when
        BigDecimal cost = sonnet.cost(1000, 250, 400);

        // then 600 * 3 + 400 * 0.30 + 250 * 15 = 5670 per million
        assertEquals(new BigDecimal("0.0056700000"), cost);
    }

    @Test
    void theCostIsRoundedHalfUpToTenPlaces() {
        // given a price whose per-token cost has more than ten places
        Price price = Price.perMillion("0.00005", "0.00004", "0");

        // when
        BigDecimal up = price.cost(1, 0, 0);
        BigDecimal down = price.cost(0, 1, 0);

        // then 0.00000000005 rounds up, 0.00000000004 rounds down
        assertEquals(new BigDecimal("0.0000000001"), up);
        assertEquals(new BigDecimal("0.0000000000"), down);
    }

    @Test
    void negativePricesAndMoreCachedThanInputTokensAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> Price.perMillion("-1", "0", "0"));
        assertThrows(IllegalArgumentException.class, () -> Price.FREE.cost(10, 0, 11));
    }
}
