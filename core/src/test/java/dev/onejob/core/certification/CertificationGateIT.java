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

import dev.onejob.core.config.Providers;
import dev.onejob.core.contract.Contract;
import dev.onejob.core.contract.Contracts;
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
}
