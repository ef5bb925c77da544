package dev.onejob.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class LedgerIT extends SimulatorPerTest {

    private static final String KEY = "sk-ledger-secret-123";

    LedgerIT() {
        super(SimulatorConfig.defaults().withName("ledger-it").withApiKey(KEY));
        http.withApiKey(KEY);
    }

    @Test
    void ledgerCountsConcurrentRequestsPerIdempotencyKey() throws Exception {
        // given 3 keys, sent 4, 2 and 1 times from threads released together
        List<String> keys = List.of("a", "a", "a", "a", "b", "b", "c");
        ExecutorService pool = Executors.newFixedThreadPool(keys.size());
        CountDownLatch gate = new CountDownLatch(1);
        try {
            for (String key : keys) {
                pool.submit(() -> {
                    gate.await();
                    return http.openAi(SimHttp.openAiBody("prompt", null), key).statusCode();
                });
            }

            // when
            gate.countDown();
            pool.shutdown();
            assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
        } finally {
            pool.shutdownNow();
        }

        // then
        assertEquals(4, simulator.requestsWithIdempotencyKey("a"));
        assertEquals(2, simulator.requestsWithIdempotencyKey("b"));
        assertEquals(1, simulator.requestsWithIdempotencyKey("c"));
        assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L), simulator.ledger().stream().map(LedgerEntry::sequence).toList());
    }

    @Test
    void entryRecordsWhatArrivedAndHowItWasAnswered() throws Exception {
        // given
        var body = SimHttp.openAiBody("prompt", null);
        Instant before = Instant.now();

        // when
        http.openAi(body, "k1");

        // then
        LedgerEntry entry = simulator.ledger().get(0);
        assertEquals(1, entry.sequence());
        assertFalse(entry.receivedAt().isBefore(before.minusMillis(1)));
        assertEquals("/v1/chat/completions", entry.path());
        assertEquals("openai-chat", entry.protocol());
        assertEquals("k1", entry.idempotencyKey());
        assertEquals("gpt-4o-mini", entry.model());
        assertEquals(Json.sha256Hex(body.toString()), entry.bodySha256());
        assertEquals("answer", entry.behaviour());
        assertEquals(200, entry.status());
        assertFalse(entry.answeredAt().isBefore(entry.receivedAt()));
        assertEquals(entry, LedgerEntry.fromJson(entry.toJson()));
    }

    @Test
    void aDelayedAnswerIsLedgeredWithTheTimeItWasAnswered() throws Exception {
        simulator.setDefaultBehaviour(Behaviour.answerAfter(Duration.ofMillis(300)));

        http.openAi(SimHttp.openAiBody("prompt", null), "slow");

        LedgerEntry entry = simulator.ledger().get(0);
        long waited = Duration.between(entry.receivedAt(), entry.answeredAt()).toMillis();
        assertTrue(waited >= 290 && waited < 5_000, "answered " + waited + " ms after it was received");
    }

    @Test
    void requestIsLedgeredBeforeItsBehaviourRuns() throws Exception {
        // given
        simulator.setDefaultBehaviour(Behaviour.hangForever());

        // when
        http.openAiAsync(SimHttp.openAiBody("prompt", null), "hanging");

        // then
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (simulator.requestsWithIdempotencyKey("hanging") == 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        LedgerEntry entry = simulator.ledger().get(0);
        assertEquals("hang", entry.behaviour());
        assertNull(entry.status());
        assertNull(entry.answeredAt());
    }

    @Test
    void wrongAndMissingKeysGet401AndNeitherKeyIsEverInTheLedger() throws Exception {
        // when
        int wrong = http.withApiKey("sk-wrong-key-456").openAi(SimHttp.openAiBody("p", null), "k").statusCode();
        int missing = http.withApiKey(null).openAi(SimHttp.openAiBody("p", null), "k").statusCode();
        int wrongAnthropic = http.withApiKey("sk-wrong-key-456")
                .anthropic(SimHttp.ANTHROPIC, SimHttp.anthropicBody("p", null), "k").statusCode();
        int right = http.withApiKey(KEY).openAi(SimHttp.openAiBody("p", null), "k").statusCode();

        // then
        assertEquals(List.of(401, 401, 401, 200), List.of(wrong, missing, wrongAnthropic, right));
        assertEquals(List.of(401, 401, 401, 200), simulator.ledger().stream().map(LedgerEntry::status).toList());
        assertEquals(LedgerEntry.REJECTED, simulator.ledger().get(0).behaviour());
        String everything = simulator.ledger().toString() + simulator.ledger().stream().map(LedgerEntry::toJson).toList();
        assertFalse(everything.contains(KEY), everything);
        assertFalse(everything.contains("sk-wrong-key-456"), everything);
    }

    @Test
    void perKeyBehaviourOverridesTheDefaultAndOneShotAppliesOnce() throws Exception {
        // given
        simulator.setDefaultBehaviour(Behaviour.status(503));
        simulator.setBehaviour("healthy", Behaviour.answer());
        simulator.setOneShotBehaviour("flaky", Behaviour.status(429, 1));

        // when
        int healthy = http.openAi(SimHttp.openAiBody("p", null), "healthy").statusCode();
        int other = http.openAi(SimHttp.openAiBody("p", null), "other").statusCode();
        int flakyFirst = http.openAi(SimHttp.openAiBody("p", null), "flaky").statusCode();
        int flakySecond = http.openAi(SimHttp.openAiBody("p", null), "flaky").statusCode();
        simulator.resetBehaviours();
        int afterReset = http.openAi(SimHttp.openAiBody("p", null), "other").statusCode();

        // then
        assertEquals(List.of(200, 503, 429, 503, 200), List.of(healthy, other, flakyFirst, flakySecond, afterReset));
    }

    @Test
    void clearingTheLedgerEmptiesItAndRestartsTheSequence() throws Exception {
        // given
        http.openAi(SimHttp.openAiBody("p", null), "k");

        // when
        simulator.clearLedger();
        http.openAi(SimHttp.openAiBody("p", null), "k");

        // then
        assertEquals(1, simulator.ledger().size());
        assertEquals(1, simulator.ledger().get(0).sequence());
        assertThrows(UnsupportedOperationException.class, () -> simulator.ledger().clear());
    }
}
