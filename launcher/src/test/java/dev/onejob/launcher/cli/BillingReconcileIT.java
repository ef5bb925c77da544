package dev.onejob.launcher.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.billing.Usage;
import dev.onejob.core.db.Database;
import dev.onejob.core.json.Json;
import dev.onejob.core.ledger.Attempt;
import dev.onejob.core.ledger.BilledCall;
import dev.onejob.core.ledger.BillingStore;
import dev.onejob.core.ledger.Ledger;
import dev.onejob.core.ledger.NewJob;
import dev.onejob.core.ledger.SubmitOutcome;
import dev.onejob.testing.TestDatabase;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code onejob billing reconcile} against real PostgreSQL: a bill that matches the ledger exits 0; an attempt billed
 * twice or a charge no attempt explains exits 1 and is named. The provider's name is this run's own, so attempts other
 * test classes left in the shared database are not on its bill.
 */
class BillingReconcileIT {
    private final Database database = Database.wrap(TestDatabase.shared().dataSource());
    private final Ledger ledger = new Ledger(database);
    private final BillingStore billing = new BillingStore(database);
    private final String provider = "bill-" + UUID.randomUUID().toString().substring(0, 8);

    @TempDir
    Path dir;

    private Attempt started() {
        NewJob job = new NewJob("billing-owner", "k-" + UUID.randomUUID(), Json.parse("{\"contract\":\"sentiment\","
                + "\"variables\":{\"text\":\"x\"},\"target\":\"" + provider + "\"}"), "sentiment", provider, List.of());
        Attempt attempt = ((SubmitOutcome.Created) ledger.submissions().submit(job)).firstAttempt();
        ledger.starts().start(attempt.id(), Duration.ofSeconds(30));
        return attempt;
    }

    private static String line(String key, String requestId, long in, long out, String cost) {
        return Json.write(Json.object().put("request_id", requestId).put("idempotency_key", key).put("model", "m")
                .put("input_tokens", in).put("output_tokens", out).put("cached_input_tokens", 0)
                .put("cost_usd", new BigDecimal(cost)).put("billed_at", Instant.now().toString())) + "\n";
    }

    private CliExitCodeTest.Run reconcile(String export, String... more) throws IOException {
        Path file = dir.resolve("usage-" + UUID.randomUUID() + ".jsonl");
        Files.writeString(file, export);
        TestDatabase db = TestDatabase.shared();
        String[] args = new String[4 + more.length + 2];
        System.arraycopy(new String[] {"billing", "reconcile", "--provider", provider, "--usage", file.toString()}, 0,
                args, 0, 6);
        System.arraycopy(more, 0, args, 6, more.length);
        return CliExitCodeTest.run(Map.of("DATABASE_URL", db.jdbcUrl(), "DATABASE_USER", db.user()), args);
    }

    @Test
    void aBillThatMatchesTheLedgerAgreesAndOneThatDoesNotIsNamed() throws IOException {
        // given three started attempts: two billed as onejob recorded them, one whose usage onejob never learnt
        Attempt a = started();
        Attempt b = started();
        Attempt timedOut = started();
        billing.recordAll(List.of(
                new BilledCall(a.id(), a.jobId(), provider, "m", new Usage(100, 10, 0), new BigDecimal("0.0002")),
                new BilledCall(b.id(), b.jobId(), provider, "m", new Usage(50, 5, 0), new BigDecimal("0.0001"))));
        String bill = line(a.id().toString(), "r-a", 100, 10, "0.0002") + line(b.id().toString(), "r-b", 50, 5, "0.0001")
                + line(timedOut.id().toString(), "r-t", 70, 7, "0.00014");

        // when the provider's bill is reconciled as it is, then with a double charge and a stranger added
        CliExitCodeTest.Run agreeing = reconcile(bill);
        CliExitCodeTest.Run disagreeing = reconcile(bill + line(a.id().toString(), "r-a2", 100, 10, "0.0002")
                + line(UUID.randomUUID().toString(), "r-x", 1, 1, "0.000001"), "--json");

        // then the first agrees (the timed-out call is a note) and the second names both findings with totals
        assertEquals(ExitCode.OK, agreeing.exit(), agreeing.out() + agreeing.err());
        assertTrue(agreeing.out().contains("agrees"), agreeing.out());
        assertTrue(agreeing.out().contains("never learnt"), agreeing.out());
        assertEquals(ExitCode.REFUSED, disagreeing.exit(), disagreeing.out() + disagreeing.err());
        JsonNode report = Json.parse(disagreeing.out());
        assertEquals(1, report.get("billed_more_than_once").size());
        assertEquals(a.id().toString(), report.get("billed_more_than_once").get(0).get("attempt_id").asText());
        assertEquals(1, report.get("billed_without_attempt").size());
        assertEquals("0.000641", report.get("provider_total_usd").asText());
        assertEquals("0.0003", report.get("ledger_total_usd").asText());
    }

    @Test
    void aFileThatIsNotAUsageExportIsAUsageError() throws IOException {
        CliExitCodeTest.Run run = reconcile("{\"request_id\": \"r\", \"cost_usd\": \"lots\"}\n");
        assertEquals(ExitCode.USAGE, run.exit());
        assertTrue(run.err().contains("line 1"), run.err());
    }
}
