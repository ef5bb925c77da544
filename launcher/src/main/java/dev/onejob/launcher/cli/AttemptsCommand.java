package dev.onejob.launcher.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.json.Json;
import java.util.Map;
import java.util.UUID;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code attempts resolve}: an operator settles an attempt that timed out (UNKNOWN) or is stuck STARTING, through
 * the HTTP API with an operate token. Consumes the attempt id, the outcome and the reason; produces the resolution
 * and the job as it then stands, and an exit status from the API's answer.
 */
@Command(name = "attempts", mixinStandardHelpOptions = true, description = "Settle attempts out of band.")
public record AttemptsCommand(CliContext context) {
    /** What an operator may decide about an attempt. */
    enum Outcome { FAILED, CANCELLED }

    @Command(name = "resolve", mixinStandardHelpOptions = true,
            description = {"Resolves an UNKNOWN or stuck STARTING attempt: FAILED lets automatic failover continue"
                    + " (the next allowed provider gets an attempt, or the job FAILED); CANCELLED leaves the next"
                    + " step to the owner (the job shows NEEDS_ACTION: the fallback button or cancel).",
                "Talks to the HTTP API (POST /v1/attempts/{id}/resolve) with a token that has the operate role;"
                        + " a token without it is refused with 403 (exit 1)."})
    int resolve(@Parameters(paramLabel = "ATTEMPT_ID", description = "The attempt's id.") UUID attemptId,
                @Option(names = "--outcome", required = true, paramLabel = "OUTCOME",
                        description = "FAILED (failover continues) or CANCELLED (the owner decides).")
                Outcome outcome,
                @Option(names = "--reason", required = true, paramLabel = "TEXT",
                        description = "Why, for the record (kept on the attempt).") String reason,
                @Mixin ApiOptions api,
                @Option(names = "--json", description = "Print the API's JSON answer instead of text.") boolean json) {
        if (reason.isBlank()) {
            throw CliFailure.usage("--reason must say why the attempt is resolved");
        }
        ObjectNode body = Json.object().put("outcome", outcome.name()).put("reason", reason);
        ApiClient.Response response = api.client(context).post("/v1/attempts/" + attemptId + "/resolve", Map.of(),
                body);
        if (json) {
            context.out().println(Json.write(response.body()));
        } else if (response.ok()) {
            printResolution(response.body());
        }
        if (!response.ok()) {
            throw new CliFailure(response.exitCode(), "resolving attempt " + attemptId + ": " + response.describe());
        }
        return ExitCode.OK;
    }

    private void printResolution(JsonNode answer) {
        JsonNode next = answer.path("next_attempt");
        context.out().println("resolved " + answer.path("resolution").asText()
                + (next.isObject() ? "; failover attempt #" + next.path("number").asText() + " on "
                + next.path("provider").asText() + " (" + next.path("id").asText() + ")" : ""));
        JobView.print(answer.path("job"), context.out());
    }
}
