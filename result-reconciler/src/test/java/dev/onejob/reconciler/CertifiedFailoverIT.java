package dev.onejob.reconciler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.certification.CertificationGate;
import dev.onejob.core.certification.CertificationStore;
import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.config.ProviderProtocol;
import dev.onejob.core.config.Providers;
import dev.onejob.core.contract.Contract;
import dev.onejob.core.contract.Contracts;
import dev.onejob.core.db.Database;
import dev.onejob.core.json.Json;
import dev.onejob.core.ledger.BillingStore;
import dev.onejob.core.ledger.Attempt;
import dev.onejob.core.ledger.JobStatus;
import dev.onejob.core.ledger.NewJob;
import dev.onejob.core.ledger.SubmitOutcome;
import dev.onejob.testing.Certifications;
import dev.onejob.testing.TestDatabase;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Automatic failover goes only to providers certified for the job's contract as it is now, and not too long ago. */
class CertifiedFailoverIT {
    private static final Instant NOW = Instant.parse("2026-12-02T12:00:00Z");
    private final Database database = Database.wrap(TestDatabase.shared().dataSource());
    private final ReconcilerFixture fixture = new ReconcilerFixture(database);
    private final Contract sentiment = Contracts.load(Path.of("../config/contracts")).find("sentiment").orElseThrow();

    /** Three providers with models unique to this test, so certifications written by other tests do not count. */
    private final String run = UUID.randomUUID().toString().substring(0, 8);
    private final Providers providers = Providers.of(List.of(provider("primary"), provider("backup"), provider("third")));

    private ProviderConfig provider(String id) {
        return new ProviderConfig(id, ProviderProtocol.OPENAI_CHAT, URI.create("http://127.0.0.1:1"), "model-" + run,
                null, "o200k_base", 128_000, Duration.ofSeconds(5), Duration.ofSeconds(10));
    }

    private CompletionHandler handler() {
        CertificationGate gate = new CertificationGate(new CertificationStore(database),
                Contracts.load(Path.of("../config/contracts")), providers, Duration.ofDays(7),
                Clock.fixed(NOW, ZoneOffset.UTC));
        return new CompletionHandler(fixture.ledger, new BillingStore(fixture.database), gate, new ReconcilerMetrics());
    }

    private void certify(String provider, String version, boolean passed, Instant at) {
        Certifications.record(TestDatabase.shared().dataSource(), provider, "model-" + run, "sentiment", version,
                passed, at);
    }

    private Attempt startedJobWithThreeProviders() {
        SubmitOutcome.Created created = (SubmitOutcome.Created) fixture.ledger.submissions().submit(new NewJob("owner-c",
                "c-" + UUID.randomUUID(), Json.parse("{\"contract\":\"sentiment\",\"variables\":{\"text\":\"x\"},"
                + "\"target\":\"primary\",\"fallbacks\":[\"backup\",\"third\"]}"), "sentiment", "primary",
                List.of("backup", "third")));
        fixture.ledger.starts().start(created.firstAttempt().id(), Duration.ofSeconds(30));
        return created.firstAttempt();
    }

    @Test
    void failoverSkipsAnUncertifiedFallbackAndUsesTheNextCertifiedOne() {
        certify("third", sentiment.version(), true, NOW.minus(Duration.ofHours(1)));
        Attempt primary = startedJobWithThreeProviders();

        handler().apply(ReconcilerFixture.failed(primary, "http_500", true));

        List<Attempt> attempts = fixture.ledger.lookups().attempts(primary.jobId());
        assertEquals(2, attempts.size());
        assertEquals("third", attempts.get(1).provider());
    }

    @Test
    void anExpiredCertificationIsSkippedLikeNone() {
        certify("backup", sentiment.version(), true, NOW.minus(Duration.ofDays(8)));
        certify("third", sentiment.version(), true, NOW.minus(Duration.ofDays(1)));
        Attempt primary = startedJobWithThreeProviders();

        handler().apply(ReconcilerFixture.failed(primary, "http_500", true));

        assertEquals("third", fixture.ledger.lookups().attempts(primary.jobId()).get(1).provider());
    }

    @Test
    void withNoCertifiedFallbackTheJobFailsWithAReasonSayingSo() {
        certify("backup", sentiment.version(), false, NOW.minus(Duration.ofHours(1)));
        certify("third", "0".repeat(64), true, NOW.minus(Duration.ofHours(1)));
        Attempt primary = startedJobWithThreeProviders();

        handler().apply(ReconcilerFixture.failed(primary, "http_500", true));

        var job = fixture.ledger.lookups().job(primary.jobId()).orElseThrow();
        assertEquals(JobStatus.FAILED, job.status());
        assertEquals(1, fixture.ledger.lookups().attempts(primary.jobId()).size());
        assertTrue(job.errorMessage().contains("backup failed its latest certification"), job.errorMessage());
        assertTrue(job.errorMessage().contains("older version of the contract"), job.errorMessage());
    }
}
