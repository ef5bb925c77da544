package dev.onejob.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class BehaviourJsonTest {

    static Stream<Behaviour> everyKind() {
        return Stream.of(new Behaviour.Answer(250), new Behaviour.Hang(null), new Behaviour.Hang(1500L),
                new Behaviour.Status(429, 3), new Behaviour.Status(500, null), new Behaviour.MalformedJson(),
                new Behaviour.InventKey("reasoning"), new Behaviour.DropField("summary", 3),
                new Behaviour.DropField(null, 1), new Behaviour.IgnoreFormat(), new Behaviour.MangleNonAscii(),
                new Behaviour.Reset(), new Behaviour.Lognormal(1_000, 8_000), new Behaviour.FailMidStream(null),
                new Behaviour.FailMidStream(3), new Behaviour.Status(529, 2, 1500L, 30_000L),
                new Behaviour.Status(429, null, null, 250L), new Behaviour.Paced(150, 1_000),
                new Behaviour.Paced(1, 0), new Behaviour.Paced(120, 500, true), new Behaviour.LargeAnswer(600 * 1024),
                new Behaviour.LargeAnswer(1), new Behaviour.PoisonAnswer("oversize", 1024),
                new Mix(0.25, new Behaviour.Status(429, 1), new Behaviour.Answer(0)));
    }

    @Test
    void lognormalDelaysHaveTheAskedMedianAndNinetyNinthPercentile() {
        // given 100,000 draws with a fixed seed
        Behaviour.Lognormal lognormal = new Behaviour.Lognormal(1_000, 8_000);
        Random random = new Random(42);
        long[] draws = new long[100_000];
        for (int i = 0; i < draws.length; i++) {
            draws[i] = lognormal.drawMs(random);
        }
        Arrays.sort(draws);

        // then the empirical median and p99 are within 5% of the asked ones
        assertEquals(1_000, draws[draws.length / 2], 50);
        assertEquals(8_000, draws[(int) (draws.length * 0.99)], 400);
    }

    @Test
    void everyBehaviourTakesTheTripItsKindNamedAsTheSpecReadsIt() {
        // given every kind of behaviour there is
        Set<Class<?>> permitted = Set.of(Behaviour.class.getPermittedSubclasses());

        // then the trip below takes each, and its kind is its spec's (its name in snake case)
        assertEquals(permitted, everyKind().map(Object::getClass).collect(Collectors.toSet()));
        assertEquals("fail_mid_stream", new Behaviour.FailMidStream(null).kind());
        assertEquals("mangle_non_ascii", new Behaviour.MangleNonAscii().kind());
    }

    @ParameterizedTest
    @MethodSource("everyKind")
    void everyKindSurvivesTheTripThroughItsSpec(Behaviour behaviour) {
        // when
        BehaviourJson.Spec parsed = BehaviourJson.parse(BehaviourJson.write(behaviour, true));

        // then
        assertEquals(behaviour, parsed.behaviour());
        assertTrue(parsed.oneShot());
    }

    @Test
    void timesSurvivesTheTripAndIsNotOneShot() {
        // given
        String spec = "{\"kind\":\"status\",\"status\":429,\"retry_after_s\":1,\"times\":2}";

        // when
        BehaviourJson.Spec parsed = BehaviourJson.parse(SimHttp.json(spec));
        BehaviourJson.Spec again = BehaviourJson.parse(BehaviourJson.write(parsed));

        // then
        assertEquals(new BehaviourJson.Spec(Behaviour.status(429, 1), false, 2), parsed);
        assertEquals(parsed, again);
    }

    @Test
    void newStatusHeadersAreWrittenOnlyWhenSet() {
        // when
        var plain = BehaviourJson.write(Behaviour.status(503), false);
        var refusal = BehaviourJson.write(Behaviour.status(429, 1).withRetryAfterMs(250).withResetAfterMs(6_000), false);

        // then
        assertFalse(plain.has("retry_after_ms") || plain.has("reset_after_ms"), plain.toString());
        assertEquals(250, refusal.get("retry_after_ms").asLong());
        assertEquals(6_000, refusal.get("reset_after_ms").asLong());
    }

    @Test
    void omittedFieldsTakeTheirDocumentedDefaults() {
        // when
        Behaviour answer = BehaviourJson.parse(SimHttp.json("{\"kind\":\"answer\"}")).behaviour();
        Behaviour invent = BehaviourJson.parse(SimHttp.json("{\"kind\":\"invent_key\"}")).behaviour();
        BehaviourJson.Spec drop = BehaviourJson.parse(SimHttp.json("{\"kind\":\"drop_field\"}"));

        // then
        assertEquals(new Behaviour.Answer(0), answer);
        assertEquals(new Behaviour.InventKey("confidence"), invent);
        assertEquals(new Behaviour.DropField(null, 1), drop.behaviour());
        assertFalse(drop.oneShot());
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "{\"kind\":\"explode\"}",
        "{\"delay_ms\":5}",
        "{\"kind\":\"answer\",\"delay\":5}",
        "{\"kind\":\"answer\",\"delay_ms\":-1}",
        "{\"kind\":\"status\"}",
        "{\"kind\":\"status\",\"status\":200}",
        "{\"kind\":\"drop_field\",\"every_nth\":0}",
        "{\"kind\":\"hang\",\"answer_after_ms\":\"soon\"}",
        "{\"kind\":\"reset\",\"one_shot\":\"yes\"}",
        "{\"kind\":\"lognormal\",\"median_ms\":2000,\"p99_ms\":1000}",
        "{\"kind\":\"lognormal\",\"median_ms\":0}",
        "{\"kind\":\"fail_mid_stream\",\"after_events\":-1}",
        "{\"kind\":\"fail_mid_stream\",\"after\":3}",
        "{\"kind\":\"status\",\"status\":429,\"retry_after_ms\":-1}",
        "{\"kind\":\"status\",\"status\":429,\"reset_after_ms\":\"soon\"}",
        "{\"kind\":\"status\",\"status\":429,\"reset_after\":5}",
        "{\"kind\":\"paced\",\"interval_ms\":100}",
        "{\"kind\":\"paced\",\"pieces\":5}",
        "{\"kind\":\"paced\",\"pieces\":0,\"interval_ms\":100}",
        "{\"kind\":\"paced\",\"pieces\":5,\"interval_ms\":-1}",
        "{\"kind\":\"paced\",\"pieces\":5,\"interval_ms\":1.5}",
        "{\"kind\":\"paced\",\"pieces\":99999999999,\"interval_ms\":1}",
        "{\"kind\":\"paced\",\"pieces\":5,\"interval_ms\":100,\"size_bytes\":9}",
        "{\"kind\":\"large_answer\"}",
        "{\"kind\":\"large_answer\",\"size_bytes\":0}",
        "{\"kind\":\"large_answer\",\"size_bytes\":67108865}",
        "{\"kind\":\"large_answer\",\"size_bytes\":1000,\"flavour\":\"oversize\"}",
        "{\"kind\":\"answer\",\"times\":0}",
        "{\"kind\":\"answer\",\"times\":\"2\"}",
        "{\"kind\":\"answer\",\"times\":2,\"one_shot\":true}",
        "[]"})
    void invalidSpecsAreRejectedWithAMessage(String spec) {
        // when
        IllegalArgumentException error =
                assertThrows(IllegalArgumentException.class, () -> BehaviourJson.parse(SimHttp.json(spec)));

        // then
        assertFalse(error.getMessage().isBlank());
    }
}
