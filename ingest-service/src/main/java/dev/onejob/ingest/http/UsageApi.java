package dev.onejob.ingest.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.http.HttpCall;
import dev.onejob.core.json.Json;
import dev.onejob.core.ledger.BillingStore;
import dev.onejob.core.ledger.BillingStore.GroupBy;
import dev.onejob.ingest.Principal;
import java.io.IOException;
import java.time.Clock;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /v1/usage?from=&to=&group_by=}: what providers billed, from the ledger's daily roll-up (so its cost does
 * not grow with the ledger). Owners see their own usage; operators see every owner's and may name one with
 * {@code owner}. Days are UTC, {@code from} inclusive and {@code to} exclusive (default: the last 30 days, today
 * included). {@code group_by} is a comma-separated list of {@code owner}, {@code provider}, {@code model} and
 * {@code day}; without it the answer is one total.
 */
final class UsageApi {
    /** The longest span one report may sum: a year and a day, so a whole year always fits. */
    static final int MAX_DAYS = 367;
    private static final int DEFAULT_DAYS = 30;

    private final BillingStore billing;
    private final Clock clock;

    UsageApi(BillingStore billing, Clock clock) {
        this.billing = billing;
        this.clock = clock;
    }

    void usage(HttpCall exchange, Principal caller) throws IOException {
        Map<String, String> query = Exchanges.query(exchange);
        QueryParameters.allowOnly(query, "from", "to", "group_by", "owner");
        LocalDate to = day(query, "to", LocalDate.now(clock.withZone(ZoneOffset.UTC)).plusDays(1));
        LocalDate from = day(query, "from", to.minusDays(DEFAULT_DAYS));
        if (!from.isBefore(to)) {
            throw QueryParameters.badRequest("'from' (" + from + ") must be before 'to' (" + to + "); 'to' is exclusive");
        }
        if (from.plusDays(MAX_DAYS).isBefore(to)) {
            throw QueryParameters.badRequest("a report spans at most " + MAX_DAYS + " days; ask for " + from + " to "
                    + from.plusDays(MAX_DAYS) + " and go on from there");
        }
        List<GroupBy> groupBy = groupBy(QueryParameters.blankToNull(query.get("group_by")));
        String owner = QueryParameters.owner(caller, query);
        List<BillingStore.UsageRow> rows = billing.usage(owner, from, to, groupBy);

        ObjectNode body = Json.object();
        body.put("from", from.toString());
        body.put("to", to.toString());
        if (owner == null) {
            body.putNull("owner");
        } else {
            body.put("owner", owner);
        }
        ArrayNode groups = body.putArray("group_by");
        groupBy.forEach(g -> groups.add(g.wireName()));
        ArrayNode list = body.putArray("rows");
        BillingStore.UsageRow total = billing.usage(owner, from, to, List.of()).get(0);
        for (BillingStore.UsageRow row : groupBy.isEmpty() ? List.<BillingStore.UsageRow>of() : rows) {
            ObjectNode item = sums(list.addObject(), row);
            row.group().forEach((g, value) -> item.put(g.wireName(), value));
        }
        sums(body.putObject("total"), total);
        body.put("currency", "USD");
        Exchanges.sendJson(exchange, 200, body);
    }

    private static ObjectNode sums(ObjectNode node, BillingStore.UsageRow row) {
        node.put("calls", row.calls());
        node.put("input_tokens", row.inputTokens());
        node.put("cached_input_tokens", row.cachedInputTokens());
        node.put("output_tokens", row.outputTokens());
        node.put("cost_usd", row.costUsd().stripTrailingZeros().toPlainString());
        node.put("unpriced_calls", row.unpricedCalls());
        return node;
    }

    private static LocalDate day(Map<String, String> query, String name, LocalDate fallback) {
        String text = QueryParameters.blankToNull(query.get(name));
        if (text == null) {
            return fallback;
        }
        try {
            return LocalDate.parse(text);
        } catch (DateTimeParseException e) {
            throw QueryParameters.badRequest("'" + name + "' must be a UTC day such as 2026-12-01");
        }
    }

    private static List<GroupBy> groupBy(String text) {
        List<GroupBy> groupBy = new ArrayList<>();
        if (text == null) {
            return groupBy;
        }
        for (String one : text.split(",")) {
            GroupBy g = Arrays.stream(GroupBy.values()).filter(v -> v.wireName().equals(one.strip()))
                    .findFirst().orElseThrow(() -> QueryParameters.badRequest("'group_by' takes owner, provider, model and"
                            + " day, comma-separated; not '" + one.strip() + "'"));
            if (groupBy.contains(g)) {
                throw QueryParameters.badRequest("'group_by' names " + g.wireName() + " twice");
            }
            groupBy.add(g);
        }
        return groupBy;
    }
}
