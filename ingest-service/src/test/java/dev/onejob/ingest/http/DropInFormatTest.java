package dev.onejob.ingest.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.billing.Usage;
import dev.onejob.core.contract.FinishReason;
import dev.onejob.core.json.Json;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How the two wire formats read a call into passthrough variables, and shape an answer. */
class DropInFormatTest {

    @Test
    void anOpenAiCallBecomesTheNeutralVariables() {
        // given
        JsonNode body = Json.parse("""
                {"model":"fast","messages":[
                  {"role":"system","content":"Be brief."},
                  {"role":"developer","content":[{"type":"text","text":"Answer in JSON."}]},
                  {"role":"user","content":"Hi"},
                  {"role":"assistant","content":"Hello"},
                  {"role":"user","content":[{"type":"text","text":"How "},{"type":"text","text":"are you?"}]}],
                 "temperature":0.2,"top_p":0.9,"max_completion_tokens":50,"stop":"END","user":"u-1","n":1,
                 "response_format":{"type":"json_schema","json_schema":{"name":"mood","strict":true,
                   "schema":{"type":"object","properties":{"mood":{"type":"string"}},"required":["mood"]}}},
                 "stream":true,"stream_options":{"include_usage":true}}""");

        // when
        DropInFormat.Call call = DropInApi.OPENAI.read(body);

        // then
        assertEquals(List.of(), call.problems());
        assertEquals("fast", call.model());
        assertTrue(call.stream() && call.includeUsage());
        assertEquals(Json.parse("""
                {"messages":[{"role":"user","content":"Hi"},{"role":"assistant","content":"Hello"},
                             {"role":"user","content":"How are you?"}],
                 "system":"Be brief.\\nAnswer in JSON.","temperature":0.2,"top_p":0.9,"max_tokens":50,
                 "stop":["END"],"output_schema":{"type":"object","properties":{"mood":{"type":"string"}},
                 "required":["mood"]},"schema_name":"mood","schema_strict":true}"""), call.variables());
    }

    @Test
    void aUsersImagesBecomeTheSameNeutralPartsFromEitherFormat() {
        // when one message with a text, a data URL image and a linked image comes in each format
        DropInFormat.Call openAi = DropInApi.OPENAI.read(Json.parse("""
                {"model":"fast","messages":[{"role":"user","content":[{"type":"text","text":"Compare"},
                  {"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}},
                  {"type":"image_url","image_url":{"url":"https://example.com/b.jpg"}}]}]}"""));
        DropInFormat.Call anthropic = DropInApi.ANTHROPIC.read(Json.parse("""
                {"model":"fast","max_tokens":10,"messages":[{"role":"user","content":[{"type":"text","text":"Compare"},
                  {"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}},
                  {"type":"image","source":{"type":"url","url":"https://example.com/b.jpg"}}]}]}"""));

        // then both are the same parts, in order
        JsonNode parts = Json.parse("""
                [{"type":"text","text":"Compare"},{"type":"image","url":"data:image/png;base64,iVBORw0KGgo="},
                 {"type":"image","url":"https://example.com/b.jpg"}]""");
        assertEquals(List.of(), openAi.problems());
        assertEquals(List.of(), anthropic.problems());
        assertEquals(parts, openAi.variables().at("/messages/0/content"));
        assertEquals(parts, anthropic.variables().at("/messages/0/content"));

        // and what no provider of the other protocol could read is refused by name
        DropInFormat.Call refused = DropInApi.ANTHROPIC.read(Json.parse("""
                {"model":"fast","max_tokens":10,"messages":[{"role":"user","content":[
                  {"type":"image","source":{"type":"file","file_id":"file_1"}},
                  {"type":"image","source":{"type":"base64","media_type":"image/bmp","data":"Qk0="}}]}]}"""));
        String all = String.join("\n", refused.problems());
        assertTrue(all.contains("content[0].source.type must be 'base64' or 'url'"), all);
        assertTrue(all.contains("content[1].source must be an http(s) URL or a data:image/"), all);
    }

    @Test
    void aJsonObjectResponseFormatAsksForAnyObject() {
        // when
        DropInFormat.Call call = DropInApi.OPENAI.read(Json.parse("""
                {"model":"fast","messages":[{"role":"user","content":"Answer in JSON: how are you?"}],
                 "response_format":{"type":"json_object"}}"""));

        // then it is the job's json_object variable, with no schema
        assertEquals(List.of(), call.problems());
        assertEquals(Json.parse("""
                {"messages":[{"role":"user","content":"Answer in JSON: how are you?"}],"json_object":true}"""),
                call.variables());
    }

    @Test
    void whatCannotBePassedThroughFaithfullyIsRefusedByName() {
        // when
        DropInFormat.Call call = DropInApi.OPENAI.read(Json.parse("""
                {"model":"fast","messages":[{"role":"user","content":[{"type":"input_audio","input_audio":{}}]},
                  {"role":"tool","content":"42"}],"tools":[],"logprobs":true,"n":2,
                 "response_format":{"type":"json_html"},"stream_options":{"include_usage":true}}"""));

        // then each is named
        String all = String.join("\n", call.problems());
        for (String named : List.of("tools", "logprobs", "'n' must be 1", "input_audio", "tool_call_id",
                "response_format",
                "'stream_options' is only allowed")) {
            assertTrue(all.contains(named), named + " in " + all);
        }
    }

    @Test
    void anAnthropicCallBecomesTheSameNeutralVariables() {
        // when
        DropInFormat.Call call = DropInApi.ANTHROPIC.read(Json.parse("""
                {"model":"careful","max_tokens":300,"system":[{"type":"text","text":"Be brief."}],
                 "messages":[{"role":"user","content":"Hi"}],"stop_sequences":["END"],"metadata":{"user_id":"u"},
                 "output_config":{"format":{"type":"json_schema","schema":{"type":"object"}}}}"""));

        // then
        assertEquals(List.of(), call.problems());
        assertEquals(Json.parse("""
                {"system":"Be brief.","messages":[{"role":"user","content":"Hi"}],"max_tokens":300,"stop":["END"],
                 "output_schema":{"type":"object"}}"""), call.variables());
        assertFalse(call.stream());
    }

    @Test
    void aToolConversationIsTheSameJobFromEitherFormat() {
        // given one agent step, as each SDK sends it
        DropInFormat.Call openAi = DropInApi.OPENAI.read(Json.parse("""
                {"model":"fast","max_tokens":300,"messages":[
                  {"role":"user","content":"Weather in Paris?"},
                  {"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function",
                    "function":{"name":"get_weather","arguments":"{\\"city\\":\\"Paris\\"}"}}]},
                  {"role":"tool","tool_call_id":"call_1","content":"sunny"}],
                 "tools":[{"type":"function","function":{"name":"get_weather","description":"Weather",
                   "parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}],
                 "tool_choice":"required","parallel_tool_calls":false}"""));
        DropInFormat.Call anthropic = DropInApi.ANTHROPIC.read(Json.parse("""
                {"model":"fast","max_tokens":300,"messages":[
                  {"role":"user","content":"Weather in Paris?"},
                  {"role":"assistant","content":[{"type":"tool_use","id":"call_1","name":"get_weather",
                    "input":{"city":"Paris"}}]},
                  {"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1","content":"sunny"}]}],
                 "tools":[{"name":"get_weather","description":"Weather",
                   "input_schema":{"type":"object","properties":{"city":{"type":"string"}}}}],
                 "tool_choice":{"type":"any","disable_parallel_tool_use":true}}"""));

        // then both read into the same neutral variables: the same job, whichever SDK retries it
        assertEquals(List.of(), openAi.problems());
        assertEquals(List.of(), anthropic.problems());
        assertEquals(openAi.variables(), anthropic.variables());
        assertEquals(Json.parse("""
                {"name":"get_weather","arguments":{"city":"Paris"},"id":"call_1"}"""),
                openAi.variables().at("/messages/1/tool_calls/0"));
        assertEquals(Json.parse("""
                {"type":"required","parallel":false}"""), openAi.variables().get("tool_choice"));
    }

    @Test
    void anAnswerThatCallsToolsIsWrittenInEachShape() {
        JsonNode call = Json.parse("""
                {"id":"call_9","name":"get_time","arguments":{"city":"Oslo"}}""");
        DropInFormat.Finished finished = new DropInFormat.Finished(new DropInFormat.Finished.Head("id-1", "fast", 7),
                "", new Usage(10, 2, 0), FinishReason.TOOL_CALLS, List.of(call));

        JsonNode openAi = DropInApi.OPENAI.answer(finished);
        assertTrue(openAi.at("/choices/0/message/content").isNull());
        assertEquals("{\"city\":\"Oslo\"}", openAi.at("/choices/0/message/tool_calls/0/function/arguments").asText());
        assertEquals("tool_calls", openAi.at("/choices/0/finish_reason").asText());
        JsonNode anthropic = DropInApi.ANTHROPIC.answer(finished);
        assertEquals(Json.parse("""
                [{"type":"tool_use","id":"call_9","name":"get_time","input":{"city":"Oslo"}}]"""),
                anthropic.get("content"));
        assertEquals("tool_use", anthropic.get("stop_reason").asText());
    }

    @Test
    void anAnthropicCallWithoutMaxTokensOrWithEmptyToolsIsRefused() {
        DropInFormat.Call call = DropInApi.ANTHROPIC.read(Json.parse("""
                {"model":"careful","messages":[{"role":"user","content":"Hi"}],"tools":[],
                 "thinking":{"type":"enabled","budget_tokens":1024}}"""));

        String all = String.join("\n", call.problems());
        assertTrue(all.contains("max_tokens") && all.contains("tools") && all.contains("thinking"), all);
    }

    @Test
    void answersHaveTheProvidersShapesWithTheWinnersUsage() {
        // given
        DropInFormat.Finished finished = new DropInFormat.Finished(new DropInFormat.Finished.Head("id-1", "fast", 7),
                "Hello", new Usage(100, 20, 30), null);

        // when
        JsonNode openAi = DropInApi.OPENAI.answer(finished);
        JsonNode anthropic = DropInApi.ANTHROPIC.answer(finished);

        // then
        assertEquals("Hello", openAi.at("/choices/0/message/content").asText());
        assertEquals(120, openAi.at("/usage/total_tokens").asLong());
        assertEquals(30, openAi.at("/usage/prompt_tokens_details/cached_tokens").asLong());
        assertEquals("Hello", anthropic.at("/content/0/text").asText());
        // Anthropic counts the uncached input apart from the cache reads
        assertEquals(70, anthropic.at("/usage/input_tokens").asLong());
        assertEquals(30, anthropic.at("/usage/cache_read_input_tokens").asLong());
    }

    @Test
    void aTruncatedAnswerSaysSoInEachFormat() {
        DropInFormat.Finished cut = new DropInFormat.Finished(new DropInFormat.Finished.Head("id-1", "fast", 7),
                "Hel", new Usage(10, 2, 0), FinishReason.LENGTH);
        DropInFormat.Finished whole = new DropInFormat.Finished(cut.head(), "Hello", new Usage(10, 2, 0), null);

        assertEquals("length", DropInApi.OPENAI.answer(cut).at("/choices/0/finish_reason").asText());
        assertEquals("max_tokens", DropInApi.ANTHROPIC.answer(cut).at("/stop_reason").asText());
        assertTrue(DropInApi.OPENAI.stream(cut.head(), false).end(cut).get(0).contains("\"finish_reason\":\"length\""));
        assertTrue(DropInApi.ANTHROPIC.stream(cut.head(), false).end(cut).get(1)
                .contains("\"stop_reason\":\"max_tokens\""));
        // a provider that said nothing onejob maps: the natural end, as before
        assertEquals("stop", DropInApi.OPENAI.answer(whole).at("/choices/0/finish_reason").asText());
        assertEquals("end_turn", DropInApi.ANTHROPIC.answer(whole).at("/stop_reason").asText());
    }

    @Test
    void aStreamEndsWithTheUsageAndDoneOnlyWhenAsked() {
        DropInFormat.Finished.Head head = new DropInFormat.Finished.Head("id-1", "fast", 7);
        DropInFormat.Finished finished = new DropInFormat.Finished(head, "", new Usage(1, 2, 0), null);
        List<String> withUsage = DropInApi.OPENAI.stream(head, true).end(finished);
        List<String> without = DropInApi.OPENAI.stream(head, false).end(finished);

        assertEquals(3, withUsage.size());
        assertTrue(withUsage.get(1).contains("\"completion_tokens\":2"), withUsage.get(1));
        assertEquals("data: [DONE]\n\n", withUsage.get(2));
        assertEquals(2, without.size());
        assertTrue(DropInApi.ANTHROPIC.stream(head, true).end(finished).get(2)
                .startsWith("event: message_stop\n"));
    }
}
