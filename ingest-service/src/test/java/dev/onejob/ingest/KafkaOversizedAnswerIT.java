package dev.onejob.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A job request whose answer would echo more than {@code job-request-outcomes} takes (the broker's default 1 MiB;
 * {@code job-requests} takes 4 MiB) used to be never answered: the broker refused the answer and the consumer
 * retried the poll forever, stalling its partitions and dead-lettering the record again on every retry. Answers now
 * cut what they echo; these tests pin that each such record gets one answer and one dead letter and the requests
 * behind it go on. Each test runs on a broker of its own ({@link IsolatedIngest}) so a stall could not reach the
 * shared fixture.
 */
class KafkaOversizedAnswerIT {
    private IsolatedIngest ingest;

    @BeforeEach
    void start() throws IOException {
        ingest = new IsolatedIngest();
    }

    @AfterEach
    void stop() {
        ingest.close();
    }

    @Test
    void anIdempotencyKeyTooLargeToEchoIsAnsweredOnceAndTheConsumerGoesOn() {
        // given a 1.2 MB idempotency key (the answer and the dead letter echo it), then a valid request
        String run = "echo-key-" + UUID.randomUUID();
        ingest.publish(List.of(
                new JobRequestPublisher.Hostile(run + "-huge-key", "alice", JobRequestPublisher.envelope("alice",
                        "k".repeat(1_200_000), IngestFixture.request("x")), 0, true),
                new JobRequestPublisher.Hostile(run + "-valid", "alice", JobRequestPublisher.envelope("alice",
                        run + "-valid", IngestFixture.request("after")), 0, false)));

        // then it is answered INVALID once and dead-lettered once, and the valid request behind it is CREATED
        assertAnsweredInvalidThenCreated(run, run + "-huge-key");
        assertEquals(1, ingest.deadLetters(run + "-huge-key", Duration.ofSeconds(5)).size(),
                "one dead letter, not one per retry");
    }

    @Test
    void unknownFieldNamesTooLargeToEchoAreAnsweredOnceAndTheConsumerGoesOn() {
        // given a request with 30 unknown fields of 40 000-character names (each is echoed twice in the answer)
        String run = "echo-fields-" + UUID.randomUUID();
        StringBuilder fields = new StringBuilder();
        for (int i = 0; i < 30; i++) {
            fields.append('"').append(i).append("f".repeat(40_000)).append("\":1,");
        }
        ingest.publish(List.of(
                new JobRequestPublisher.Hostile(run + "-fields", "alice", JobRequestPublisher.envelope("alice",
                        run + "-fields", IngestFixture.request("x").replaceFirst("\\{", "{" + fields)), 0, false),
                new JobRequestPublisher.Hostile(run + "-valid", "alice", JobRequestPublisher.envelope("alice",
                        run + "-valid", IngestFixture.request("after")), 0, false)));

        // then it is answered INVALID once, and the valid request behind it is CREATED
        assertAnsweredInvalidThenCreated(run, run + "-fields");
    }

    private void assertAnsweredInvalidThenCreated(String run, String hostile) {
        Map<String, List<String>> outcomes = ingest.outcomes(run, 2, Duration.ofSeconds(20));
        assertEquals(Map.of(hostile, List.of("INVALID"), run + "-valid", List.of("CREATED")), outcomes,
                "the consumer answered " + outcomes.size() + " of 2 requests (it rewinds and retries the poll "
                        + "whose answer the broker refuses, forever)");
    }
}
