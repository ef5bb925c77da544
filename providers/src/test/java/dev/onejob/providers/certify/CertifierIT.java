package dev.onejob.providers.certify;

import static dev.onejob.providers.certify.CertifyFixture.HARD;
import static dev.onejob.providers.certify.CertifyFixture.SENTIMENT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.certification.CertificationCheck;
import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.config.ProviderProtocol;
import dev.onejob.simulator.Behaviour;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@link Certifier} over real HTTP against the provider simulator: each misbehaviour fails the check meant for it. */
class CertifierIT {
    private final CertifyFixture fixture = new CertifyFixture();

    @AfterEach
    void stop() {
        fixture.close();
    }

    @ParameterizedTest
    @EnumSource(ProviderProtocol.class)
    void aProviderThatInventsATopLevelKeyFailsStructureWithTheOffendingAnswer(ProviderProtocol protocol) {
        // given
        fixture.sim.setDefaultBehaviour(Behaviour.inventKey("confidence"));
        // when
        CertificationReport report = fixture.certifier.certify(fixture.provider(protocol), SENTIMENT, 1);
        // then
        CertificationCheck structure = failed(report, "structure");
        JsonNode first = structure.evidence().get("failures").get(0);
        assertEquals("contract_violation", first.get("code").asText(), first::toString);
        assertTrue(first.get("answer").asText().contains("\"confidence\""), first::toString);
        assertEquals(3, structure.evidence().get("failures").size(), "every answer had the invented key");
        assertTrue(structure.summary().contains("golden[0] repetition 1 of 1"), structure::summary);
    }

    @Test
    void aProviderThatDropsARequiredFieldOnceInThreeFailsStructureNamingTheRepetition() {
        // given every third answer lacks "sentiment"; three inputs, three repetitions: nine calls, three damaged
        fixture.sim.setDefaultBehaviour(Behaviour.dropField("sentiment", 3));
        // when
        CertificationReport report = fixture.certifier.certify(fixture.provider(ProviderProtocol.OPENAI_CHAT),
                SENTIMENT, 3);
        // then
        CertificationCheck structure = failed(report, "structure");
        JsonNode failures = structure.evidence().get("failures");
        assertEquals(9, structure.evidence().get("calls").asInt());
        assertEquals(3, failures.size(), failures::toString);
        for (int i = 0; i < failures.size(); i++) {
            assertEquals(i + 1, failures.get(i).get("repetition").asInt(), failures::toString);
            assertTrue(failures.get(i).get("message").asText().contains("sentiment"), failures::toString);
        }
        assertTrue(structure.summary().startsWith("3 of 9 answers failed; first: golden[2] repetition 1 of 3: "
                + "Failed contract_violation"), structure::summary);
    }

    @Test
    void anOpenAiPromptOverflowingATinyContextWindowFailsTokenizer() {
        // given
        ProviderConfig tiny = fixture.provider(ProviderProtocol.OPENAI_CHAT, 50, CertifyFixture.SOFT, HARD);
        // when
        CertificationReport report = fixture.certifier.certify(tiny, SENTIMENT, 1);
        // then
        CertificationCheck tokenizer = failed(report, "tokenizer");
        assertTrue(tokenizer.summary().contains("> context_window 50"), tokenizer::summary);
        assertEquals("o200k_base", tokenizer.evidence().get("tokenizer").asText());
        assertTrue(report.check("structure").orElseThrow().passed(), "the answers themselves were fine");
    }

    @Test
    void anAnthropicPromptTheProviderCountsPastItsWindowFailsTokenizer() {
        // given the provider's count_tokens says each prompt is a thousand times longer
        fixture.sim.setTokenCountAdjustment(1000, 0);
        // when
        CertificationReport report = fixture.certifier.certify(fixture.provider(ProviderProtocol.ANTHROPIC_MESSAGES),
                SENTIMENT, 1);
        // then
        CertificationCheck tokenizer = failed(report, "tokenizer");
        assertTrue(tokenizer.summary().contains("> context_window " + CertifyFixture.CONTEXT_WINDOW),
                tokenizer::summary);
        assertEquals(3, fixture.sim.ledger().stream().filter(e -> e.protocol().equals("anthropic-count-tokens"))
                .count(), "one count per golden input");
    }

    @ParameterizedTest
    @EnumSource(ProviderProtocol.class)
    void aProviderThatManglesNonAsciiTextFailsTheRoundTrip(ProviderProtocol protocol) {
        // given
        fixture.sim.setDefaultBehaviour(Behaviour.mangleNonAscii());
        // when
        CertificationReport report = fixture.certifier.certify(fixture.provider(protocol), SENTIMENT, 1);
        // then
        CertificationCheck roundTrip = failed(report, "round_trip");
        assertTrue(roundTrip.summary().contains("golden[2] repetition 1 of 1: $.summary holds 'Tr?s' where the input "
                + "had 'Très'"), roundTrip::summary);
        assertTrue(report.check("structure").orElseThrow().passed(), "mangled text is still valid JSON");
        assertTrue(report.check("tokenizer").orElseThrow().passed());
    }

    @Test
    void aProviderSlowerThanItsSoftTimeoutFailsOperational() {
        // given answers take 300 ms, the soft timeout is 100 ms
        fixture.sim.setDefaultBehaviour(Behaviour.answerAfter(Duration.ofMillis(300)));
        ProviderConfig impatient = fixture.provider(ProviderProtocol.OPENAI_CHAT, CertifyFixture.CONTEXT_WINDOW,
                Duration.ofMillis(100), HARD);
        // when
        CertificationReport report = fixture.certifier.certify(impatient, SENTIMENT, 1);
        // then
        CertificationCheck operational = failed(report, "operational");
        assertTrue(operational.summary().contains("golden[0] repetition 1 of 1 was not answered within soft_timeout "
                + "100ms"), operational::summary);
        for (JsonNode latency : operational.evidence().get("latencies")) {
            assertTrue(latency.get("latency_ms").asLong() >= 300, latency::toString);
        }
        assertTrue(report.check("structure").orElseThrow().passed(), "late answers are still checked");
    }

    private static CertificationCheck failed(CertificationReport report, String name) {
        assertFalse(report.passed(), report::toText);
        CertificationCheck check = report.check(name).orElseThrow();
        assertFalse(check.passed(), report::toText);
        assertEquals(List.of("structure", "rendering", "tokenizer", "round_trip", "operational"),
                report.checks().stream().map(CertificationCheck::name).toList());
        return check;
    }
}
