package dev.onejob.reconciler;

import dev.onejob.core.service.ServiceMain;

/**
 * Runs the result reconciler alone, configured by the environment ({@link ServiceMain}'s life cycle); stops cleanly
 * on SIGTERM / Ctrl-C; a relay loop that dies exits 1 so a supervisor restarts the reconciler.
 */
public final class ReconcilerMain {
    private ReconcilerMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        ServiceMain.run(ReconcilerConfig.APPLICATION_ID, ReconcilerConfig::fromEnv, ReconcilerService::new);
    }
}
