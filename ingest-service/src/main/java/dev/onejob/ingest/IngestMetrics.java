package dev.onejob.ingest;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** The ingest service's metrics, scraped at {@code GET /metrics} in Prometheus text format. */
public final class IngestMetrics {
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

    private final Counter finished = Counter.builder("onejob_job_results_seen")
            .description("job results seen published, by this instance's job-results subscription")
            .register(registry);
    private final Timer submitLatency = Timer.builder("onejob_http_submit_latency")
            .description("accepted HTTP submissions, answer latency (a waited answer includes its wait)")
            .publishPercentiles(0.5, 0.99).distributionStatisticExpiry(Duration.ofMinutes(1))
            .distributionStatisticBufferLength(3).register(registry);

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    /** Job submissions by channel (http, kafka) and outcome (created, replayed, conflict, invalid). */
    public void submitted(String channel, String outcome) {
        Counter.builder("onejob_jobs_submitted").tag("channel", channel).tag("outcome", outcome)
                .description("job submissions by channel and outcome").register(registry).increment();
    }

    /** Submissions that created a job or replayed one, over both channels, since this instance started. */
    public long submittedTotal() {
        return Math.round(registry.find("onejob_jobs_submitted").tag("outcome", "created").counters().stream()
                .mapToDouble(Counter::count).sum());
    }

    /** Job results this instance's subscription saw published (every job finished, whichever instance took it). */
    public void finished(int count) {
        finished.increment(count);
    }

    public long finishedTotal() {
        return Math.round(finished.count());
    }

    /** A percentile of the latency of accepted HTTP submissions over the last minute or so, in milliseconds. */
    public double submitLatencyMillis(double percentile) {
        for (var value : submitLatency.takeSnapshot().percentileValues()) {
            if (value.percentile() == percentile) {
                return Math.round(value.value(TimeUnit.MILLISECONDS) * 10) / 10.0;
            }
        }
        return 0;
    }

    public void request(String route, int status, Duration latency) {
        if (route.equals("POST /v1/jobs") && status < 300) {
            submitLatency.record(latency);
        }
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

    private final AtomicInteger kafkaIntakePaused = new AtomicInteger();

    {
        Gauge.builder("onejob_kafka_intake_paused", kafkaIntakePaused::get)
                .description("1 while the job-requests intake waits for the workers' backlog to drain")
                .register(registry);
    }

    public void kafkaIntakePaused(boolean paused) {
        kafkaIntakePaused.set(paused ? 1 : 0);
    }

    /** Partitions of job-requests held back because an owner was over RATE_LIMIT_PER_OWNER, one per hold. */
    public void kafkaRecordsPaced(int partitions) {
        Counter.builder("onejob_kafka_intake_paced").description("job-requests partitions held back until an owner's "
                + "RATE_LIMIT_PER_OWNER bucket refilled").register(registry).increment(partitions);
    }
}
