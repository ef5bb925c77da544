package dev.onejob.bench.peer;

/** The peer's one workflow: run a job (its request, as JSON) and return the provider's answer (JSON). */
public interface PeerJobs {
    String runJob(String ownerId, String idempotencyKey, String requestJson) throws Exception;
}
