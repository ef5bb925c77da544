package dev.onejob.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.RawMessageStreamEvent;
import com.anthropic.models.messages.StopReason;
import com.openai.core.http.StreamResponse;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import dev.onejob.core.json.Json;
import dev.onejob.simulator.Behaviour;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Streamed drop-in calls ({@code "stream": true}) with the providers' official SDKs, against the whole pipeline: the
 * worker streams the provider call, the pieces travel on {@code attempt-chunks}, the ingest service relays them and
 * ends the stream once the result is in the ledger. The aliases are {@link DropInIT}'s.
 */
class DropInStreamIT {
    @RegisterExtension
    static final DropInPipeline dropIn = new DropInPipeline();

    @Test
    void streamingRelaysTheLiveAttemptAndAReplayStreamsTheStoredResult() {
        // given
        String key = DropInIT.key();

        // when the call is streamed
        String streamed;
        int pieces;
        try (StreamResponse<ChatCompletionChunk> stream = dropIn.openAi().chat().completions().createStreaming(
                DropInIT.chat("primary-only", key, "Tell me a long story about a parcel"))) {
            List<String> texts = stream.stream().flatMap(chunk -> chunk.choices().stream())
                    .flatMap(choice -> choice.delta().content().stream()).filter(t -> !t.isEmpty()).toList();
            streamed = String.join("", texts);
            pieces = texts.size();
        }

        // then it was relayed in several pieces, which make the job's stored answer
        assertTrue(pieces > 1, "pieces: " + pieces);
        String stored = dropIn.openAi().chat().completions()
                .create(DropInIT.chat("primary-only", key, "Tell me a long story about a parcel"))
                .choices().get(0).message().content().orElseThrow();
        assertEquals(stored, streamed);

        // and a replay of the finished job streams the stored result
        try (StreamResponse<ChatCompletionChunk> replay = dropIn.openAi().chat().completions().createStreaming(
                DropInIT.chat("primary-only", key, "Tell me a long story about a parcel"))) {
            assertEquals(stored, replay.stream().flatMap(chunk -> chunk.choices().stream())
                    .flatMap(choice -> choice.delta().content().stream()).collect(Collectors.joining()));
        }
    }

    @Test
    void aTruncatedStreamEndsWithTheProvidersReason() {
        // given calls whose output limit is shorter than the answer
        ChatCompletionCreateParams openAi = ChatCompletionCreateParams.builder().model("primary-only")
                .addUserMessage("Tell me a long story about a parcel").maxCompletionTokens(3)
                .putAdditionalHeader("Idempotency-Key", DropInIT.key()).build();
        MessageCreateParams anthropic = MessageCreateParams.builder().model("careful").maxTokens(3)
                .addUserMessage("Tell me a long story about a parcel")
                .putAdditionalHeader("Idempotency-Key", DropInIT.key()).build();

        // when both are streamed
        List<ChatCompletionChunk.Choice.FinishReason> reasons;
        try (StreamResponse<ChatCompletionChunk> stream = dropIn.openAi().chat().completions()
                .createStreaming(openAi)) {
            reasons = stream.stream().flatMap(chunk -> chunk.choices().stream())
                    .flatMap(choice -> choice.finishReason().stream()).toList();
        }
        List<StopReason> stops;
        try (var stream = dropIn.anthropic().messages().createStreaming(anthropic)) {
            stops = stream.stream().flatMap(event -> event.messageDelta().stream())
                    .flatMap(delta -> delta.delta().stopReason().stream()).toList();
        }

        // then each ends with its provider's reason for a cut answer
        assertEquals(List.of(ChatCompletionChunk.Choice.FinishReason.LENGTH), reasons);
        assertEquals(List.of(StopReason.MAX_TOKENS), stops);
    }

    @Test
    void anAnthropicStreamRelaysTheBackupsPieces() {
        // when
        MessageCreateParams params = MessageCreateParams.builder().model("careful").maxTokens(300)
                .addUserMessage("Tell me a long story about a parcel")
                .putAdditionalHeader("Idempotency-Key", DropInIT.key()).build();
        StringBuilder text = new StringBuilder();
        int[] deltas = {0};
        try (var stream = dropIn.anthropic().messages().createStreaming(params)) {
            stream.stream().forEach((RawMessageStreamEvent event) -> event.contentBlockDelta()
                    .flatMap(delta -> delta.delta().text()).ifPresent(t -> {
                        text.append(t.text());
                        deltas[0]++;
                    }));
        }

        // then
        assertTrue(deltas[0] > 1, "deltas: " + deltas[0]);
        assertEquals(dropIn.anthropic().messages().create(params).content().get(0).text().orElseThrow().text(),
                text.toString());
    }

    @Test
    void aStreamWhoseAttemptFailsEndsWithAnErrorNamingTheJob() {
        // given a primary that fails, and no fallback
        dropIn.pipeline().simulator("primary").setDefaultBehaviour(Behaviour.status(500));

        // when the call is streamed
        RuntimeException failed = assertThrows(RuntimeException.class, () -> {
            try (StreamResponse<ChatCompletionChunk> stream = dropIn.openAi().chat().completions().createStreaming(
                    DropInIT.chat("primary-only", DropInIT.key(), "Tell me a long story about a parcel"))) {
                stream.stream().forEach(chunk -> { });
            }
        });

        // then the stream ends with an error event naming the job and its state
        assertTrue(failed.getMessage().contains("job ") && failed.getMessage().contains("FAILED"), failed.toString());
    }

    @Test
    void aStreamCutShortLeavesTheAttemptUnknownAndTheStreamEndsNamingTheJob() {
        // given a primary whose stream breaks after three events: it may have finished (and billed) the answer
        dropIn.pipeline().simulator("primary").setDefaultBehaviour(Behaviour.failMidStream(3));
        String key = DropInIT.key();

        // when the call is streamed, waiting 3 s at most
        StringBuilder relayed = new StringBuilder();
        RuntimeException ended = assertThrows(RuntimeException.class, () -> {
            try (StreamResponse<ChatCompletionChunk> stream = dropIn.openAi().chat().completions().createStreaming(
                    DropInIT.chat("primary-only", key, "Tell me a long story about a parcel").toBuilder()
                            .putAdditionalHeader("Prefer", "wait=3").build())) {
                stream.stream().flatMap(chunk -> chunk.choices().stream())
                        .flatMap(choice -> choice.delta().content().stream()).forEach(relayed::append);
            }
        });

        // then the pieces that came were relayed, and the stream ended with an error naming the UNKNOWN attempt
        assertTrue(ended.getMessage().contains("UNKNOWN") && ended.getMessage().contains("job "), ended.toString());
        String jobId = Json.parse(dropIn.pipeline().send("GET", "/v1/jobs?idempotency_key=" + key, "alice", Map.of(),
                null).body()).path("id").asText();
        assertEquals("UNKNOWN", dropIn.pipeline().job(jobId).path("attempts").get(0).path("status").asText());
        assertEquals(1, dropIn.pipeline().job(jobId).path("attempts").size());
    }
}
