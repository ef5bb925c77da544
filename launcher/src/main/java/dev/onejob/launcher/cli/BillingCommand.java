package dev.onejob.launcher.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.billing.BillingReconciliation;
import dev.onejob.core.billing.BillingReconciliation.LedgerAttempt;
import dev.onejob.core.billing.BillingReconciliation.Match;
import dev.onejob.core.billing.BillingReconciliation.Report;
import dev.onejob.core.billing.ProviderCharge;
import dev.onejob.core.db.DatabaseException;
import dev.onejob.core.json.Json;
import dev.onejob.core.ledger.BillingStore;
import java.io.BufferedReader;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code billing reconcile}: a provider's usage export against the ledger. Consumes the export file and the database
 * (read-only); prints calls billed without an attempt, attempts billed more than once, cost mismatches and the totals
 * of both sides ({@link BillingReconciliation}). Exits 0 when the two agree, 1 when they do not.
 */
@Command(name = "billing", mixinStandardHelpOptions = true, description = "Check what providers billed.")
public record BillingCommand(CliContext context) {
    private static final int SHOWN = 20;

    @Command(name = "reconcile", mixinStandardHelpOptions = true,
            description = {"Compares a provider's usage export (one JSON object per billed request: request_id,"
                    + " idempotency_key, model, input_tokens, output_tokens, cached_input_tokens, cost_usd, billed_at;"
                    + " see docs/money.md) with the ledger's attempts on that provider. Reports calls billed without"
                    + " an attempt, attempts billed more than once, cost mismatches, and the totals.",
                "Exit status 0 when the bill and the ledger agree, 1 when they do not.",
                "Reads the database directly, read-only (DATABASE_URL, DATABASE_USER, DATABASE_PASSWORD;"
                        + " default: the running ./onejob dev's)."})
    int reconcile(@Option(names = "--provider", required = true, description = "The provider id (providers.yaml).")
                  String provider,
                  @Option(names = "--usage", required = true, description = "The provider's usage export (JSON lines).")
                  Path usage,
                  @Option(names = "--from", description = "First UTC day of ledger attempts to compare (default: the"
                          + " export's first billed day).") LocalDate from,
                  @Option(names = "--to", description = "Last UTC day, exclusive (default: the day after the export's"
                          + " last).") LocalDate to,
                  @Option(names = "--json", description = "Print the report as JSON.") boolean json) {
        List<ProviderCharge> charges = charges(usage);
        LocalDate first = from != null ? from : charges.stream().filter(c -> c.billedAt() != null)
                .map(c -> LocalDate.ofInstant(c.billedAt(), ZoneOffset.UTC)).min(LocalDate::compareTo)
                .orElse(LocalDate.now(ZoneOffset.UTC));
        LocalDate last = to != null ? to : charges.stream().filter(c -> c.billedAt() != null)
                .map(c -> LocalDate.ofInstant(c.billedAt(), ZoneOffset.UTC)).max(LocalDate::compareTo)
                .orElse(first).plusDays(1);
        if (!first.isBefore(last)) {
            throw CliFailure.usage("--from (" + first + ") must be before --to (" + last + "); --to is exclusive");
        }
        ReadOnlyDatabase database = ReadOnlyDatabase.fromEnv(context);
        List<LedgerAttempt> attempts;
        try {
            attempts = new BillingStore(database.database()).billedAttempts(provider, first, last).stream()
                    .map(a -> new LedgerAttempt(a.attemptId(), a.jobId(), a.providerRequestId(), a.usage(),
                            a.costUsd())).toList();
        } catch (DatabaseException e) {
            throw database.failure(e);
        }
        Report report = BillingReconciliation.reconcile(charges, attempts);
        if (json) {
            context.out().println(Json.write(toJson(provider, first, last, report)));
        } else {
            print(provider, first, last, report);
        }
        return report.agrees() ? ExitCode.OK : ExitCode.REFUSED;
    }

    private static List<ProviderCharge> charges(Path usage) {
        try (BufferedReader reader = Files.newBufferedReader(usage, StandardCharsets.UTF_8)) {
            return ProviderCharge.read(reader);
        } catch (IOException e) {
            throw CliFailure.usage("cannot read " + usage + ": " + e.getMessage());
        } catch (IllegalArgumentException e) {
            throw CliFailure.usage(usage + " is not a usage export: " + e.getMessage());
        }
    }

    private void print(String provider, LocalDate from, LocalDate to, Report report) {
        var out = context.out();
        out.println("billing " + provider + " " + from + " .. " + to + " (exclusive): " + report.charges()
                + " charge(s) in the export, " + report.attempts() + " attempt(s) in the ledger");
        Table totals = new Table("", "provider", "ledger", "difference");
        totals.row("cost (USD)", plain(report.providerTotal()), plain(report.ledgerTotal()),
                plain(report.difference()));
        out.print(totals.render());
        out.println(report.agrees() ? "agrees: every charge is one attempt, at the cost the ledger recorded"
                : "DOES NOT AGREE");
        section("billed without an attempt", report.billedWithoutAttempt().size());
        for (ProviderCharge charge : report.billedWithoutAttempt().stream().limit(SHOWN).toList()) {
            out.println("  line " + charge.line() + ": request " + charge.requestId() + ", key "
                    + charge.idempotencyKey() + ", " + plain(charge.costUsd()) + " USD");
        }
        section("attempts billed more than once", report.billedMoreThanOnce().size());
        for (Match match : report.billedMoreThanOnce().stream().limit(SHOWN).toList()) {
            out.println("  attempt " + match.attempt().attemptId() + " (job " + match.attempt().jobId() + "): "
                    + match.charges().size() + " charges, " + plain(match.charged()) + " USD");
        }
        section("cost mismatches", report.costMismatches().size());
        for (Match match : report.costMismatches().stream().limit(SHOWN).toList()) {
            ProviderCharge charge = match.charges().get(0);
            out.println("  attempt " + match.attempt().attemptId() + ": ledger " + match.attempt().usage() + " "
                    + plain(match.attempt().costUsd()) + " USD, provider " + charge.usage() + " "
                    + plain(charge.costUsd()) + " USD");
        }
        section("recorded by onejob, not charged", report.recordedButNotCharged().size());
        if (!report.certificationCalls().isEmpty()) {
            out.println("note: " + report.certificationCalls().size() + " charge(s) are onejob's certification calls"
                    + " (billed, no attempt's), " + plain(report.certificationCalls().stream()
                    .map(ProviderCharge::costUsd).reduce(BigDecimal.ZERO, BigDecimal::add)) + " USD");
        }
        if (!report.chargedButUnrecorded().isEmpty()) {
            out.println("note: " + report.chargedButUnrecorded().size() + " attempt(s) were charged but onejob never"
                    + " learnt their usage (their call timed out or its answer was lost); their charges are in the"
                    + " provider's total only");
        }
    }

    private void section(String title, int count) {
        if (count > 0) {
            context.out().println(title + ": " + count + (count > SHOWN ? " (first " + SHOWN + " shown)" : ""));
        }
    }

    private static String plain(BigDecimal value) {
        return value == null ? "-" : value.stripTrailingZeros().toPlainString();
    }

    private static ObjectNode toJson(String provider, LocalDate from, LocalDate to, Report report) {
        ObjectNode body = Json.object();
        body.put("provider", provider).put("from", from.toString()).put("to", to.toString())
                .put("agrees", report.agrees()).put("charges", report.charges()).put("attempts", report.attempts())
                .put("provider_total_usd", plain(report.providerTotal()))
                .put("ledger_total_usd", plain(report.ledgerTotal())).put("difference_usd", plain(report.difference()));
        body.put("certification_calls", report.certificationCalls().size());
        ArrayNode unexplained = body.putArray("billed_without_attempt");
        report.billedWithoutAttempt().forEach(c -> unexplained.addObject().put("line", c.line())
                .put("request_id", c.requestId()).put("idempotency_key", c.idempotencyKey())
                .put("cost_usd", plain(c.costUsd())));
        matches(body.putArray("billed_more_than_once"), report.billedMoreThanOnce());
        matches(body.putArray("cost_mismatches"), report.costMismatches());
        matches(body.putArray("charged_but_unrecorded"), report.chargedButUnrecorded());
        ArrayNode uncharged = body.putArray("recorded_but_not_charged");
        report.recordedButNotCharged().forEach(a -> uncharged.addObject().put("attempt_id", a.attemptId().toString())
                .put("cost_usd", plain(a.costUsd())));
        return body;
    }

    private static void matches(ArrayNode list, List<Match> matches) {
        for (Match match : matches) {
            list.addObject().put("attempt_id", match.attempt().attemptId().toString())
                    .put("job_id", match.attempt().jobId().toString()).put("charges", match.charges().size())
                    .put("charged_usd", plain(match.charged()))
                    .put("ledger_cost_usd", plain(match.attempt().costUsd()));
        }
    }
}
