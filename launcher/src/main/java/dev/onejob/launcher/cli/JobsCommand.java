package dev.onejob.launcher.cli;

import dev.onejob.core.json.Json;
import java.util.Map;
import java.util.UUID;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code jobs get} and {@code jobs cancel} through the HTTP API with the owner's token, and {@code jobs list}
 * ({@link JobsListCommand}) across owners from the database. Consumes a job id and the API options; produces the
 * job (as text or, with {@code --json}, the API's JSON) and an exit status from the answer.
 */
@Command(name = "jobs", mixinStandardHelpOptions = true, subcommands = JobsListCommand.class,
        description = "Look at jobs and cancel them.")
public final class JobsCommand {
    private final CliContext context;

    JobsCommand(CliContext context) {
        this.context = context;
    }

    @Command(name = "get", mixinStandardHelpOptions = true,
            description = {"Shows one job with its attempts, its result or error, and why a discarded attempt lost.",
                "Talks to the HTTP API (GET /v1/jobs/{id}) with the owner's token: another owner's job is not found,"
                        + " exactly like a missing one (exit 1)."})
    int get(@Parameters(paramLabel = "JOB_ID", description = "The job's id.") UUID jobId,
            @Mixin ApiOptions api,
            @Option(names = "--json", description = "Print the API's JSON (the OpenAPI Job) instead of text.")
            boolean json) {
        ApiClient.Response response = api.client(context).get("/v1/jobs/" + jobId);
        return answer(response, json, "job " + jobId);
    }

    @Command(name = "cancel", mixinStandardHelpOptions = true,
            description = {"Cancels a job that has not finished; a late result of any of its attempts is then"
                    + " discarded and put on race-audit.",
                "Talks to the HTTP API (POST /v1/jobs/{id}/cancel) with the owner's token (role submit). A finished"
                        + " job is refused with 409 job-finished (exit 1)."})
    int cancel(@Parameters(paramLabel = "JOB_ID", description = "The job's id.") UUID jobId,
               @Mixin ApiOptions api,
               @Option(names = "--json", description = "Print the API's JSON (the cancelled Job) instead of text.")
               boolean json) {
        ApiClient.Response response = api.client(context).post("/v1/jobs/" + jobId + "/cancel", Map.of(), null);
        return answer(response, json, "cancelling job " + jobId);
    }

    private int answer(ApiClient.Response response, boolean json, String what) {
        if (json) {
            context.out().println(Json.write(response.body()));
        } else if (response.ok()) {
            JobView.print(response.body(), context.out());
        }
        if (!response.ok()) {
            throw new CliFailure(response.exitCode(), what + ": " + response.describe());
        }
        return ExitCode.OK;
    }
}
