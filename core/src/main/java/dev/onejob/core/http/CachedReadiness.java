package dev.onejob.core.http;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Readiness checked at most once per {@code ttl}: a probe or a scraper hammering {@code /health/ready} costs
 * PostgreSQL and Kafka one check a second, not one per call. One caller checks at a time; the others get the last
 * answer meanwhile (the first caller ever waits for it). A check that throws counts as not ready; its reason is logged, not
 * answered.
 */
public final class CachedReadiness implements Supplier<String> {
    private static final Logger log = LoggerFactory.getLogger(CachedReadiness.class);
    private final Supplier<String> check;
    private final long ttlNanos;
    private final AtomicBoolean checking = new AtomicBoolean();
    private volatile Answer last;

    private record Answer(String notReady, long atNanos) {
    }

    public CachedReadiness(Supplier<String> check, Duration ttl) {
        this.check = check;
        this.ttlNanos = ttl.toNanos();
    }

    /** Null when ready, otherwise what is not. */
    @Override
    public String get() {
        Answer answer = last;
        if (answer != null && System.nanoTime() - answer.atNanos() < ttlNanos) {
            return answer.notReady();
        }
        if (answer != null && !checking.compareAndSet(false, true)) {
            return answer.notReady();
        }
        synchronized (this) {
            try {
                Answer current = last;
                if (current != null && System.nanoTime() - current.atNanos() < ttlNanos) {
                    return current.notReady();
                }
                String notReady;
                try {
                    notReady = check.get();
                } catch (RuntimeException e) {
                    // The answer is public: the reason goes to the log, never into it.
                    log.warn("event=readiness_check_failed error=\"{}\"", e.toString());
                    notReady = "the readiness check failed";
                }
                last = new Answer(notReady, System.nanoTime());
                return notReady;
            } finally {
                checking.set(false);
            }
        }
    }
}
