package dev.onejob.bench.peer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.contract.Contract;
import dev.onejob.core.contract.Contracts;
import dev.onejob.core.json.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

/**
 * The peer's provider call, the same work as onejob's worker does for an {@code openai-chat} provider: render the
 * contract's prompt, {@code POST /v1/chat/completions} with a strict {@code json_schema} response format and
 * {@code Idempotency-Key}, parse {@code choices[0].message.content} and check it against the contract's output
 * schema. The request body is a copy of the worker's {@code OpenAiChatClient.body} (package-private there).
 */
final class ProviderStep {
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final URI endpoint;
    private final String apiKey;
    private final Contracts contracts;

    ProviderStep(String baseUrl, String apiKey, Contracts contracts) {
        this.endpoint = URI.create(baseUrl + "/v1/chat/completions");
        this.apiKey = apiKey;
        this.contracts = contracts;
    }

    Contracts contracts() {
        return contracts;
    }

    String call(String idempotencyKey, String requestJson) throws Exception {
        JsonNode request = Json.parse(requestJson);
        Contract contract = contracts.find(request.path("contract").asText())
                .orElseThrow(() -> new IllegalArgumentException("unknown contract"));
        HttpRequest call = HttpRequest.newBuilder(endpoint)
                // onejob's slow provider's hard timeout: an AI-length call is given as long on both sides.
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + apiKey)
                .header("Idempotency-Key", idempotencyKey)
                .POST(HttpRequest.BodyPublishers.ofString(Json.write(body(contract, request.path("variables")))))
                .build();
        HttpResponse<String> response = http.send(call, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException("the provider answered HTTP " + response.statusCode());
        }
        JsonNode answer = Json.parse(Json.parse(response.body()).path("choices").path(0).path("message")
                .path("content").asText());
        List<String> problems = contract.outputProblems(answer);
        if (!problems.isEmpty()) {
            throw new IllegalStateException("the answer breaks the contract: " + problems);
        }
        return Json.write(answer);
    }

    private static ObjectNode body(Contract contract, JsonNode variables) {
        ObjectNode body = Json.object();
        body.put("model", "gpt-4o-mini");
        var messages = body.putArray("messages");
        messages.addObject().put("role", "system").put("content", contract.system().render(variables));
        messages.addObject().put("role", "user").put("content", contract.user().render(variables));
        body.put("temperature", contract.temperature());
        body.put("max_tokens", contract.maxTokens());
        ObjectNode format = body.putObject("response_format").put("type", "json_schema");
        ObjectNode schema = format.putObject("json_schema").put("name", contract.id());
        schema.set("schema", contract.outputSchema());
        schema.put("strict", true);
        return body;
    }
}
