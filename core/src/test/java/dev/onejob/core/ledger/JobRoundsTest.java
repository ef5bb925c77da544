package dev.onejob.core.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class JobRoundsTest {
    @Test
    void eachRoundNamesAJobOnceAndAJobsItemsKeepTheirOrder() {
        UUID a = UUID.randomUUID();
        UUID b = UUID.randomUUID();
        UUID c = UUID.randomUUID();
        List<UUID> poll = List.of(a, b, a, c, a, b);

        assertEquals(List.of(List.of(0, 1, 3), List.of(2, 5), List.of(4)), JobRounds.of(poll, id -> id));
        assertEquals(List.of(), JobRounds.of(List.<UUID>of(), id -> id));
    }
}
