package dev.onejob.core.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.json.Json;
import dev.onejob.core.json.JsonSchemas;
import dev.onejob.core.outbox.OutboxStore;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Every event the ledger queues matches the JSON Schema published for its topic in the schema module. */
class EventSchemasIT {
    private static final JsonSchemas ATTEMPT_COMMAND = JsonSchemas.fromClasspath("events/attempt-command.v1.schema.json");
    private static final JsonSchemas JOB_RESULT = JsonSchemas.fromClasspath("events/job-result.v1.schema.json");
    private static final JsonSchemas RACE_AUDIT = JsonSchemas.fromClasspath("events/race-audit.v2.schema.json");
    private static final JsonNode RESULT = Json.parse("{\"sentiment\":\"positive\"}");

    private final LedgerFixture ledger = new LedgerFixture();

    private List<Map.Entry<String, JsonNode>> events(String topic, UUID jobId) {
        return ledger.database.inTransaction(connection -> OutboxStore.eventsFor(connection, topic, jobId.toString()));
    }

    @Test
    void commandsResultsAndAuditsMatchTheirSchemas() {
        // given a job that went through failover, a cancelled attempt, a win and a discarded late answer
        Attempt[] ab = ledger.cancelledThenFallback();
        ledger.store.completions().complete(ab[1].jobId(), ab[1].id(), RESULT, "req-b");
        ledger.store.completions().complete(ab[0].jobId(), ab[0].id(), RESULT, "req-a");
        Attempt failing = ledger.startedFirstAttempt("owner-b");
        ledger.store.failures().fail(failing.id(), new AttemptFailure("http_500", "boom", false), (job, p) -> false);

        // then every queued event validates
        List<Map.Entry<String, JsonNode>> commands = events("attempt-commands", ab[0].jobId());
        assertEquals(2, commands.size());
        commands.forEach(e -> assertEquals(List.of(), ATTEMPT_COMMAND.violations(e.getValue())));
        for (UUID jobId : List.of(ab[0].jobId(), failing.jobId())) {
            List<Map.Entry<String, JsonNode>> results = events("job-results", jobId);
            assertEquals(1, results.size());
            assertEquals(List.of(), JOB_RESULT.violations(results.get(0).getValue()));
        }
        List<Map.Entry<String, JsonNode>> audits = events("race-audit", ab[0].jobId());
        assertEquals(1, audits.size());
        assertEquals(List.of(), RACE_AUDIT.violations(audits.get(0).getValue()));
    }

    @Test
    void theSchemasRejectAnInventedField() {
        Attempt attempt = ledger.submitted("owner-a").firstAttempt();
        ObjectNode command = (ObjectNode) events("attempt-commands", attempt.jobId()).get(0).getValue().deepCopy();
        command.put("priority", "high");
        assertFalse(ATTEMPT_COMMAND.violations(command).isEmpty());
    }
}
