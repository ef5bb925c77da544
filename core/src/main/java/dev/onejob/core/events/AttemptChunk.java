package dev.onejob.core.events;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.json.Json;
import java.util.UUID;

/**
 * An {@code attempt-chunks} record ({@code events/attempt-chunk.v1.schema.json}): one piece of a streamed attempt's
 * answer, as the provider sent it, for the drop-in streams that relay it live. Pieces are numbered from 0 per attempt
 * with no gap; the last one says so (its text may be empty). A live view only: the job's result is always the one
 * the compare-and-swap wrote, and nothing is decided from a chunk.
 */
public record AttemptChunk(UUID jobId, UUID attemptId, int seq, String text, boolean last) {
    public static final int VERSION = 1;

    public ObjectNode toJson() {
        ObjectNode chunk = Json.object();
        chunk.put("job_id", jobId.toString());
        chunk.put("attempt_id", attemptId.toString());
        chunk.put("seq", seq);
        chunk.put("text", text);
        chunk.put("last", last);
        return chunk;
    }

    public static AttemptChunk fromJson(JsonNode node) {
        Fields.object(node, "the attempt-chunks record");
        JsonNode last = node.get("last");
        if (last == null || !last.isBoolean()) {
            throw new IllegalArgumentException("'last' must be true or false");
        }
        long seq = Fields.number(node, "seq");
        if (seq < 0 || seq > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("'seq' must be 0 or more");
        }
        JsonNode text = node.get("text");
        if (text == null || !text.isTextual()) {
            throw new IllegalArgumentException("'text' is missing or not a string");
        }
        return new AttemptChunk(Fields.uuid(node, "job_id"), Fields.uuid(node, "attempt_id"), (int) seq,
                text.asText(), last.asBoolean());
    }
}
