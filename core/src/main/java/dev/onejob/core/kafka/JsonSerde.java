package dev.onejob.core.kafka;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.json.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/** JSON values on the wire, as Jackson trees. A record that is not JSON fails with a {@link SerializationException}
 * naming the reason, so a consumer can dead-letter it instead of crashing. */
public final class JsonSerde implements Serde<JsonNode> {
    @Override
    public Serializer<JsonNode> serializer() {
        return (topic, value) -> value == null ? null : Json.write(value).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public Deserializer<JsonNode> deserializer() {
        return (topic, bytes) -> {
            if (bytes == null) {
                return null;
            }
            try {
                return Json.MAPPER.readTree(bytes);
            } catch (IOException e) {
                throw new SerializationException("record on " + topic + " is not valid JSON: " + e.getMessage(), e);
            }
        };
    }
}
