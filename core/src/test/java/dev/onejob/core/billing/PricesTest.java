package dev.onejob.core.billing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigDecimal;
import org.junit.jupiter.api.Test;

class PricesTest {
    private static final Prices MINI = new Prices(new BigDecimal("0.15"), new BigDecimal("0.60"),
            new BigDecimal("0.075"));

    @Test
    void aCallCostsItsUncachedCachedAndOutputTokensEachAtItsPrice() {
        // 1000 in (400 of them cached), 200 out: 600 * 0.15 + 400 * 0.075 + 200 * 0.60 = 240 micro-dollars
        assertEquals(new BigDecimal("0.0002400000"), MINI.cost(new Usage(1000, 200, 400)));
    }

    @Test
    void costsAreExactDecimalsToTenPlaces() {
        // one input token of gpt-4o-mini: 0.15 micro-dollars, which no double holds exactly
        assertEquals(new BigDecimal("0.0000001500"), MINI.cost(new Usage(1, 0, 0)));
        assertEquals(new BigDecimal("0.0000000000"), MINI.cost(new Usage(0, 0, 0)));
    }

    @Test
    void usageNoProviderReportsIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new Usage(10, 0, 11));
        assertThrows(IllegalArgumentException.class, () -> new Usage(-1, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new Prices(new BigDecimal("-1"), BigDecimal.ONE,
                BigDecimal.ONE));
    }
}
