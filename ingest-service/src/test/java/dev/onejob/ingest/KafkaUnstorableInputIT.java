package dev.onejob.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.db.Database;
import dev.onejob.core.ledger.Ledger;
import dev.onejob.testing.TestDatabase;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Job requests whose strings PostgreSQL cannot store as sent (U+0000 in the variables or the owner id, an unpaired
 * surrogate) are answered INVALID like any other bad request, and the consumer goes on. Until f5de4e8 the first
 * such record killed the consumer thread before it committed, so it stopped every instance that took the
 * partition; this test therefore runs on a broker of its own ({@link IsolatedIngest}).
 */
class KafkaUnstorableInputIT {
    private static final Ledger LEDGER = new Ledger(Database.wrap(TestDatabase.shared().dataSource()));
    private static IsolatedIngest ingest;

    @BeforeAll
    static void start() throws IOException {
        ingest = new IsolatedIngest();
    }

    @AfterAll
    static void stop() {
        ingest.close();
    }

    @Test
    void unstorableTextIsAnsweredInvalidAndTheConsumerGoesOn() {
        // given U+0000 in the text, U+0000 in the owner id, an unpaired surrogate, then a valid request
        String run = "unstorable-" + UUID.randomUUID();
        List<String> keys = List.of(run + "-nul-text", run + "-nul-owner", run + "-surrogate", run + "-valid");
        ingest.publish(List.of(
                new JobRequestPublisher.Hostile(keys.get(0), "alice", JobRequestPublisher.envelope("alice",
                        keys.get(0), IngestFixture.request("a\\u0000b")), 0, false),
                new JobRequestPublisher.Hostile(keys.get(1), "al\u0000ice", JobRequestPublisher.envelope(
                        "al\\u0000ice", keys.get(1), IngestFixture.request("x")), 0, true),
                new JobRequestPublisher.Hostile(keys.get(2), "alice", JobRequestPublisher.envelope("alice",
                        keys.get(2), IngestFixture.request("a\\ud800b")), 0, false),
                new JobRequestPublisher.Hostile(keys.get(3), "alice", JobRequestPublisher.envelope("alice",
                        keys.get(3), IngestFixture.request("after the poison")), 0, false)));

        // when the isolated ingest service has answered them
        Map<String, List<String>> outcomes = ingest.outcomes(run, keys.size(), Duration.ofSeconds(30));

        // then one answer each: INVALID for the three, CREATED for the valid one; no job for the three
        Map<String, List<String>> expected = new TreeMap<>();
        keys.forEach(key -> expected.put(key, List.of(key.endsWith("-valid") ? "CREATED" : "INVALID")));
        assertEquals(expected, outcomes);
        assertEquals(1, ingest.deadLetters(keys.get(1), Duration.ofSeconds(10)).size(), "the unreadable owner");
        for (String key : keys.subList(0, 3)) {
            assertTrue(LEDGER.lookups().jobForKey("alice", key).isEmpty(), key);
        }
        assertTrue(LEDGER.lookups().jobForKey("alice", keys.get(3)).isPresent());
    }
}
