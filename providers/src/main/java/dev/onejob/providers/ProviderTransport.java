package dev.onejob.providers;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.billing.Usage;
import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.contract.Contract;
import dev.onejob.core.contract.Prompt;
import dev.onejob.core.json.Json;
import dev.onejob.core.ledger.AttemptFailure;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The part of a provider call every wire protocol shares: API key lookup, the request head, the asynchronous
 * send, latency, the reading of the reply against the contract, and the deadlines.
 *
 * <p>Consumes a provider, a contract, a request body and a {@link WireFormat}; produces a {@link ProviderCall}.
 * Owns nothing: the HTTP client, the environment map and the deadline scheduler are lent by
 * {@link ProviderClients}.
 */
final class ProviderTransport {

    static final String IDEMPOTENCY_KEY = "Idempotency-Key";
    private static final int MAX_PROVIDER_MESSAGE = 300;
    /** Reads the one JSON value a parser starts at, whatever follows it. */
    private static final ObjectReader ONE_VALUE = Json.MAPPER.reader()
            .without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private static final Pattern USAGE_MEMBER =
            Pattern.compile("\"usage\"\\s*:\\s*\\{");

    private final HttpClient http;
    private final Map<String, String> env;
    private final ScheduledExecutorService timer;

    ProviderTransport(HttpClient http, Map<String, String> env, ScheduledExecutorService timer) {
        this.http = http;
        this.env = Map.copyOf(env);
        this.timer = timer;
    }

    HttpClient http() {
        return http;
    }

    /** The API key of {@code provider}, or {@code null} when it needs none. */
    String apiKey(ProviderConfig provider) throws ApiKeys.Problem {
        return ApiKeys.lookup(provider, env);
    }

    /** Sends {@code body} as {@code attemptId}'s request; returns at once. */
    ProviderCall call(ProviderConfig provider, Contract contract, JsonNode variables, UUID attemptId,
                      WireFormat wire, Function<Prompt, JsonNode> body) {
        return call(provider, contract, variables, attemptId, wire, body, null);
    }

    /**
     * Sends {@code body} as {@code attemptId}'s request; returns at once. With a {@code sink}, the request asks for a
     * stream, and each piece of answer goes to the sink as it arrives; the outcome is the same as unstreamed.
     */
    ProviderCall call(ProviderConfig provider, Contract contract, JsonNode variables, UUID attemptId,
                      WireFormat wire, Function<Prompt, JsonNode> body, ChunkSink sink) {
        long started = System.nanoTime();
        String apiKey;
        try {
            apiKey = apiKey(provider);
        } catch (ApiKeys.Problem problem) {
            return ProviderCall.completed(attemptId, CallOutcome.Failed.notSent(problem.code(), problem.getMessage(),
                    false, ProviderCall.since(started)));
        }
        WatchedBody watched;
        HttpRequest request;
        Prompt prompt;
        try {
            prompt = contract.prompt(variables);
            JsonNode built = body.apply(prompt);
            if (sink != null) {
                wire.asStream().accept((ObjectNode) built);
            }
            watched = new WatchedBody(Json.write(built).getBytes(StandardCharsets.UTF_8));
            request = request(provider, wire, apiKey, watched).header(IDEMPOTENCY_KEY, attemptId.toString())
                    .timeout(provider.hardTimeout()).build();
        } catch (IllegalArgumentException e) {
            // An unfilled template slot (variables not validated upstream) or a base URL the client refuses.
            return ProviderCall.completed(attemptId, CallOutcome.Failed.notSent("invalid_request",
                    ApiKeys.redact("the request could not be built: " + e.getMessage(), apiKey), false,
                    ProviderCall.since(started)));
        }
        long sent = System.nanoTime();
        // A streamed call's deadlines move with its pieces, and its length is bounded by max_duration; an unstreamed
        // one's run from sending.
        ProviderCall call = ProviderCall.withDeadlines(attemptId, provider.softTimeout(), provider.hardTimeout(),
                sink == null ? provider.hardTimeout() : provider.maxDuration(), sent, timer);
        int answerLimit = provider.answerLimit(prompt.maxTokens());
        CompletableFuture<HttpResponse<Body>> exchange = http.sendAsync(request,
                handler(wire, sink, call, answerLimit));
        // Given up at the hard deadline: the exchange is cancelled, and what it ended with is the call's last outcome
        // (an answer that completed first is kept).
        call.abortWith(() -> exchange.cancel(true), watched::seal);
        call.settleWith(exchange.handle((response, error) -> {
            Duration latency = ProviderCall.since(sent);
            CallOutcome result = error != null
                    ? OutcomeClassifier.forException(error, watched.mayHaveLeft(), latency)
                    : read(response, prompt, wire, latency, answerLimit);
            return ApiKeys.redact(result, apiKey);
        }));
        return call;
    }

    /**
     * A reply's body: the text as sent (an error's cut at {@link BoundedBody#ERROR_BYTES_LIMIT}), or for a stream the
     * reply it assembles to (or why it does not); {@code tooLarge}, for an answer longer than
     * {@link ProviderConfig#ANSWER_BYTES_LIMIT}, what was read of it instead of its text.
     */
    record Body(String text, SseReply.Assembled streamed, BoundedBody.Read tooLarge) {
    }

    /**
     * Reads a 2xx answer up to {@link ProviderConfig#ANSWER_BYTES_LIMIT} bytes (past them to its end, keeping only
     * its tail), an error's body up to {@link BoundedBody#ERROR_BYTES_LIMIT}, or, for a 2xx event stream asked for
     * with a sink, line by line as it arrives ({@link BoundedLines}), each line a sign of life for the call's
     * deadlines, keeping at most {@code answerLimit} characters of answer.
     */
    private static HttpResponse.BodyHandler<Body> handler(WireFormat wire, ChunkSink sink, ProviderCall call,
                                                          int answerLimit) {
        return info -> {
            boolean ok = info.statusCode() / 100 == 2;
            boolean stream = sink != null && ok && info.headers()
                    .firstValue("Content-Type").orElse("").toLowerCase(Locale.ROOT)
                    .startsWith("text/event-stream");
            if (!stream) {
                BoundedBody body = ok ? BoundedBody.answer(ProviderConfig.ANSWER_BYTES_LIMIT)
                        : BoundedBody.cut(BoundedBody.ERROR_BYTES_LIMIT);
                return HttpResponse.BodySubscribers.mapping(body, read -> read.text() == null
                        ? new Body(null, null, read) : new Body(read.text(), null, null));
            }
            SseReply reply = wire.stream().apply(sink).limitTo(answerLimit);
            call.activity();
            // Lines bounded like a whole answer: one longer than that can be no event of a readable answer.
            BoundedLines lines = new BoundedLines(new LiveLines(reply, call), ProviderConfig.ANSWER_BYTES_LIMIT,
                    reply::overlong);
            return HttpResponse.BodySubscribers.fromSubscriber(lines, read -> {
                SseReply.Assembled assembled = reply.assembled();
                return new Body(assembled.reply() == null ? null : Json.write(assembled.reply()), assembled, null);
            });
        };
    }

    /** A POST of {@code body} to the wire's path with the protocol's and the JSON headers, no timeout yet. */
    HttpRequest.Builder request(ProviderConfig provider, WireFormat wire, String apiKey, HttpRequest.BodyPublisher body) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(provider.baseUrl() + wire.path()))
                .header("Content-Type", "application/json")
                .header("Accept", "application/json")
                .POST(body);
        wire.headers().accept(builder, apiKey);
        return builder;
    }

    private static CallOutcome read(HttpResponse<Body> response, Prompt prompt, WireFormat wire,
                                    Duration latency, int answerLimit) {
        SseReply.Assembled streamed = response.body().streamed();
        String text = response.body().text();
        JsonNode envelope = parseOrNull(text);
        String requestId = requestId(response, wire, envelope);
        int status = response.statusCode();
        if (streamed != null && streamed.problem() != null) {
            // An error event is the provider saying it failed, as a 5xx would; a stream cut short may have been
            // finished (and billed) by the provider: nothing says the work was not done.
            return streamed.errorEvent()
                    ? OutcomeClassifier.forStatus(500, requestId, streamed.problem(), (Duration) null, latency)
                    : new CallOutcome.Unknown(streamed.problem() + "; the provider may have finished the answer",
                            latency);
        }
        if (status < 200 || status > 299) {
            return OutcomeClassifier.forStatus(status, requestId, providerMessage(envelope, text),
                    RetryAfter.of(response.headers(), Instant.now()).orElse(null), latency);
        }
        BoundedBody.Read over = response.body().tooLarge();
        if (over != null) {
            // Paid for like any answer too large (its usage is the last thing in the reply): billed, never failed
            // over; and read to its end without being kept, so its size costs no memory.
            JsonNode usage = usageAtEnd(over.tail());
            return new CallOutcome.Failed(AttemptFailure.ANSWER_TOO_LARGE, "the provider's "
                    + "reply is " + over.bytes() + " bytes, over the " + ProviderConfig.ANSWER_BYTES_LIMIT + " any "
                    + "reply may have; it was read to its end without being kept", false, true, status, requestId,
                    null, latency, usage == null ? null : wire.usage().apply(Json.object().set("usage", usage)));
        }
        Usage usage = envelope == null ? null : wire.usage().apply(envelope);
        WireFormat.Answer answer = envelope == null
                ? WireFormat.Answer.unusable("the provider's HTTP " + status + " reply is not a JSON document",
                        text)
                : wire.answer().apply(envelope, prompt);
        long answerChars = streamed != null ? streamed.answerChars()
                : answer.text() != null ? answer.text().length() : text == null ? 0 : text.length();
        if (streamed != null ? streamed.tooLarge() : answerChars > answerLimit) {
            // Paid for, and most likely as large from any provider: billed, never failed over.
            return new CallOutcome.Failed(AttemptFailure.ANSWER_TOO_LARGE, "the provider's "
                    + "answer is " + answerChars + " characters, over the " + answerLimit + " this call allows (the "
                    + "provider's max_answer_bytes, or 16 bytes for each of the call's " + prompt.maxTokens()
                    + " max_tokens)", false, true, status, requestId, null, latency, usage);
        }
        List<String> problems = answer.problem() != null ? List.of(answer.problem())
                : prompt.outputProblems(answer.json());
        if (!problems.isEmpty()) {
            return new CallOutcome.Failed("contract_violation", "the answer breaks contract " + prompt.contractId() + ": "
                    + String.join("; ", problems.stream().map(ProviderTransport::withoutRootPath).toList()), false,
                    true, status, requestId, answer.text(), latency, usage);
        }
        return new CallOutcome.Succeeded(answer.json(), requestId, latency, usage, answer.finishReason());
    }

    /**
     * The {@code usage} object at the end of a JSON reply cut from its start: the last {@code "usage": {...}} member
     * in {@code tail} that parses. Inside a JSON string a quote is escaped, so a member name found this way is one.
     */
    static JsonNode usageAtEnd(String tail) {
        Matcher member = USAGE_MEMBER.matcher(tail);
        char[] chars = tail.toCharArray();
        JsonNode found = null;
        while (member.find()) {
            int start = member.end() - 1;
            try (JsonParser parser = Json.MAPPER.createParser(chars, start,
                    chars.length - start)) {
                JsonNode value = ONE_VALUE.readTree(parser);
                if (value != null && value.isObject()) {
                    found = value;
                }
            } catch (IOException e) {
                // not a whole object here: a later match may be
            }
        }
        return found;
    }

    /** The validator names the root as an empty path (": required property ..."); the sentence reads better without. */
    private static String withoutRootPath(String problem) {
        return problem.startsWith(": ") ? problem.substring(2) : problem;
    }

    private static String requestId(HttpResponse<Body> response, WireFormat wire, JsonNode envelope) {
        return response.headers().firstValue(wire.requestIdHeader())
                .orElseGet(() -> envelope != null && envelope.path("id").isTextual() ? envelope.get("id").asText()
                        : null);
    }

    /** The provider's error text: {@code error.message} in both protocols, else the start of the body. */
    private static String providerMessage(JsonNode envelope, String body) {
        String message = envelope != null && envelope.path("error").path("message").isTextual()
                ? envelope.get("error").get("message").asText() : body;
        if (message == null) {
            return null;
        }
        String oneLine = message.strip().replaceAll("\\s+", " ");
        return oneLine.length() <= MAX_PROVIDER_MESSAGE ? oneLine : oneLine.substring(0, MAX_PROVIDER_MESSAGE) + "...";
    }

    private static JsonNode parseOrNull(String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        try {
            return Json.parse(text);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
