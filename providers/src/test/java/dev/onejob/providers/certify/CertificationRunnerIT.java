package dev.onejob.providers.certify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.onejob.core.certification.Certification;
import dev.onejob.core.certification.CertificationCheck;
import dev.onejob.core.certification.CertificationGate;
import dev.onejob.core.certification.CertificationStore;
import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.config.ProviderProtocol;
import dev.onejob.core.config.Providers;
import dev.onejob.core.contract.Passthrough;
import dev.onejob.core.json.CanonicalJson;
import dev.onejob.core.json.Json;
import dev.onejob.core.ledger.Job;
import dev.onejob.core.ledger.JobStatus;
import dev.onejob.simulator.Behaviour;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@link CertificationRunner} end to end: simulator, adapters, checks, the store, and the gate reading the result. */
class CertificationRunnerIT {
    private final CertifyFixture fixture = new CertifyFixture();
    private final CertificationStore store = CertifyFixture.store();

    @AfterEach
    void stop() {
        fixture.close();
    }

    private CertificationRunner runner(Providers providers) {
        return CertificationRunner.over(fixture.clients, store, providers, CertifyFixture.CONTRACTS);
    }

    @ParameterizedTest
    @EnumSource(ProviderProtocol.class)
    void aWellBehavedFallbackCertifiesAndFailoverMayGoToIt(ProviderProtocol protocol) {
        // given
        ProviderConfig backup = fixture.provider(protocol);
        Providers providers = Providers.of(List.of(backup));
        // when
        List<CertificationReport> reports = runner(providers).run(Optional.of(backup.id()), Optional.of("sentiment"));
        // then every check passed, the run is recorded, and the gate lets failover go to backup
        CertificationReport report = reports.get(0);
        assertEquals(1, reports.size());
        assertTrue(report.passed(), report::toText);
        assertEquals(9, fixture.sim.ledger().stream().filter(e -> !e.protocol().equals("anthropic-count-tokens"))
                .count(), "3 golden inputs x 3 repetitions, one call each");
        CertificationCheck operational = report.check("operational").orElseThrow();
        assertEquals("connection_refused", operational.evidence().get("not_sent_probe").get("code").asText());
        assertFalse(operational.evidence().get("not_sent_probe").get("sent").asBoolean());
        Certification stored = store.latest(backup.id(), "sentiment").orElseThrow();
        assertEquals(report.id(), stored.id());
        assertTrue(stored.passed());
        assertEquals(report.toText(), stored.report());
        assertEquals(List.of(report.startedAt(), report.finishedAt()),
                List.of(stored.startedAt(), stored.finishedAt()));
        assertEquals(canonical(report.checks()), canonical(stored.checks()));
        CertificationGate gate = new CertificationGate(store, CertifyFixture.CONTRACTS, providers);
        assertEquals(Optional.empty(), gate.whyNot(job(backup.id()), backup.id()));
    }

    @Test
    void runningEveryPairRecordsOneRunPerProviderAndContract() {
        // given two providers; the Anthropic one invents a key on every answer
        ProviderConfig openAi = fixture.provider(ProviderProtocol.OPENAI_CHAT);
        ProviderConfig anthropic = fixture.provider(ProviderProtocol.ANTHROPIC_MESSAGES);
        fixture.sim.setDefaultBehaviour(Behaviour.inventKey("confidence"));
        Providers providers = Providers.of(List.of(openAi, anthropic));
        // when
        List<CertificationReport> reports = runner(providers).run(Optional.empty(), Optional.empty());
        // then
        // (every contract: the sentiment file's and the built-in passthrough and tool calling)
        assertEquals(List.of(openAi.id() + " passthrough", openAi.id() + " passthrough-tools",
                        openAi.id() + " sentiment", anthropic.id() + " passthrough",
                        anthropic.id() + " passthrough-tools", anthropic.id() + " sentiment"),
                reports.stream().map(r -> r.provider() + " " + r.contractId()).toList());
        for (CertificationReport report : reports) {
            // an invented key fails the passthrough contract's golden schemas too, and the tools' parameters
            Certification stored = store.latest(report.provider(), report.contractId()).orElseThrow();
            assertEquals(report.id(), stored.id());
            assertFalse(stored.passed());
            assertTrue(stored.failedChecks().contains("structure"), stored::report);
            assertEquals(report.toText(), stored.report());
        }
        CertificationGate gate = new CertificationGate(store, CertifyFixture.CONTRACTS, providers);
        assertTrue(gate.whyNot(job(anthropic.id()), anthropic.id()).orElseThrow()
                .startsWith(anthropic.id() + " failed its latest certification for sentiment@"));
    }

    @ParameterizedTest
    @EnumSource(ProviderProtocol.class)
    void aProviderThatCallsTheExpectedToolWithValidArgumentsIsCertifiedForToolCalling(ProviderProtocol protocol) {
        // given
        ProviderConfig backup = fixture.provider(protocol);
        // when
        CertificationReport report = runner(Providers.of(List.of(backup))).run(backup.id(), Passthrough.TOOLS_ID);
        // then
        assertTrue(report.passed(), report::toText);
        assertTrue(report.check("structure").orElseThrow().passed(), report::toText);
    }

    @Test
    void anUnknownProviderIsRefusedNamingTheKnownOnes() {
        // given
        ProviderConfig known = fixture.provider(ProviderProtocol.OPENAI_CHAT);
        CertificationRunner runner = runner(Providers.of(List.of(known)));
        // when
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> runner.run(Optional.of("nobody"), Optional.empty()));
        // then
        assertEquals("no provider 'nobody' in the providers file; known: " + known.id(), refused.getMessage());
        assertTrue(fixture.sim.ledger().isEmpty(), "nothing was called");
    }

    /** Checks as canonical JSON: jsonb reorders keys and reads small longs back as ints. */
    private static String canonical(List<CertificationCheck> checks) {
        ArrayNode array = Json.MAPPER.createArrayNode();
        checks.forEach(check -> array.add(check.toJson()));
        return CanonicalJson.canonicalize(array);
    }

    private static Job job(String fallback) {
        Instant now = Instant.now();
        return new Job(UUID.randomUUID(), "owner-a", "key-" + UUID.randomUUID(), "0".repeat(64), Json.object(),
                "sentiment", "primary", List.of(fallback), JobStatus.RUNNING, 2, null, null, null, null, now, now,
                null);
    }
}
