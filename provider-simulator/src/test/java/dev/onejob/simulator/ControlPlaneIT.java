package dev.onejob.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/** The /_sim/ control plane, driven over HTTP as the demo and chaos harness do from another process. */
class ControlPlaneIT extends SimulatorPerTest {

    ControlPlaneIT() {
        super(SimulatorConfig.defaults().withName("control-it"));
    }

    @Test
    void healthSaysOkWithNameAndPort() throws Exception {
        // when
        HttpResponse<String> response = call("GET", "/_sim/health", null);

        // then
        assertEquals(200, response.statusCode());
        JsonNode health = SimHttp.json(response.body());
        assertEquals("ok", health.get("status").asText());
        assertEquals("control-it", health.get("name").asText());
        assertEquals(simulator.port(), health.get("port").asInt());
    }

    @Test
    void putBehaviourSetsTheDefaultAndDeleteResetsIt() throws Exception {
        // when
        HttpResponse<String> put = call("PUT", "/_sim/behaviour", "{\"kind\":\"status\",\"status\":429,\"retry_after_s\":5}");
        HttpResponse<String> limited = http.openAi(SimHttp.openAiBody("p", null), null);
        HttpResponse<String> delete = call("DELETE", "/_sim/behaviour", null);
        HttpResponse<String> normal = http.openAi(SimHttp.openAiBody("p", null), null);

        // then
        assertEquals(200, put.statusCode());
        assertEquals(429, SimHttp.json(put.body()).get("status").asInt());
        assertEquals(429, limited.statusCode());
        assertEquals("5", limited.headers().firstValue("Retry-After").orElseThrow());
        assertEquals(204, delete.statusCode());
        assertEquals(200, normal.statusCode());
    }

    @Test
    void putKeyedBehaviourAppliesOnlyToThatKeyAndIsDescribed() throws Exception {
        // when
        call("PUT", "/_sim/behaviour/attempt-42", "{\"kind\":\"reset\",\"one_shot\":true}");
        JsonNode described = SimHttp.json(call("GET", "/_sim/behaviour", null).body());
        int otherKey = http.openAi(SimHttp.openAiBody("p", null), "attempt-41").statusCode();
        boolean keyedFailed = failsWithIoException("attempt-42");
        int keyedAgain = http.openAi(SimHttp.openAiBody("p", null), "attempt-42").statusCode();

        // then
        assertEquals("answer", described.at("/default/kind").asText());
        assertEquals("reset", described.at("/by_idempotency_key/attempt-42/kind").asText());
        assertTrue(described.at("/by_idempotency_key/attempt-42/one_shot").asBoolean());
        assertEquals(200, otherKey);
        assertTrue(keyedFailed);
        assertEquals(200, keyedAgain);
    }

    @Test
    void invalidBehaviourSpecIsA400NamingTheProblem() throws Exception {
        // when
        HttpResponse<String> response = call("PUT", "/_sim/behaviour", "{\"kind\":\"status\",\"status\":200}");

        // then
        assertEquals(400, response.statusCode());
        assertTrue(SimHttp.json(response.body()).get("error").asText().contains("status"), response.body());
    }

    @Test
    void ledgerIsListedAsJsonAndDeleteClearsIt() throws Exception {
        // given
        http.openAi(SimHttp.openAiBody("p", null), "k-1");
        http.anthropic(SimHttp.ANTHROPIC, SimHttp.anthropicBody("p", null), "k-2");

        // when
        JsonNode ledger = SimHttp.json(call("GET", "/_sim/ledger", null).body());
        LedgerEntry secondInJava = simulator.ledger().get(1);
        int cleared = call("DELETE", "/_sim/ledger", null).statusCode();
        JsonNode afterClear = SimHttp.json(call("GET", "/_sim/ledger", null).body());

        // then
        assertEquals(2, ledger.size());
        assertEquals("k-1", ledger.at("/0/idempotency_key").asText());
        assertEquals("openai-chat", ledger.at("/0/protocol").asText());
        assertEquals("anthropic-messages", ledger.at("/1/protocol").asText());
        assertEquals(200, ledger.at("/1/status").asInt());
        assertEquals(secondInJava, LedgerEntry.fromJson(ledger.get(1)));
        assertEquals(204, cleared);
        assertEquals(0, afterClear.size());
    }

    @Test
    void refuseForMsRefusesConnectionsThenReopensTheSamePortByItself() throws Exception {
        // when
        HttpResponse<String> response = call("PUT", "/_sim/refuse", "{\"refuse\":true,\"for_ms\":700}");

        // then
        assertEquals(202, response.statusCode());
        assertTrue(eventually(() -> !ConnectionBehaviourIT.canConnect(simulator.port())), "port never refused");
        assertTrue(eventually(() -> ConnectionBehaviourIT.canConnect(simulator.port())), "port never reopened");
        assertEquals(200, call("GET", "/_sim/health", null).statusCode());
    }

    @Test
    void refuseWithoutForMsIsRejectedBecauseNothingCouldEndIt() throws Exception {
        // when
        HttpResponse<String> response = call("PUT", "/_sim/refuse", "{\"refuse\":true}");

        // then
        assertEquals(400, response.statusCode());
        assertFalse(simulator.isRefusingConnections());
    }

    @Test
    void tokenCountAdjustmentIsSetOverHttp() throws Exception {
        // given
        var body = SimHttp.anthropicBody("p", null);
        long before = SimHttp.json(http.anthropic(SimHttp.COUNT_TOKENS, body, null).body()).get("input_tokens").asLong();

        // when
        int status = call("PUT", "/_sim/token-count", "{\"multiplier\":10,\"offset\":3}").statusCode();
        long after = SimHttp.json(http.anthropic(SimHttp.COUNT_TOKENS, body, null).body()).get("input_tokens").asLong();

        // then
        assertEquals(200, status);
        assertEquals(before * 10 + 3, after);
    }

    @Test
    void controlPlaneCallsAreNotLedgeredAndUnknownPathsAre404() throws Exception {
        // when
        call("GET", "/_sim/health", null);
        int unknownControl = call("GET", "/_sim/nope", null).statusCode();
        int unknown = call("GET", "/v2/whatever", null).statusCode();
        int wrongMethod = call("POST", "/_sim/ledger", "{}").statusCode();

        // then
        assertEquals(404, unknownControl);
        assertEquals(404, unknown);
        assertEquals(405, wrongMethod);
        assertEquals(0, simulator.ledger().size());
    }

    private boolean failsWithIoException(String idempotencyKey) throws InterruptedException {
        try {
            http.openAi(SimHttp.openAiBody("p", null), idempotencyKey);
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    private HttpResponse<String> call(String method, String path, String json) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(simulator.baseUrl() + path))
                .header("Content-Type", "application/json")
                .method(method, json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json));
        return http.send(request.build());
    }

    private static boolean eventually(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline) {
            if (condition.getAsBoolean()) {
                return true;
            }
            Thread.sleep(5);
        }
        return false;
    }
}
