package dev.onejob.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.billing.Usage;
import dev.onejob.core.json.Json;
import dev.onejob.core.ledger.Attempt;
import dev.onejob.core.ledger.BilledCall;
import dev.onejob.core.ledger.BillingStore;
import java.math.BigDecimal;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /v1/usage} and a job's cost over real HTTP: owners see their own usage, operators everyone's, a lost
 * race's cost counts in its job, and a report that cannot be answered as asked is refused with the reason.
 */
class UsageApiIT {
    private final IngestFixture fixture = IngestFixture.shared();
    private final BillingStore billing = new BillingStore(fixture.database);

    private Attempt startedAttempt(String token) {
        HttpResponse<String> created = fixture.submit(token, "usage-" + UUID.randomUUID(),
                IngestFixture.request("usage"));
        assertEquals(201, created.statusCode(), created.body());
        UUID jobId = UUID.fromString(Json.parse(created.body()).get("id").asText());
        Attempt attempt = fixture.ledger.lookups().attempts(jobId).get(0);
        fixture.ledger.starts().start(attempt.id(), Duration.ofSeconds(30));
        return attempt;
    }

    private JsonNode usage(String token, String query) {
        HttpResponse<String> answer = fixture.send("GET", "/v1/usage" + query, token, Map.of(), null);
        assertEquals(200, answer.statusCode(), answer.body());
        return Json.parse(answer.body());
    }

    private static BigDecimal cost(JsonNode sums) {
        return new BigDecimal(sums.get("cost_usd").asText());
    }

    @Test
    void ownersSeeTheirOwnUsageAndOperatorsEveryones() {
        // given what alice and bob were billed before, and three more calls
        JsonNode aliceBefore = usage(IngestFixture.ALICE, "").get("total");
        JsonNode everyoneBefore = usage(IngestFixture.OPS, "?group_by=owner");
        Attempt a1 = startedAttempt(IngestFixture.ALICE);
        Attempt a2 = startedAttempt(IngestFixture.ALICE);
        Attempt b1 = startedAttempt(IngestFixture.BOB);
        billing.recordAll(List.of(
                new BilledCall(a1.id(), a1.jobId(), "primary", "gpt-4o-mini", new Usage(1000, 100, 0),
                        new BigDecimal("0.00021")),
                new BilledCall(a2.id(), a2.jobId(), "primary", "gpt-4o-mini", new Usage(2000, 200, 1000),
                        new BigDecimal("0.000345")),
                new BilledCall(b1.id(), b1.jobId(), "primary", "gpt-4o-mini", new Usage(500, 50, 0),
                        new BigDecimal("0.000105"))));

        // when alice asks, and an operator asks per owner and provider
        JsonNode alice = usage(IngestFixture.ALICE, "?group_by=provider,model");
        JsonNode everyone = usage(IngestFixture.OPS, "?group_by=owner");

        // then alice's total grew by her two calls only, and the operator sees bob's call under bob
        assertEquals("alice", alice.get("owner").asText());
        assertEquals(aliceBefore.get("calls").asLong() + 2, alice.get("total").get("calls").asLong());
        assertEquals(aliceBefore.get("input_tokens").asLong() + 3000, alice.get("total").get("input_tokens").asLong());
        assertEquals(0, cost(aliceBefore).add(new BigDecimal("0.000555")).compareTo(cost(alice.get("total"))));
        JsonNode row = alice.get("rows").get(0);
        assertEquals("primary", row.get("provider").asText());
        assertEquals("gpt-4o-mini", row.get("model").asText());
        assertEquals(0, cost(everyoneBefore.get("total")).add(new BigDecimal("0.00066"))
                .compareTo(cost(everyone.get("total"))));
        JsonNode bob = find(everyone.get("rows"), "owner", "bob");
        JsonNode bobBefore = find(everyoneBefore.get("rows"), "owner", "bob");
        assertEquals((bobBefore == null ? 0 : bobBefore.get("calls").asLong()) + 1, bob.get("calls").asLong());
    }

    @Test
    void aJobCostsWhatAllItsBilledAttemptsCost() {
        // given a job billed for one attempt
        Attempt a = startedAttempt(IngestFixture.ALICE);
        billing.recordAll(List.of(new BilledCall(a.id(), a.jobId(), "primary", "gpt-4o-mini",
                new Usage(10, 5, 0), new BigDecimal("0.0000045"))));

        // when its owner reads it
        HttpResponse<String> job = fixture.send("GET", "/v1/jobs/" + a.jobId(), IngestFixture.ALICE, Map.of(), null);

        // then the job and its attempt say what it cost
        JsonNode body = Json.parse(job.body());
        assertEquals("0.0000045", body.get("cost_usd").asText());
        assertEquals("0.0000045", body.get("attempts").get(0).get("cost_usd").asText());
        assertEquals(10, body.get("attempts").get(0).get("usage").get("input_tokens").asLong());
    }

    @Test
    void aReportThatCannotBeAnsweredAsAskedIsRefusedWithTheReason() {
        assertProblem(IngestFixture.ALICE, "?group_by=colour", 400, "group_by");
        assertProblem(IngestFixture.ALICE, "?group_by=day,day", 400, "twice");
        assertProblem(IngestFixture.ALICE, "?from=2026-02-01&to=2026-01-01", 400, "before");
        assertProblem(IngestFixture.ALICE, "?from=2020-01-01&to=2026-01-01", 400, "at most");
        assertProblem(IngestFixture.ALICE, "?from=yesterday", 400, "UTC day");
        assertProblem(IngestFixture.ALICE, "?owner=bob", 403, "operators");
        assertProblem(IngestFixture.ALICE, "?currency=EUR", 400, "currency");
    }

    private void assertProblem(String token, String query, int status, String says) {
        HttpResponse<String> answer = fixture.send("GET", "/v1/usage" + query, token, Map.of(), null);
        assertEquals(status, answer.statusCode(), answer.body());
        assertTrue(answer.headers().firstValue("Content-Type").orElse("").startsWith("application/problem+json"));
        assertTrue(answer.body().contains(says), answer.body());
    }

    private static JsonNode find(JsonNode rows, String field, String value) {
        for (JsonNode row : rows) {
            if (row.get(field).asText().equals(value)) {
                return row;
            }
        }
        return null;
    }
}
