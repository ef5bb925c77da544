package dev.onejob.reconciler;

import dev.onejob.core.certification.CertificationRequests;
import dev.onejob.core.events.CertificationCommand;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks the workers to re-certify every (provider, contract) pair on a schedule ({@code CERTIFY_INTERVAL}, off by
 * default), so certifications do not expire under a stack that runs for weeks: each tick records a request and its
 * command through the outbox ({@link CertificationRequests}); a worker runs it with its own clients and stores the
 * results like an operator's request. The reconciler calls no provider and holds no provider key.
 */
final class CertificationSchedule implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(CertificationSchedule.class);
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "certification-schedule");
        t.setDaemon(true);
        return t;
    });

    CertificationSchedule(CertificationRequests requests, Duration interval) {
        timer.scheduleWithFixedDelay(() -> {
            try {
                CertificationCommand command = requests.request(Optional.empty(), Optional.empty(), "schedule");
                log.info("event=certification_requested request={} by=schedule", command.requestId());
            } catch (RuntimeException e) {
                log.warn("event=certification_request_failed error=\"{}\" action=retry_next_interval", e.toString());
            }
        }, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
