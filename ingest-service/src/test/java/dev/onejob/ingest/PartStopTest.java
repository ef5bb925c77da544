package dev.onejob.ingest;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class PartStopTest {

    @Test
    void theFirstPartThreadThatDiesIsWhatHealthReports() throws InterruptedException {
        AtomicReference<String> stopped = new AtomicReference<>();
        Thread healthy = new Thread(() -> { }, "outbox-relay");
        healthy.setUncaughtExceptionHandler(IngestService.recordingStop(stopped));
        healthy.start();
        healthy.join();
        assertNull(stopped.get(), "a part that ends normally is no failure");

        Thread dying = new Thread(() -> {
            throw new IllegalStateException("commit refused");
        }, "job-requests-consumer");
        dying.setUncaughtExceptionHandler(IngestService.recordingStop(stopped));
        dying.start();
        dying.join();
        Thread second = new Thread(() -> {
            throw new IllegalStateException("later");
        }, "outbox-relay");
        second.setUncaughtExceptionHandler(IngestService.recordingStop(stopped));
        second.start();
        second.join();

        assertTrue(stopped.get().contains("job-requests-consumer") && stopped.get().contains("commit refused"),
                stopped.get());
        assertTrue(!stopped.get().contains("later"), "the first stop is kept");
    }
}
