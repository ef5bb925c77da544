package dev.onejob.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.db.Database;
import dev.onejob.core.ledger.Ledger;
import dev.onejob.testing.TestDatabase;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code RATE_LIMIT_PER_OWNER} on Kafka, against a real broker: a backlog of one owner's records, read faster than the
 * owner's share, is paced (its partition read again once the bucket refills), never refused: every record becomes its
 * job, none is answered REJECTED, and the last answer comes no sooner than the rate allows. On a broker of its own
 * ({@link IsolatedIngest}), whose ingest service alone has the low rate.
 */
class KafkaPacingIT {
    private static final Ledger LEDGER = new Ledger(Database.wrap(TestDatabase.shared().dataSource()));
    private static IsolatedIngest ingest;

    @BeforeAll
    static void start() throws IOException {
        ingest = new IsolatedIngest(1);
    }

    @AfterAll
    static void stop() {
        if (ingest != null) {
            ingest.close();
        }
    }

    @Test
    void aBacklogOverTheOwnersShareIsPacedAndEveryRecordBecomesItsJob() {
        // given six valid requests of one owner on one partition, at 1 per second with bursts of 2
        String run = "paced-" + UUID.randomUUID();
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            keys.add(run + "-" + i);
        }
        long start = System.nanoTime();
        ingest.publish(keys.stream().map(key -> new JobRequestPublisher.Hostile(key, "alice",
                JobRequestPublisher.envelope("alice", key, IngestFixture.request("paced " + key)), 0, false))
                .toList());

        // when the isolated ingest service has answered them
        Map<String, List<String>> outcomes = ingest.outcomes(run, keys.size(), Duration.ofSeconds(60));
        double seconds = (System.nanoTime() - start) / 1e9;

        // then each was created once, none refused, and the four past the burst waited for the bucket
        Map<String, List<String>> expected = new TreeMap<>();
        keys.forEach(key -> expected.put(key, List.of("CREATED")));
        assertEquals(expected, outcomes);
        keys.forEach(key -> assertTrue(LEDGER.lookups().jobForKey("alice", key).isPresent(), key));
        assertTrue(seconds >= 3.0, "six records at 1 per second past a burst of 2 took " + seconds + " s");
    }
}
