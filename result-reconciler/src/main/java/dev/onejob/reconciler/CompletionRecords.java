package dev.onejob.reconciler;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.events.AttemptCompletion;
import dev.onejob.core.json.Json;
import dev.onejob.core.json.StorableText;
import dev.onejob.core.kafka.Topics;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Reading {@code attempt-completions} records, applying a poll of them to the ledger as one set, and the dead letter of
 * a record that cannot be applied.
 */
final class CompletionRecords {
    private CompletionRecords() {
    }

    /** A completion, or why the record is dead-lettered before it reaches the ledger. */
    static Object read(ConsumerRecord<byte[], byte[]> record) {
        if (record.value() == null) {
            return "the record has no value";
        }
        AttemptCompletion completion;
        try {
            JsonNode tree = Json.MAPPER.readTree(record.value());
            Optional<String> unstorable = StorableText.problem(tree);
            if (unstorable.isPresent()) {
                return "the completion cannot be stored: " + unstorable.get();
            }
            completion = AttemptCompletion.fromJson(tree);
        } catch (IOException e) {
            return "the value is not valid JSON: " + e.getMessage().lines().findFirst().orElse("");
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
        if (record.key() == null || !completion.jobId().toString().equals(new String(record.key(),
                StandardCharsets.UTF_8))) {
            return "the record key must be the job id " + completion.jobId();
        }
        return completion;
    }

    /**
     * Applies the readable completions of a poll to the ledger as one set ({@link CompletionHandler#applyAll}); per
     * record, in order, why it is dead-lettered (unreadable, or rejected by the ledger), or null when it was applied.
     */
    static String[] applyAll(List<ConsumerRecord<byte[], byte[]>> all, CompletionHandler handler) {
        String[] reasons = new String[all.size()];
        List<AttemptCompletion> readable = new ArrayList<>(all.size());
        List<Integer> readableIndex = new ArrayList<>(all.size());
        for (int i = 0; i < all.size(); i++) {
            Object read = read(all.get(i));
            if (read instanceof AttemptCompletion completion) {
                readable.add(completion);
                readableIndex.add(i);
            } else {
                reasons[i] = (String) read;
            }
        }
        List<CompletionHandler.Applied> applied = handler.applyAll(readable);
        for (int k = 0; k < applied.size(); k++) {
            if (applied.get(k) instanceof CompletionHandler.Rejected rejected) {
                reasons[readableIndex.get(k)] = rejected.reason();
            }
        }
        return reasons;
    }
}
