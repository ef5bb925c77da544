package dev.onejob.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Test-side client for the simulator: builds provider requests the way an adapter would and sends
 * them with the JDK HttpClient over loopback.
 *
 * <p>Consumes a simulator's base URL; produces raw {@link HttpResponse}s and parsed JSON. Owns one
 * HttpClient (default settings, like a production adapter) per instance.
 */
final class SimHttp {

    static final ObjectMapper MAPPER = new ObjectMapper();
    static final String OPENAI = "/v1/chat/completions";
    static final String ANTHROPIC = "/v1/messages";
    static final String COUNT_TOKENS = "/v1/messages/count_tokens";

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final String baseUrl;
    private String apiKey = "sk-test";
    private Duration timeout = Duration.ofSeconds(10);

    SimHttp(ProviderSimulator simulator) {
        this.baseUrl = simulator.baseUrl();
    }

    /** A simulator started for a test, e.g. in a field closed by {@code @AutoClose}; a failed start is unchecked. */
    static ProviderSimulator startSimulator(SimulatorConfig config) {
        try {
            return ProviderSimulator.start(config);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    SimHttp withApiKey(String key) {
        this.apiKey = key;
        return this;
    }

    SimHttp withTimeout(Duration requestTimeout) {
        this.timeout = requestTimeout;
        return this;
    }

    HttpResponse<String> openAi(JsonNode body, String idempotencyKey) throws IOException, InterruptedException {
        return client.send(openAiRequest(body, idempotencyKey), HttpResponse.BodyHandlers.ofString());
    }

    CompletableFuture<HttpResponse<String>> openAiAsync(JsonNode body, String idempotencyKey) {
        return client.sendAsync(openAiRequest(body, idempotencyKey), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> anthropic(String path, JsonNode body, String idempotencyKey)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = post(path, body, idempotencyKey).header("anthropic-version", "2023-06-01");
        if (apiKey != null) {
            request.header("x-api-key", apiKey);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A control-plane call, e.g. {@code control("PUT", "/_sim/behaviour", "{\"kind\":\"reset\"}")}. */
    HttpResponse<String> control(String method, String path, String json) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(baseUrl + path)).header("Content-Type", "application/json")
                .method(method, json == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(json)).build());
    }

    /** The Anthropic request as {@link #anthropic} sends it, for other body handlers. */
    HttpRequest anthropicRequest(JsonNode body, String idempotencyKey) {
        HttpRequest.Builder request = post(ANTHROPIC, body, idempotencyKey).header("anthropic-version", "2023-06-01");
        if (apiKey != null) {
            request.header("x-api-key", apiKey);
        }
        return request.build();
    }

    /** The OpenAI request as {@link #openAi} sends it, for other body handlers. */
    HttpRequest openAiHttpRequest(JsonNode body, String idempotencyKey) {
        return openAiRequest(body, idempotencyKey);
    }

    HttpClient client() {
        return client;
    }

    HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }

    HttpRequest.Builder post(String path, JsonNode body, String idempotencyKey) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + path))
                .timeout(timeout)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString()));
        if (idempotencyKey != null) {
            request.header("Idempotency-Key", idempotencyKey);
        }
        return request;
    }

    private HttpRequest openAiRequest(JsonNode body, String idempotencyKey) {
        HttpRequest.Builder request = post(OPENAI, body, idempotencyKey);
        if (apiKey != null) {
            request.header("Authorization", "Bearer " + apiKey);
        }
        return request.build();
    }

    static JsonNode json(String text) {
        try {
            return MAPPER.readTree(text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Sentiment of a review: one enum, length-limited text, bounded integer, array, boolean, nested object. */
    static ObjectNode sentimentSchema() {
        return (ObjectNode) json("""
                {"type":"object",
                 "properties":{
                   "sentiment":{"type":"string","enum":["positive","negative","neutral"]},
                   "summary":{"type":"string","minLength":12,"maxLength":40},
                   "score":{"type":"integer","minimum":1,"maximum":5},
                   "tags":{"type":"array","items":{"type":"string"},"minItems":2},
                   "flagged":{"type":"boolean"},
                   "details":{"type":"object","properties":{"language":{"type":"string"}},"required":["language"]}},
                 "required":["sentiment","summary","score"],
                 "additionalProperties":false}
                """);
    }

    static ObjectNode openAiBody(String userPrompt, JsonNode schema) {
        ObjectNode body = MAPPER.createObjectNode().put("model", "gpt-4o-mini").put("temperature", 0)
                .put("max_tokens", 200);
        body.putArray("messages")
                .add(MAPPER.createObjectNode().put("role", "system").put("content", "Classify the review."))
                .add(MAPPER.createObjectNode().put("role", "user").put("content", userPrompt));
        if (schema != null) {
            ObjectNode format = body.putObject("response_format").put("type", "json_schema");
            format.putObject("json_schema").put("name", "review").put("strict", true).set("schema", schema);
        }
        return body;
    }

    static ObjectNode anthropicBody(String userPrompt, JsonNode schema) {
        ObjectNode body = MAPPER.createObjectNode().put("model", "claude-sonnet-4-5").put("max_tokens", 200)
                .put("temperature", 0).put("system", "Classify the review.");
        ObjectNode message = body.putArray("messages").addObject().put("role", "user");
        message.putArray("content").addObject().put("type", "text").put("text", userPrompt);
        if (schema != null) {
            body.putArray("tools").addObject().put("name", "record_review")
                    .put("description", "Record the classification").set("input_schema", schema);
            body.putObject("tool_choice").put("type", "tool").put("name", "record_review");
        }
        return body;
    }

    /** The answer JSON an OpenAI response carries as its message content string. */
    static JsonNode openAiAnswer(HttpResponse<String> response) {
        return json(json(response.body()).at("/choices/0/message/content").asText());
    }
}
