package dev.onejob.providers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.json.Json;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Streamed replies read line by line into the reply the unstreamed call would have had, pieces handed on. */
class SseReplyTest {
    private final List<String> pieces = new ArrayList<>();
    private final boolean[] ended = {false};
    private final ChunkSink sink = new ChunkSink() {
        @Override
        public void piece(String text) {
            pieces.add(text);
        }

        @Override
        public void end() {
            ended[0] = true;
        }
    };

    private static SseReply.Assembled feed(SseReply reply, String body) {
        body.lines().forEach(reply::onNext);
        reply.onComplete();
        return reply.assembled();
    }

    @Test
    void anOpenAiStreamAssemblesToTheMessageAndItsUsage() {
        SseReply.Assembled assembled = feed(SseReply.openAi(sink), """
                data: {"id":"c1","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}],"usage":null}

                data: {"id":"c1","choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}],"usage":null}

                : keep-alive

                data: {"id":"c1","choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":"stop"}],"usage":null}

                data: {"id":"c1","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":2,"total_tokens":11}}

                data: [DONE]

                """);

        assertEquals(null, assembled.problem());
        assertEquals("Hello", assembled.reply().at("/choices/0/message/content").asText());
        assertEquals(9, OpenAiChatClient.usage(assembled.reply()).inputTokens());
        assertEquals(List.of("Hel", "lo"), pieces);
        assertTrue(ended[0]);
    }

    @Test
    void anAnthropicToolUseStreamAssemblesToItsInput() {
        SseReply.Assembled assembled = feed(SseReply.anthropic(sink), """
                event: message_start
                data: {"type":"message_start","message":{"id":"m1","type":"message","role":"assistant","content":[],"usage":{"input_tokens":12,"output_tokens":1,"cache_read_input_tokens":3}}}

                event: content_block_start
                data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"emit_result","input":{}}}

                event: ping
                data: {"type":"ping"}

                event: content_block_delta
                data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\\"sentiment\\":"}}

                event: content_block_delta
                data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"\\"positive\\"}"}}

                event: content_block_stop
                data: {"type":"content_block_stop","index":0}

                event: message_delta
                data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":7}}

                event: message_stop
                data: {"type":"message_stop"}

                """);

        assertEquals(null, assembled.problem());
        assertEquals(Json.parse("{\"sentiment\":\"positive\"}"), assembled.reply().at("/content/0/input"));
        assertEquals("tool_use", assembled.reply().path("stop_reason").asText());
        assertEquals(15, AnthropicMessagesClient.usage(assembled.reply()).inputTokens());
        assertEquals(7, AnthropicMessagesClient.usage(assembled.reply()).outputTokens());
        assertEquals(List.of("{\"sentiment\":", "\"positive\"}"), pieces);
    }

    @Test
    void aStreamCutShortOrEndingInAnErrorIsNoAnswer() {
        SseReply.Assembled cut = feed(SseReply.openAi(sink), """
                data: {"id":"c1","choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}

                """);
        SseReply.Assembled error = feed(SseReply.anthropic(sink), """
                event: error
                data: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}

                """);

        assertTrue(cut.problem().contains("before its end event"), cut.problem());
        assertFalse(cut.errorEvent());
        assertTrue(error.problem().contains("Overloaded"), error.problem());
        assertTrue(error.errorEvent());
        assertFalse(ended[0], "no end for a stream that did not end");
    }
}
