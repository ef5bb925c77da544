package dev.onejob.core.service;

import java.util.UUID;
import org.slf4j.MDC;

/**
 * The job and attempt a thread is working on, in the logging context (SLF4J's MDC, keys {@code job} and
 * {@code attempt}), so that every line logged meanwhile, by onejob or by a library underneath, names them. Opened
 * with try-with-resources around one record's work; closing removes both keys.
 */
public final class LogContext implements AutoCloseable {
    public static final String JOB = "job";
    public static final String ATTEMPT = "attempt";

    private LogContext() {
    }

    /** Puts the ids (either may be null: then that key is left out). */
    public static LogContext of(UUID job, UUID attempt) {
        if (job != null) {
            MDC.put(JOB, job.toString());
        }
        if (attempt != null) {
            MDC.put(ATTEMPT, attempt.toString());
        }
        return new LogContext();
    }

    @Override
    public void close() {
        MDC.remove(JOB);
        MDC.remove(ATTEMPT);
    }
}
