package dev.onejob.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.db.Database;
import dev.onejob.core.events.Headers;
import dev.onejob.core.ledger.Ledger;
import dev.onejob.testing.TestDatabase;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A request that passes every check of ingest but that PostgreSQL refuses for its data (here: a constraint an
 * operator added, as a trigger on this run's own database) fails the poll's batch insert; the consumer then submits
 * the poll's requests one by one, so only that request is dead-lettered, with PostgreSQL's reason, and every
 * neighbour in the same poll is created. Runs on a broker of its own ({@link IsolatedIngest}): if the fallback
 * failed, the record would stall its partition for every later test.
 */
class KafkaBatchRefusalIT {
    private static final String REFUSED_SUFFIX = "-refused-by-the-database";
    private static final Ledger LEDGER = new Ledger(Database.wrap(TestDatabase.shared().dataSource()));
    private static IsolatedIngest ingest;

    @BeforeAll
    static void start() throws IOException, SQLException {
        RefusedKeys.install("refuse_test_keys", REFUSED_SUFFIX);
        ingest = new IsolatedIngest();
    }

    @AfterAll
    static void stop() throws SQLException {
        if (ingest != null) {
            ingest.close();
        }
        RefusedKeys.remove("refuse_test_keys");
    }

    @Test
    void aRequestPostgresRefusesIsDeadLetteredAloneAndItsNeighboursAreCreated() {
        // given five valid requests on one partition, the third of which the database refuses
        String run = "batch-refusal-" + UUID.randomUUID();
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            keys.add(run + "-" + i + (i == 2 ? REFUSED_SUFFIX : ""));
        }
        ingest.publish(keys.stream().map(key -> new JobRequestPublisher.Hostile(key, "alice",
                JobRequestPublisher.envelope("alice", key, IngestFixture.request("neighbour " + key)), 0, false))
                .toList());

        // when the isolated ingest service has answered them
        Map<String, List<String>> outcomes = ingest.outcomes(run, keys.size(), Duration.ofSeconds(30));

        // then the refused one is INVALID and dead-lettered with PostgreSQL's reason; the others are created
        Map<String, List<String>> expected = new TreeMap<>();
        keys.forEach(key -> expected.put(key, List.of(key.endsWith(REFUSED_SUFFIX) ? "INVALID" : "CREATED")));
        assertEquals(expected, outcomes);
        List<ConsumerRecord<byte[], byte[]>> deadLetters = ingest.deadLetters(keys.get(2), Duration.ofSeconds(10));
        assertEquals(1, deadLetters.size());
        String reason = new String(deadLetters.get(0).headers().lastHeader(Headers.DLQ_REASON).value(),
                StandardCharsets.UTF_8);
        assertTrue(reason.contains("keys like this one are refused here"), reason);
        assertTrue(LEDGER.lookups().jobForKey("alice", keys.get(2)).isEmpty());
        for (String key : List.of(keys.get(0), keys.get(1), keys.get(3), keys.get(4))) {
            assertTrue(LEDGER.lookups().jobForKey("alice", key).isPresent(), key);
        }
    }
}
