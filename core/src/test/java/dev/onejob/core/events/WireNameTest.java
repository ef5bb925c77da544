package dev.onejob.core.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.onejob.core.config.ProviderProtocol;
import dev.onejob.core.ledger.LossReason;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class WireNameTest {

    @Test
    void theWireNamesAreTheOnesInTheSchemaAndTheProvidersFile() {
        assertEquals(List.of("lost-cas", "attempt-cancelled", "attempt-failed", "job-cancelled"),
                Arrays.stream(LossReason.values()).map(WireName::wireName).toList());
        assertEquals(List.of("openai-chat", "anthropic-messages"),
                Arrays.stream(ProviderProtocol.values()).map(WireName::wireName).toList());
    }

    @Test
    void aWireNameFindsItsConstantAndNothingElseDoes() {
        assertEquals(Optional.of(ProviderProtocol.ANTHROPIC_MESSAGES),
                ProviderProtocol.fromWireName("anthropic-messages"));
        assertEquals(Optional.empty(), ProviderProtocol.fromWireName("ANTHROPIC_MESSAGES"));
        assertEquals(LossReason.JOB_CANCELLED, LossReason.fromWireName("job-cancelled"));
        assertThrows(IllegalArgumentException.class, () -> LossReason.fromWireName("job_cancelled"));
    }
}
