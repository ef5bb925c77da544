package dev.onejob.ingest;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;

/** The ingest service's metrics, scraped at {@code GET /metrics} in Prometheus text format. */
public final class IngestMetrics {
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    /** Job submissions by channel (http, kafka) and outcome (created, replayed, conflict, invalid). */
    public void submitted(String channel, String outcome) {
        Counter.builder("onejob_jobs_submitted").tag("channel", channel).tag("outcome", outcome)
                .description("job submissions by channel and outcome").register(registry).increment();
    }

    public void request(String route, int status, Duration latency) {
        Timer.builder("onejob_http_requests").tag("route", route).tag("status", Integer.toString(status))
                .description("HTTP requests by route and status").publishPercentileHistogram()
                .register(registry).record(latency);
    }

    public void fallbackButton(String outcome) {
        Counter.builder("onejob_fallback_button").tag("outcome", outcome).register(registry).increment();
    }

    public void resolution(String outcome) {
        Counter.builder("onejob_attempt_resolutions").tag("outcome", outcome).register(registry).increment();
    }

    public void deadLettered(String topic) {
        Counter.builder("onejob_dead_letters").tag("topic", topic).register(registry).increment();
    }
}
