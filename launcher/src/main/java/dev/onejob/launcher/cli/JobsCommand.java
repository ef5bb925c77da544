package dev.onejob.launcher.cli;

import dev.onejob.core.json.Json;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
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
        description = "Look at jobs, wait for them and cancel them.")
public record JobsCommand(CliContext context) {
    /** The job a subcommand acts on and the HTTP API it asks: a picocli mixin. */
    static final class JobTarget {
        @Parameters(paramLabel = "JOB_ID", description = "The job's id.")
        UUID jobId;

        @Mixin
        ApiOptions api;

        String path() {
            return "/v1/jobs/" + jobId;
        }
    }

    @Command(name = "get", mixinStandardHelpOptions = true,
            description = {"Shows one job with its attempts, its result or error, and why a discarded attempt lost.",
                "Talks to the HTTP API (GET /v1/jobs/{id}) with the owner's token: another owner's job is not found,"
                        + " exactly like a missing one (exit 1)."})
    int get(@Mixin JobTarget job,
            @Option(names = "--json", description = "Print the API's JSON (the OpenAPI Job) instead of text.")
            boolean json) {
        return answer(job.api.client(context).get(job.path()), json, "job " + job.jobId);
    }

    @Command(name = "cancel", mixinStandardHelpOptions = true,
            description = {"Cancels a job that has not finished; a late result of any of its attempts is then"
                    + " discarded and put on race-audit.",
                "Talks to the HTTP API (POST /v1/jobs/{id}/cancel) with the owner's token (role submit). A finished"
                        + " job is refused with 409 job-finished (exit 1)."})
    int cancel(@Mixin JobTarget job,
               @Option(names = "--json", description = "Print the API's JSON (the cancelled Job) instead of text.")
               boolean json) {
        ApiClient.Response response = job.api.client(context).post(job.path() + "/cancel", Map.of(), null);
        return answer(response, json, "cancelling job " + job.jobId);
    }

    @Command(name = "wait", mixinStandardHelpOptions = true,
            description = {"Waits for a job to finish and shows it: exit 0 when it SUCCEEDED, 1 when it FAILED or was"
                    + " CANCELLED, or when --timeout passed first (the job is then shown as it is).",
                "Talks to the HTTP API (GET /v1/jobs/{id} with Prefer: wait=N): the server answers the moment the job"
                        + " ends, so nothing polls; a timeout longer than the server's HTTP_MAX_WAIT is several"
                        + " waits."})
    int await(@Mixin JobTarget job,
              @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "5m",
                      converter = DurationConverter.class,
                      description = "How long to wait at most (30s, 5m, 1h; default ${DEFAULT-VALUE}).")
              Duration timeout,
              @Option(names = "--json", description = "Print the API's JSON (the OpenAPI Job) instead of text.")
              boolean json) {
        ApiClient client = job.api.client(context);
        String what = "job " + job.jobId;
        long deadline = System.nanoTime() + timeout.toNanos();
        ApiClient.Response response;
        String status;
        do {
            Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
            // Whole seconds, as Prefer: wait takes them; at least one, so the last round still asks the server.
            response = client.getWaiting(job.path(), Duration.ofSeconds(Math.max(1, Math.min(60, left.toSeconds()))));
            if (!response.ok()) {
                return answer(response, json, what);
            }
            status = response.body().path("status").asText();
        } while (!FINISHED.contains(status) && System.nanoTime() < deadline);
        answer(response, json, what);
        if (!FINISHED.contains(status)) {
            throw new CliFailure(ExitCode.REFUSED, what + " is still " + status + " after " + timeout);
        }
        if (!status.equals("SUCCEEDED")) {
            throw new CliFailure(ExitCode.REFUSED, what + " ended " + status);
        }
        return ExitCode.OK;
    }

    private static final Set<String> FINISHED = Set.of("SUCCEEDED", "FAILED", "CANCELLED");

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
