package dev.onejob.ingest;

import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.config.Providers;
import dev.onejob.core.db.DatabaseException;
import dev.onejob.core.ledger.RefusalCounts;
import dev.onejob.core.service.Loops;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiPredicate;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which providers cool down now, because they keep refusing, and so where a new job starts. Once a second it reads
 * each provider's recent definite refusals ({@link RefusalCounts}, over the provider's {@code cooldown.window}); more
 * than its {@code cooldown.allowed_fails} make it cool until {@code cooldown.duration} after the last of them. Every
 * ingest instance reads the same ledger, so they agree within a second.
 *
 * <p>Consumes a new job's contract and chain ({@link #firstProvider}); produces the provider its first attempt goes
 * to: the target, or, while the target cools, the first fallback that is certified for the contract and not cooling
 * itself. A job with no such fallback starts on its target and waits its backoff when refused. Owns the cooling map,
 * the gauge {@code onejob_provider_cooling{provider}} (1 while cooling) and the counter
 * {@code onejob_jobs_started_past_cooling_total{provider, to}}.
 */
public final class ProviderCooldowns implements Loops.Loop {
    private static final Logger log = LoggerFactory.getLogger(ProviderCooldowns.class);
    static final Duration EVERY = Duration.ofSeconds(1);
    /** Nothing cools: every job starts on its target (a service without a ledger to read). */
    public static final ProviderCooldowns NONE = new ProviderCooldowns(null, null, (c, p) -> false, null,
            Clock.systemUTC());

    private final RefusalCounts refusals;
    private final Providers providers;
    private final BiPredicate<String, String> certified;
    private final MeterRegistry registry;
    private final Clock clock;
    private final Map<String, Instant> coolingUntil = new ConcurrentHashMap<>();
    private final Map<String, Counter> rerouted = new ConcurrentHashMap<>();
    private final AtomicBoolean running = new AtomicBoolean(true);

    /**
     * @param certified whether a provider is certified for a contract (contract, provider): failover's own rule
     */
    public ProviderCooldowns(RefusalCounts refusals, Providers providers, BiPredicate<String, String> certified,
                             MeterRegistry registry, Clock clock) {
        this.refusals = refusals;
        this.providers = providers;
        this.certified = certified;
        this.registry = registry;
        this.clock = clock;
        if (registry != null && providers != null) {
            for (ProviderConfig provider : providers.all()) {
                Gauge.builder("onejob_provider_cooling", () -> coolingUntil(provider.id()).isPresent() ? 1 : 0)
                        .description("1 while the provider cools down after repeated refusals: new jobs with a "
                                + "certified fallback start there").tag("provider", provider.id()).register(registry);
            }
        }
    }

    /** Until when {@code provider} cools down; empty when it does not. */
    public Optional<Instant> coolingUntil(String provider) {
        Instant until = coolingUntil.get(provider);
        return until != null && until.isAfter(clock.instant()) ? Optional.of(until) : Optional.empty();
    }

    /** Where a new job of {@code contract} with this chain starts. */
    public String firstProvider(String contract, String target, List<String> fallbacks) {
        if (coolingUntil(target).isEmpty()) {
            return target;
        }
        for (String fallback : fallbacks) {
            if (coolingUntil(fallback).isEmpty() && certified.test(contract, fallback)) {
                if (registry != null) {
                    rerouted.computeIfAbsent(target + "->" + fallback, k -> Counter.builder(
                                    "onejob_jobs_started_past_cooling_total").description("new jobs whose first attempt"
                                    + " went to a fallback because their target cooled down").tag("provider", target)
                            .tag("to", fallback).register(registry)).increment();
                }
                return fallback;
            }
        }
        return target;
    }

    /** Reads the refusals once and updates who cools. */
    void refresh() {
        Map<String, Duration> windows = providers.all().stream()
                .collect(Collectors.toMap(ProviderConfig::id, p -> p.cooldown().window()));
        Map<String, RefusalCounts.Refusals> counts = refusals.within(windows);
        for (ProviderConfig provider : providers.all()) {
            RefusalCounts.Refusals recent = counts.get(provider.id());
            if (recent == null || recent.last() == null || !provider.cooldown().coolsDown(recent.count())) {
                continue;
            }
            Instant until = recent.last().plus(provider.cooldown().duration());
            Instant before = coolingUntil.put(provider.id(), until);
            if (before == null || before.isBefore(clock.instant())) {
                log.warn("event=provider_cooling provider={} refusals={} window={} until={}", provider.id(),
                        recent.count(), provider.cooldown().window(), until);
            }
        }
    }

    @Override
    public void run() {
        while (running.get()) {
            try {
                refresh();
            } catch (DatabaseException e) {
                log.debug("event=cooldowns_not_read error=\"{}\"", e.getMessage());
            }
            try {
                Thread.sleep(EVERY.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    @Override
    public void close() {
        running.set(false);
    }
}
