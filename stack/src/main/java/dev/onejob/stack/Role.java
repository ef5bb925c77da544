package dev.onejob.stack;

import dev.onejob.core.kafka.KafkaPrincipals;

/**
 * The three services of the pipeline as the stack runs them: each one's module (whose runnable jar starts it), its
 * main class (the fallback on the driver module's classpath), and the Kafka principal it authenticates as.
 */
public enum Role {
    INGEST("ingest-service", "dev.onejob.ingest.IngestMain"),
    WORKER("attempt-worker", "dev.onejob.worker.WorkerMain"),
    RECONCILER("result-reconciler", "dev.onejob.reconciler.ReconcilerMain");

    private final String module;
    private final String mainClass;

    Role(String module, String mainClass) {
        this.module = module;
        this.mainClass = mainClass;
    }

    public String module() {
        return module;
    }

    public String mainClass() {
        return mainClass;
    }

    /** The principal this service authenticates as on an authenticated cluster. */
    public String principal(KafkaPrincipals.Services services) {
        return switch (this) {
            case INGEST -> services.ingest();
            case WORKER -> services.worker();
            case RECONCILER -> services.reconciler();
        };
    }
}
