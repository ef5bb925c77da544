package dev.onejob.worker;

import dev.onejob.core.service.ServiceMain;

/**
 * Runs one attempt worker alone, configured by the environment ({@link ServiceMain}'s life cycle); SIGTERM stops
 * polling and lets calls in flight finish; a poll loop that dies exits 1 so a supervisor restarts the worker.
 */
public final class WorkerMain {
    private WorkerMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        ServiceMain.run("attempt-worker", WorkerConfig::fromEnv, WorkerService::new);
    }
}
