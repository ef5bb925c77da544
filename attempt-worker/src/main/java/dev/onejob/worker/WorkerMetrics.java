package dev.onejob.worker;

import dev.onejob.core.events.AttemptCompletion;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.function.Supplier;

/** The worker's metrics: attempts started, outcomes by provider, provider latency, calls in flight, dead letters. */
public final class WorkerMetrics {
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    void inFlight(Supplier<Number> inFlight) {
        Gauge.builder("onejob_provider_calls_in_flight", inFlight).register(registry);
    }

    void started(String provider) {
        Counter.builder("onejob_attempts_started").tag("provider", provider).register(registry).increment();
    }

    void skipped() {
        Counter.builder("onejob_commands_skipped").description("redelivered commands for attempts already started")
                .register(registry).increment();
    }

    void notRunnable(String code) {
        Counter.builder("onejob_commands_not_runnable").description("commands naming a provider or contract this"
                + " worker does not know; their attempts end FAILED").tag("code", code).register(registry).increment();
    }

    void lost() {
        Counter.builder("onejob_completions_lost").description("completions still unpublished when the worker"
                + " stopped after its drain").register(registry).increment();
    }

    void deadLettered() {
        Counter.builder("onejob_dead_letters").tag("topic", "attempt-commands").register(registry).increment();
    }

    void completed(AttemptCompletion completion) {
        String code = completion.error() == null ? "" : completion.error().code();
        Counter.builder("onejob_attempt_outcomes").tag("provider", completion.provider())
                .tag("outcome", completion.outcome().name()).tag("code", code).register(registry).increment();
        if (completion.outcome() != AttemptCompletion.Outcome.UNKNOWN) {
            Timer.builder("onejob_provider_latency").tag("provider", completion.provider())
                    .publishPercentileHistogram().register(registry).record(Duration.ofMillis(completion.latencyMs()));
        }
        if (completion.usage() != null) {
            String model = completion.model() == null ? "" : completion.model();
            tokens(completion.provider(), model, "input", completion.usage().inputTokens());
            tokens(completion.provider(), model, "cached_input", completion.usage().cachedInputTokens());
            tokens(completion.provider(), model, "output", completion.usage().outputTokens());
            if (completion.costUsd() != null) {
                Counter.builder("onejob_provider_cost_usd").description("US dollars billed by providers, at the"
                        + " prices of providers.yaml; per owner: GET /v1/usage").tag("provider", completion.provider())
                        .tag("model", model).register(registry).increment(completion.costUsd().doubleValue());
            }
        }
    }

    private void tokens(String provider, String model, String kind, long count) {
        Counter.builder("onejob_provider_tokens").description("tokens billed by providers, as their replies"
                + " reported; input includes cached_input").tag("provider", provider).tag("model", model)
                .tag("kind", kind).register(registry).increment(count);
    }
}
