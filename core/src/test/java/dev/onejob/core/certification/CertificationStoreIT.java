package dev.onejob.core.certification;

import static dev.onejob.core.certification.CertificationFixture.MODEL;
import static dev.onejob.core.certification.CertificationFixture.freshProvider;
import static dev.onejob.core.certification.CertificationFixture.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.db.DatabaseException;
import dev.onejob.core.json.Json;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@link CertificationStore} against the real PostgreSQL: what it records, what it answers, what the table refuses. */
class CertificationStoreIT {
    private final CertificationFixture fixture = new CertificationFixture();
    private final CertificationStore store = fixture.store;

    @Test
    void aRecordedRunReadsBackAsItWasRecorded() {
        // given
        String provider = freshProvider();
        Certification recorded = run(provider, MODEL, fixture.sentiment, true, Instant.now());
        // when
        boolean inserted = store.record(recorded);
        Certification read = store.latest(provider, "sentiment").orElseThrow();
        // then
        assertTrue(inserted);
        assertNotNull(read.createdAt());
        assertEquals(recorded, new Certification(read.id(), read.provider(), read.model(), read.contractId(),
                read.contractVersion(), read.passed(), read.checks(), read.report(), read.repetitions(),
                read.startedAt(), read.finishedAt(), null));
    }

    @Test
    void recordingTheSameRunTwiceKeepsOneRow() {
        // given
        String provider = freshProvider();
        Certification recorded = run(provider, MODEL, fixture.sentiment, true, Instant.now());
        store.record(recorded);
        // when
        boolean again = store.record(recorded);
        // then
        assertFalse(again);
        long rows = fixture.database.inTransaction(connection -> count(connection, provider));
        assertEquals(1L, rows);
    }

    @Test
    void latestIsTheNewestRunWhateverItsVerdict() {
        // given a pass, then a newer failure
        String provider = freshProvider();
        Instant now = Instant.now();
        store.record(run(provider, MODEL, fixture.sentiment, true, now.minusSeconds(60)));
        Certification failed = run(provider, MODEL, fixture.sentiment, false, now);
        store.record(failed);
        // when
        Optional<Certification> latest = store.latest(provider, "sentiment");
        Optional<Certification> latestOfVersion = store.latest(provider, MODEL, "sentiment",
                fixture.sentiment.version());
        // then
        assertEquals(failed.id(), latest.orElseThrow().id());
        assertEquals(failed.id(), latestOfVersion.orElseThrow().id());
        assertEquals(List.of("structure"), latest.get().failedChecks());
    }

    @Test
    void latestPassingSkipsFailedRunsOtherModelsAndRunsBeforeNotBefore() {
        // given
        String provider = freshProvider();
        Instant now = Instant.now();
        Certification old = run(provider, MODEL, fixture.sentiment, true, now.minusSeconds(3600));
        Certification young = run(provider, MODEL, fixture.sentiment, true, now.minusSeconds(60));
        store.record(old);
        store.record(young);
        store.record(run(provider, MODEL, fixture.sentiment, false, now));
        store.record(run(provider, "model-b", fixture.sentiment, true, now));
        String version = fixture.sentiment.version();
        // when
        Optional<Certification> sinceTwoHours = store.latestPassing(provider, MODEL, "sentiment", version,
                now.minusSeconds(7200));
        Optional<Certification> sinceOneMinuteAgo = store.latestPassing(provider, MODEL, "sentiment", version,
                now.minusSeconds(30));
        // then
        assertEquals(young.id(), sinceTwoHours.orElseThrow().id());
        assertTrue(sinceOneMinuteAgo.isEmpty(), () -> "found " + sinceOneMinuteAgo);
    }

    @Test
    void latestPerProviderAndContractListsTheNewestRunOfEachPair() {
        // given two providers, two runs each
        String first = freshProvider();
        String second = freshProvider();
        Instant now = Instant.now();
        Certification firstNewest = run(first, MODEL, fixture.sentiment, false, now);
        Certification secondNewest = run(second, MODEL, fixture.sentiment, true, now);
        store.record(run(first, MODEL, fixture.sentiment, true, now.minusSeconds(5)));
        store.record(firstNewest);
        store.record(run(second, MODEL, fixture.sentiment, false, now.minusSeconds(5)));
        store.record(secondNewest);
        // when
        List<Certification> mine = store.latestPerProviderAndContract().stream()
                .filter(c -> c.provider().equals(first) || c.provider().equals(second)).toList();
        // then
        assertEquals(2, mine.size());
        assertEquals(Set.of(firstNewest.id(), secondNewest.id()), Set.copyOf(mine.stream().map(Certification::id)
                .toList()));
    }

    @Test
    void theTableRefusesToUpdateARecordedRun() {
        // given
        String provider = freshProvider();
        Certification recorded = run(provider, MODEL, fixture.sentiment, false, Instant.now());
        store.record(recorded);
        // when
        SQLException refused = assertThrows(SQLException.class, () -> {
            try (Connection connection = fixture.database.dataSource().getConnection();
                 PreparedStatement update = connection.prepareStatement(
                         "UPDATE certifications SET passed = true WHERE id = ?")) {
                update.setObject(1, recorded.id());
                update.executeUpdate();
            }
        });
        // then
        assertTrue(refused.getMessage().contains("cannot be updated"), refused::getMessage);
        assertFalse(store.latest(provider, "sentiment").orElseThrow().passed());
    }

    @Test
    void theTableRefusesARunMarkedPassedWithAFailedCheck() {
        // given
        Certification failed = run(freshProvider(), MODEL, fixture.sentiment, false, Instant.now());
        Certification inconsistent = new Certification(failed.id(), failed.provider(), failed.model(),
                failed.contractId(), failed.contractVersion(), true, failed.checks(), failed.report(),
                failed.repetitions(), failed.startedAt(), failed.finishedAt(), null);
        // when
        DatabaseException refused = assertThrows(DatabaseException.class, () -> store.record(inconsistent));
        // then
        assertEquals("23514", refused.sqlState(), refused::getMessage);
        assertTrue(refused.getMessage().contains("certifications_passed_iff_every_check_passed"), refused::getMessage);
    }

    @Test
    void anAnswerHoldingANulCharacterIsRecordedWithAReplacementCharacter() {
        // given evidence quoting a provider answer with U+0000, which jsonb cannot hold
        String provider = freshProvider();
        Certification base = run(provider, MODEL, fixture.sentiment, true, Instant.now());
        Certification withNul = new Certification(base.id(), provider, MODEL, "sentiment", base.contractVersion(), true,
                List.of(CertificationCheck.of("structure", true, "ok",
                        Json.object().put("answer", "a\u0000b \\u0000 stays"))),
                "report a\u0000b", 3, base.startedAt(), base.finishedAt(), null);
        // when
        boolean inserted = store.record(withNul);
        Certification read = store.latest(provider, "sentiment").orElseThrow();
        // then
        assertTrue(inserted);
        assertEquals("a\uFFFDb \\u0000 stays", read.checks().get(0).evidence().get("answer").asText());
        assertEquals("report a\uFFFDb", read.report());
    }

    private static long count(Connection connection, String provider) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(
                "SELECT count(*) FROM certifications WHERE provider = ?")) {
            statement.setString(1, provider);
            try (var rows = statement.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }
}
