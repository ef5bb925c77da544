package dev.onejob.reconciler;

import dev.onejob.providers.certify.CertificationReport;
import dev.onejob.providers.certify.CertificationRunner;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Re-certifies every (provider, contract) pair on a schedule ({@code CERTIFY_INTERVAL}, off by default), so
 * certifications do not expire under a stack that runs for weeks. Results are stored like on-demand runs.
 */
final class CertificationSchedule implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(CertificationSchedule.class);
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "certification-schedule");
        t.setDaemon(true);
        return t;
    });

    CertificationSchedule(CertificationRunner runner, Duration interval) {
        timer.scheduleWithFixedDelay(() -> {
            try {
                for (CertificationReport report : runner.run(Optional.empty(), Optional.empty())) {
                    log.info("event=certified provider={} contract={} passed={}", report.provider(),
                            report.contractLabel(), report.passed());
                }
            } catch (RuntimeException e) {
                log.warn("event=certification_failed error=\"{}\" action=retry_next_interval", e.toString());
            }
        }, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
