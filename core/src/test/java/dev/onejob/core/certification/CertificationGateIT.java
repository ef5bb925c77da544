package dev.onejob.core.certification;

import static dev.onejob.core.certification.CertificationFixture.MODEL;
import static dev.onejob.core.certification.CertificationFixture.freshProvider;
import static dev.onejob.core.certification.CertificationFixture.job;
import static dev.onejob.core.certification.CertificationFixture.provider;
import static dev.onejob.core.certification.CertificationFixture.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.config.Providers;
import dev.onejob.core.contract.Contract;
import dev.onejob.core.contract.Contracts;
import dev.onejob.core.contract.Passthrough;
import dev.onejob.core.json.Json;
import dev.onejob.core.ledger.Job;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link CertificationGate} over real certification rows: who failover may go to, and why not. */
class CertificationGateIT {
    private static final Duration WEEK = Duration.ofDays(7);

    private final CertificationFixture fixture = new CertificationFixture();
    private final Instant now = Instant.now();
    private final String backup = freshProvider();
    private final Providers providers = Providers.of(List.of(provider(backup, MODEL)));
    private final Job job = job("sentiment", backup);
    private final String label = "sentiment@" + fixture.sentiment.version().substring(0, 12);

    private CertificationGate gate(Contracts contracts, Instant at) {
        return new CertificationGate(fixture.store, contracts, providers, WEEK, Clock.fixed(at, ZoneOffset.UTC));
    }

    @Test
    void aYoungPassingCertificationAllowsFailover() {
        // given
        fixture.store.record(run(backup, MODEL, fixture.sentiment, true, now.minusSeconds(60)));
        CertificationGate gate = gate(fixture.contracts, now);
        // when
        boolean allowed = gate.mayFailOverTo(job, backup);
        // then
        assertTrue(allowed, () -> "refused: " + gate.whyNot(job, backup));
        assertEquals(Optional.empty(), gate.whyNot(job, backup));
    }

    @Test
    void noCertificationRefusesAndNamesTheContractVersion() {
        // given nothing recorded for backup
        CertificationGate gate = gate(fixture.contracts, now);
        // when
        Optional<String> why = gate.whyNot(job, backup);
        // then
        assertFalse(gate.mayFailOverTo(job, backup));
        assertEquals(Optional.of(backup + " has no passing certification for " + label), why);
    }

    @Test
    void aCertificationOlderThanTheMaximumAgeRefuses() {
        // given a pass, and a clock eight days later
        fixture.store.record(run(backup, MODEL, fixture.sentiment, true, now));
        CertificationGate weekLater = gate(fixture.contracts, now.plus(Duration.ofDays(8)));
        CertificationGate dayLater = gate(fixture.contracts, now.plus(Duration.ofDays(1)));
        // when
        Optional<String> why = weekLater.whyNot(job, backup);
        // then
        assertFalse(weekLater.mayFailOverTo(job, backup));
        assertTrue(why.orElseThrow().contains("is older than 7 days"), why::get);
        assertTrue(why.get().startsWith(backup + "'s certification for " + label), why::get);
        assertTrue(dayLater.mayFailOverTo(job, backup), "the same run is young enough a day later");
    }

    @Test
    void changingTheContractsTemplateVoidsTheCertification(@TempDir Path dir) {
        // given a pass for today's template, then the template changes
        fixture.store.record(run(backup, MODEL, fixture.sentiment, true, now.minusSeconds(60)));
        Contracts changed = CertificationFixture.withChangedTemplate(dir);
        Contract newVersion = changed.find("sentiment").orElseThrow();
        assertNotEquals(fixture.sentiment.version(), newVersion.version());
        CertificationGate gate = gate(changed, now);
        // when
        Optional<String> why = gate.whyNot(job, backup);
        // then
        assertFalse(gate.mayFailOverTo(job, backup));
        assertTrue(why.orElseThrow().startsWith(backup + " has no passing certification for sentiment@"
                + newVersion.version().substring(0, 12)), why::get);
        assertTrue(why.get().contains("certified for an older version of the contract (" + label + ")"), why::get);
    }

    @Test
    void aFailedLatestRunWithdrawsAnEarlierPass() {
        // given a pass an hour ago, then a failure
        fixture.store.record(run(backup, MODEL, fixture.sentiment, true, now.minusSeconds(3600)));
        fixture.store.record(run(backup, MODEL, fixture.sentiment, false, now.minusSeconds(60)));
        CertificationGate gate = gate(fixture.contracts, now);
        // when
        Optional<String> why = gate.whyNot(job, backup);
        // then
        assertFalse(gate.mayFailOverTo(job, backup));
        assertTrue(why.orElseThrow().startsWith(backup + " failed its latest certification for " + label), why::get);
        assertTrue(why.get().contains("failed checks: structure"), why::get);
    }

    @Test
    void aCertificationOfAnotherModelDoesNotCount() {
        // given a pass with the model the provider used before
        fixture.store.record(run(backup, "model-old", fixture.sentiment, true, now.minusSeconds(60)));
        CertificationGate gate = gate(fixture.contracts, now);
        // when
        Optional<String> why = gate.whyNot(job, backup);
        // then
        assertFalse(gate.mayFailOverTo(job, backup));
        assertTrue(why.orElseThrow().contains("with its configured model " + MODEL + ": its latest run was with model "
                + "model-old"), why::get);
    }

    @Test
    void aProviderMissingFromTheProvidersFileIsRefused() {
        // given
        CertificationGate gate = gate(fixture.contracts, now);
        // when
        Optional<String> why = gate.whyNot(job, "nobody");
        // then
        assertEquals(Optional.of("nobody is not in the providers file"), why);
    }

    @Test
    void aPassthroughCallWithToolsNeedsTheToolCallingCertification() {
        // given backup certified for passthrough, not (yet) for tool calling
        Contract passthrough = fixture.contracts.find(Passthrough.ID).orElseThrow();
        Contract tools = fixture.contracts.find(Passthrough.TOOLS_ID).orElseThrow();
        fixture.store.record(run(backup, MODEL, passthrough, true, now.minusSeconds(60)));
        CertificationGate gate = gate(fixture.contracts, now);
        Job plain = jobWith(Json.parse("{\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}"));
        Job withTools = jobWith(Json.parse("""
                {"messages":[{"role":"user","content":"Weather?"}],
                 "tools":[{"name":"get_weather","parameters":{"type":"object"}}]}"""));

        // then a call without tools may fail over there, one with tools may not, and the reason names the contract
        assertTrue(gate.mayFailOverTo(plain, backup), () -> gate.whyNot(plain, backup).orElse(""));
        Optional<String> why = gate.whyNot(withTools, backup);
        assertTrue(why.orElseThrow().startsWith(backup + " has no passing certification for passthrough-tools@"),
                why::get);

        // when backup passes the tool-calling certification, then it may
        fixture.store.record(run(backup, MODEL, tools, true, now.minusSeconds(30)));
        assertEquals(Optional.empty(), gate.whyNot(withTools, backup));
    }

    private Job jobWith(JsonNode variables) {
        Job job = job(Passthrough.ID, backup);
        ObjectNode request = Json.object().put("contract", Passthrough.ID);
        request.set("variables", variables);
        return new Job(job.id(), job.ownerId(), job.idempotencyKey(), job.requestFingerprint(), request,
                job.contract(), job.targetProvider(), job.fallbackProviders(), job.status(), job.version(),
                job.completedBy(), job.result(), job.errorCode(), job.errorMessage(), job.createdAt(),
                job.updatedAt(), job.finishedAt());
    }
}
