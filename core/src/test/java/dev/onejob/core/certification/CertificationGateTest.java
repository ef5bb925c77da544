package dev.onejob.core.certification;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.onejob.core.config.Providers;
import dev.onejob.core.contract.Contracts;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The gate's pure parts: how it words a maximum age, and which maximum ages it accepts. */
class CertificationGateTest {

    @Test
    void maximumAgesReadAsWholeUnits() {
        // given / when / then
        assertEquals("7 days", CertificationGate.describe(Duration.ofDays(7)));
        assertEquals("1 day", CertificationGate.describe(Duration.ofDays(1)));
        assertEquals("36 hours", CertificationGate.describe(Duration.ofHours(36)));
        assertEquals("90 minutes", CertificationGate.describe(Duration.ofMinutes(90)));
        assertEquals("PT1.5S", CertificationGate.describe(Duration.ofMillis(1500)));
    }

    @Test
    void aZeroMaximumAgeIsRefused() {
        // given
        Contracts contracts = Contracts.load(CertificationFixture.CONTRACTS_DIR);
        Providers providers = Providers.of(List.of(CertificationFixture.provider("backup", "m")));
        // when
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> new CertificationGate(
                new CertificationStore(null), contracts, providers, Duration.ZERO, Clock.systemUTC()));
        // then
        assertEquals("the maximum age of a certification must be positive, was PT0S", refused.getMessage());
    }
}
