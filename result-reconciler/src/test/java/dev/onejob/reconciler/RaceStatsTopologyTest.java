package dev.onejob.reconciler;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.json.Json;
import dev.onejob.core.kafka.JsonSerde;
import dev.onejob.core.kafka.Topics;
import java.time.Instant;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.Test;

class RaceStatsTopologyTest {

    private static JsonNode audit(String winner, String loser) {
        String winning = winner == null ? "null" : "{\"attempt_id\":\"w\",\"number\":2,\"provider\":\"" + winner + "\"}";
        return Json.parse("{\"job_id\":\"j\",\"winning_attempt\":" + winning + ",\"losing_attempt\":{\"attempt_id\":\"l\","
                + "\"number\":1,\"provider\":\"" + loser + "\"},\"reason\":\"lost-cas\"}");
    }

    @Test
    void lostRacesAreCountedPerProviderPairPerHour() {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "race-stats-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        // given the topology (the completion branch is not fed here)
        try (TopologyTestDriver driver = new TopologyTestDriver(RaceStatsTopology.build(), props)) {
            var audits = driver.createInputTopic(Topics.RACE_AUDIT.name(), new StringSerializer(),
                    new JsonSerde().serializer());
            var stats = driver.createOutputTopic(Topics.RACE_AUDIT_STATS.name(), new StringDeserializer(),
                    new JsonSerde().deserializer());
            Instant hour = Instant.parse("2026-12-02T10:00:00Z");

            // when three races are lost in one hour (two backup-over-primary, one to a cancel) and one the next hour
            audits.pipeInput("j1", audit("backup", "primary"), hour.plusSeconds(60));
            audits.pipeInput("j2", audit("backup", "primary"), hour.plusSeconds(120));
            audits.pipeInput("j3", audit(null, "primary"), hour.plusSeconds(180));
            audits.pipeInput("j4", audit("backup", "primary"), hour.plusSeconds(3600 + 5));

            // then each window's running count per pair comes out
            List<KeyValue<String, JsonNode>> out = stats.readKeyValuesToList();
            assertEquals(4, out.size());
            assertEquals("backup->primary@2026-12-02T10:00:00Z", out.get(1).key);
            assertEquals(2, out.get(1).value.path("lost_races").asInt());
            assertEquals("none", out.get(2).value.path("winning_provider").asText());
            assertEquals(1, out.get(3).value.path("lost_races").asInt());
            assertEquals("2026-12-02T11:00:00Z", out.get(3).value.path("window_start").asText());
        }
    }
}
