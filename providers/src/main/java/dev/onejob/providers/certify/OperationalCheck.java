package dev.onejob.providers.certify;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.certification.CertificationCheck;
import dev.onejob.core.billing.CallKeys;
import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.contract.Contract;
import dev.onejob.core.json.Json;
import dev.onejob.providers.CallOutcome;
import dev.onejob.providers.ProviderCall;
import dev.onejob.providers.ProviderClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code operational} check: the provider answers in time, and the worker classifies its failures as it must.
 *
 * <p>Consumes the {@link GoldenCall}s, a {@link ProviderClient} (lent) and the provider; produces one
 * {@link CertificationCheck}. Two parts:
 * <ul>
 *   <li>every golden call's final outcome (an answer or an HTTP error) arrived before the provider's
 *   {@code soft_timeout}; each latency is in the evidence;</li>
 *   <li>the "not sent" probe: one call, with this provider's protocol, headers, model and a golden input, to a copy
 *   of the provider whose base URL is a loopback port nothing listens on, must come back {@code Failed} with code
 *   {@code connection_refused} and {@code sent=false}. That proves the adapter's not-sent classification (the one
 *   that makes failover safe) on this protocol without asking the real provider to misbehave. The port is taken
 *   from the OS and closed just before the call; if something else grabs it in between, the probe fails
 *   (visibly, with the outcome it got) rather than passing by accident. A missing API key fails the probe too
 *   ({@code missing_api_key}), which is right: no call of this provider could be sent.</li>
 * </ul>
 */
final class OperationalCheck {
    static final String NAME = "operational";

    private OperationalCheck() {
    }

    static CertificationCheck check(ProviderClient client, ProviderConfig provider, Contract contract,
                                    List<GoldenCall> calls) {
        ObjectNode details = Json.object().put("soft_timeout_ms", provider.softTimeout().toMillis());
        ArrayNode latencies = details.putArray("latencies");
        List<String> failures = new ArrayList<>();
        long slowest = 0;
        for (GoldenCall call : calls) {
            long millis = call.outcome().latency().toMillis();
            slowest = Math.max(slowest, millis);
            latencies.addObject().put("input", GoldenCall.inputLabel(call.input())).put("repetition", call.repetition())
                    .put("latency_ms", millis).put("outcome", call.outcome().getClass().getSimpleName())
                    .put("within_soft_timeout", call.withinSoftTimeout());
            if (!call.withinSoftTimeout()) {
                failures.add(call.where() + " was not answered within soft_timeout "
                        + Text.duration(provider.softTimeout()) + " (" + millis + " ms)");
            }
        }
        ObjectNode probe = notSentProbe(client, provider, contract);
        details.set("not_sent_probe", probe);
        if (probe.has("problem")) {
            failures.add(probe.get("problem").asText());
        }
        if (failures.isEmpty()) {
            return CertificationCheck.of(NAME, true, calls.size() + " golden calls answered within soft_timeout "
                    + Text.duration(provider.softTimeout()) + " (slowest " + slowest + " ms); a call to a closed "
                    + "port is Failed connection_refused, sent=false", details);
        }
        return CertificationCheck.of(NAME, false, Text.shorten(failures.size() + " problem(s); first: "
                + failures.get(0)), details);
    }

    /** The probe's outcome as evidence, with a {@code problem} when it is not Failed connection_refused, not sent. */
    static ObjectNode notSentProbe(ProviderClient client, ProviderConfig provider, Contract contract) {
        URI closed = URI.create("http://127.0.0.1:" + closedLoopbackPort());
        ProviderConfig unreachable = new ProviderConfig(provider.id(), provider.protocol(), closed, provider.model(),
                provider.apiKeyEnv(), provider.tokenizer(), provider.contextWindow(), provider.softTimeout(),
                provider.hardTimeout());
        JsonNode variables = contract.golden().isEmpty() ? Json.object() : contract.golden().get(0).variables();
        ProviderCall call = client.call(unreachable, contract, variables, CallKeys.certification());
        CallOutcome outcome = GoldenCalls.awaitFinal(call, unreachable);
        ObjectNode evidence = Json.object().put("base_url", closed.toString())
                .put("outcome", outcome.getClass().getSimpleName());
        if (outcome instanceof CallOutcome.Failed failed) {
            evidence.put("code", failed.code()).put("sent", failed.sent()).put("message", failed.message());
            if ("connection_refused".equals(failed.code()) && !failed.sent()) {
                return evidence;
            }
        }
        return evidence.put("problem", "a call to a closed port came back " + describe(outcome)
                + ", not Failed connection_refused with sent=false");
    }

    private static String describe(CallOutcome outcome) {
        if (outcome instanceof CallOutcome.Failed failed) {
            return "Failed " + failed.code() + " (sent=" + failed.sent() + ")";
        }
        return outcome.getClass().getSimpleName();
    }

    /** A loopback port that was free a moment ago: bound by the OS's choice, then closed. */
    private static int closedLoopbackPort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot find a free loopback port for the not-sent probe", e);
        }
    }
}
