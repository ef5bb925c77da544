package dev.onejob.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A default rule for the next N requests only ({@code times}), then the default it replaced again. */
class BehaviourSequenceIT extends SimulatorPerTest {

    BehaviourSequenceIT() {
        super(SimulatorConfig.defaults().withName("sequence-it"));
    }

    @Test
    void theNextTwoRequestsAreRefusedWithRetryAfterThenEveryAttemptIsAnswered() throws Exception {
        // given
        HttpResponse<String> put = http.control("PUT", "/_sim/behaviour",
                "{\"kind\":\"status\",\"status\":429,\"retry_after_s\":1,\"times\":2}");

        // when each retry comes as a new attempt, with its own Idempotency-Key
        List<Integer> statuses = new ArrayList<>();
        List<String> retryAfters = new ArrayList<>();
        for (int attempt = 1; attempt <= 4; attempt++) {
            HttpResponse<String> response = http.openAi(SimHttp.openAiBody("hi", null), "attempt-" + attempt);
            statuses.add(response.statusCode());
            retryAfters.add(response.headers().firstValue("Retry-After").orElse("none"));
        }

        // then
        assertEquals(200, put.statusCode());
        assertEquals(2, SimHttp.json(put.body()).get("times").asInt());
        assertEquals(List.of(429, 429, 200, 200), statuses);
        assertEquals(List.of("1", "1", "none", "none"), retryAfters);
        assertEquals(2, simulator.usageExport().size());
        assertEquals("answer", described().at("/default/kind").asText());
    }

    @Test
    void theDefaultItReplacedAppliesAgainAfterwards() throws Exception {
        // given a permanent default, then a sequence on top of it
        simulator.setDefaultBehaviour(Behaviour.status(503));
        simulator.setDefaultBehaviour(Behaviour.status(429, 1), 2);

        // when
        JsonNode during = described();
        List<Integer> statuses = new ArrayList<>();
        for (int attempt = 1; attempt <= 4; attempt++) {
            statuses.add(http.anthropic(SimHttp.ANTHROPIC, SimHttp.anthropicBody("hi", null), "a-" + attempt)
                    .statusCode());
        }

        // then
        assertEquals(List.of(429, 429, 503, 503), statuses);
        assertEquals(2, during.at("/default/times").asInt());
        assertEquals(503, described().at("/default/status").asInt());
    }

    @Test
    void exactlyTimesConcurrentRequestsGetTheSequence() throws Exception {
        for (int round = 0; round < 5; round++) {
            // given
            simulator.setDefaultBehaviour(Behaviour.status(429, 1), 7);
            CountDownLatch gate = new CountDownLatch(1);
            List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                calls.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        gate.await();
                        return http.openAi(SimHttp.openAiBody("hi", null), UUID.randomUUID().toString());
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }, runnable -> new Thread(runnable).start()));
            }

            // when
            gate.countDown();
            int refused = 0;
            int answered = 0;
            for (CompletableFuture<HttpResponse<String>> call : calls) {
                int status = call.get(20, TimeUnit.SECONDS).statusCode();
                refused += status == 429 ? 1 : 0;
                answered += status == 200 ? 1 : 0;
            }

            // then
            assertEquals(7, refused, "round " + round);
            assertEquals(33, answered, "round " + round);
        }
    }

    @Test
    void aKeyedSequenceFallsBackToTheDefaultAfterItsUses() throws Exception {
        // given
        http.control("PUT", "/_sim/behaviour/job-7", "{\"kind\":\"status\",\"status\":500,\"times\":2}");

        // when
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            statuses.add(http.openAi(SimHttp.openAiBody("hi", null), "job-7").statusCode());
        }

        // then
        assertEquals(List.of(500, 500, 200), statuses);
        assertEquals(0, described().get("by_idempotency_key").size());
    }

    @Test
    void timesAndOneShotTogetherAreRejected() throws Exception {
        // when
        HttpResponse<String> response = http.control("PUT", "/_sim/behaviour",
                "{\"kind\":\"reset\",\"one_shot\":true,\"times\":2}");

        // then
        assertEquals(400, response.statusCode());
        assertEquals("answer", described().at("/default/kind").asText());
    }

    private JsonNode described() throws Exception {
        return SimHttp.json(http.control("GET", "/_sim/behaviour", null).body());
    }
}
