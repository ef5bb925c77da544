package dev.onejob.bench.peer;

import dev.dbos.transact.DBOS;
import dev.dbos.transact.workflow.Workflow;

/**
 * The workflow DBOS runs once per workflow id (the owner and the idempotency key): one step, the provider call.
 * DBOS checkpoints the step's output, so a recovered workflow does not call again.
 */
public final class PeerJobsImpl implements PeerJobs {
    private final DBOS dbos;
    private final ProviderStep provider;

    PeerJobsImpl(DBOS dbos, ProviderStep provider) {
        this.dbos = dbos;
        this.provider = provider;
    }

    @Override
    @Workflow(name = "runJob")
    public String runJob(String ownerId, String idempotencyKey, String requestJson) throws Exception {
        String callKey = ownerId + ":" + idempotencyKey;
        return dbos.runStep(() -> provider.call(callKey, requestJson), "callProvider");
    }
}
