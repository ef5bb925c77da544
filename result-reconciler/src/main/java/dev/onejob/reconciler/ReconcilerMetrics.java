package dev.onejob.reconciler;

import io.micrometer.core.instrument.Counter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/** The reconciler's metrics: completions by what they did, lost races by provider pair, sweeps. */
public final class ReconcilerMetrics {
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    void applied(String outcome, String result) {
        Counter.builder("onejob_completions_applied").tag("outcome", outcome).tag("result", result)
                .description("attempt completions by reported outcome and what the ledger did").register(registry)
                .increment();
    }

    void lostRace(String winnerProvider, String loserProvider, String reason) {
        Counter.builder("onejob_lost_races").tag("winner", winnerProvider).tag("loser", loserProvider)
                .tag("reason", reason).description("discarded results by provider pair").register(registry).increment();
    }

    void swept(int attempts) {
        Counter.builder("onejob_swept_unknown").description("STARTING attempts past their soft deadline made UNKNOWN")
                .register(registry).increment(attempts);
    }
}
