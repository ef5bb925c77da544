package dev.onejob.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.json.Json;
import dev.onejob.testing.CountingServer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A caller's JSON Schema reaches nothing outside itself: a drop-in call whose structured-output schema refers to a
 * remote schema (OpenAI's {@code response_format}, Anthropic's {@code output_config}) is a 400 {@code invalid-call}
 * naming the reference, the remote server is never asked, and no job is written.
 */
class CallerSchemasFetchNothingIT {
    private final IngestFixture ingest = IngestFixture.shared();
    private final ApiAnswerRules rules = new ApiAnswerRules(ApiDocument.load());

    @Test
    void aDropInCallWhoseSchemaRefersToARemoteSchemaIs400NamingItAndNothingIsFetched() {
        try (CountingServer remote = CountingServer.start()) {
            // given a schema whose one property refers to a schema on a server that counts every request
            String url = remote.url("/mood.schema.json");
            String schema = "{\"type\":\"object\",\"required\":[\"mood\"],\"properties\":{\"mood\":{\"$ref\":\""
                    + url + "\"}}}";
            String openAiKey = "remote-ref-openai-" + UUID.randomUUID();
            String anthropicKey = "remote-ref-anthropic-" + UUID.randomUUID();

            // when alice calls both drop-in endpoints with it
            Map<String, RawHttp.Response> answers = Map.of(
                    "/v1/chat/completions", call("/v1/chat/completions", openAiKey, """
                            {"model":"fast","messages":[{"role":"user","content":"How do I feel?"}],
                             "response_format":{"type":"json_schema","json_schema":{"name":"mood","strict":true,
                             "schema":%s}}}""".formatted(schema)),
                    "/v1/messages", call("/v1/messages", anthropicKey, """
                            {"model":"fast","max_tokens":100,"messages":[{"role":"user","content":"How do I feel?"}],
                             "output_config":{"format":{"type":"json_schema","schema":%s}}}""".formatted(schema)));

            // then each is a documented 400 whose detail names the reference, and nothing was fetched or written
            for (Map.Entry<String, RawHttp.Response> answer : answers.entrySet()) {
                RawHttp.Response response = answer.getValue();
                assertEquals(400, response.status(), answer.getKey() + ": " + response);
                JsonNode problem = Json.parse(response.text());
                assertEquals(ApiDocument.PROBLEM_BASE + "invalid-call", problem.path("type").asText(), response.text());
                String detail = problem.path("detail").asText();
                assertTrue(detail.contains("output_schema is refused: /properties/mood/$ref is \"" + url + "\""),
                        detail);
                assertTrue(detail.contains("only references inside this schema"), detail);
                assertEquals(List.of(), rules.violations("POST", answer.getKey(), response), answer.getKey());
            }
            assertEquals(0, remote.hits(), "the remote schema was never fetched");
            assertTrue(ingest.ledger.lookups().jobForKey("alice", openAiKey).isEmpty());
            assertTrue(ingest.ledger.lookups().jobForKey("alice", anthropicKey).isEmpty());
        }
    }

    private RawHttp.Response call(String path, String key, String body) {
        List<RawHttp.Header> headers = List.of(FuzzAuth.authorization("Bearer " + IngestFixture.ALICE),
                new RawHttp.Header("Idempotency-Key", key), new RawHttp.Header("Content-Type", "application/json"));
        return RawHttp.send(ingest.service.httpPort(), "POST", path, headers, body.getBytes(StandardCharsets.UTF_8),
                true);
    }
}
