package dev.onejob.providers.certify;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.certification.CertificationCheck;
import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.config.ProviderProtocol;
import dev.onejob.core.contract.Contract;
import dev.onejob.core.contract.Prompt;
import dev.onejob.core.json.Json;
import dev.onejob.providers.AnthropicTokenCounter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;

/**
 * The {@code tokenizer} check: every golden prompt, counted with the provider's own tokenizer, leaves room for the
 * contract's {@code max_tokens} within the provider's {@code context_window}; for openai-chat the tokens also
 * decode back to exactly the prompt text.
 *
 * <p>Consumes a provider and a contract; produces one {@link CertificationCheck}. The count of a prompt is:
 * <ul>
 *   <li>openai-chat: jtokkit with the provider's {@code tokenizer} on the rendered system text, the rendered user
 *   text and the compact JSON of the output schema (sent as {@code response_format}), plus
 *   {@value #OPENAI_FRAMING_TOKENS} tokens of message framing (3 per message and 1 per role for the two messages, 3
 *   to prime the reply, as OpenAI's cookbook counts chat messages). An estimate that leans high, as a limit check
 *   should; a tokenizer name jtokkit does not know fails the check.</li>
 *   <li>anthropic-messages: the provider's own {@code count_tokens} endpoint ({@link AnthropicTokenCounter}) on the
 *   same system, user message and forced tool the real call sends. There is no local tokenizer, so the decode round
 *   trip is proven end to end by {@link RoundTripCheck} instead.</li>
 * </ul>
 * Holds the token counter (lent by the provider adapters); owns nothing else.
 */
final class TokenizerCheck {
    static final String NAME = "tokenizer";
    static final int OPENAI_FRAMING_TOKENS = 2 * (3 + 1) + 3;
    /** What each further message of a conversation adds: 3 per message and 1 for its role. */
    static final int OPENAI_TOKENS_PER_MESSAGE = 3 + 1;

    private final AnthropicTokenCounter anthropicCounter;

    TokenizerCheck(AnthropicTokenCounter anthropicCounter) {
        this.anthropicCounter = anthropicCounter;
    }

    CertificationCheck check(ProviderConfig provider, Contract contract) {
        Optional<OpenAiTokens> local = Optional.empty();
        if (provider.protocol() == ProviderProtocol.OPENAI_CHAT) {
            local = OpenAiTokens.forName(provider.tokenizer());
            if (local.isEmpty()) {
                return CertificationCheck.of(NAME, false, "tokenizer '" + provider.tokenizer() + "' of "
                        + provider.id() + " is not an OpenAI encoding jtokkit knows (o200k_base, cl100k_base, "
                        + "p50k_base, r50k_base)", null);
            }
        }
        String tokenizer = local.map(OpenAiTokens::name).orElse("count_tokens of " + provider.id());
        ObjectNode details = Json.object().put("tokenizer", tokenizer).put("context_window", provider.contextWindow())
                .put("max_tokens", contract.maxTokens());
        long largestNeeded = 0;
        ArrayNode inputs = details.putArray("inputs");
        List<String> failures = new ArrayList<>();
        long largest = 0;
        for (int i = 0; i < contract.golden().size(); i++) {
            ObjectNode entry = inputs.addObject().put("input", GoldenCall.inputLabel(i));
            String problem = measure(provider, contract, i, local, entry);
            if (problem != null) {
                entry.put("problem", problem);
                failures.add(GoldenCall.inputLabel(i) + ": " + problem);
            } else {
                largest = Math.max(largest, entry.get("prompt_tokens").asLong());
                largestNeeded = Math.max(largestNeeded, entry.get("needed").asLong());
            }
        }
        if (contract.golden().isEmpty()) {
            failures.add("the contract has no golden inputs to count");
        }
        if (!failures.isEmpty()) {
            return CertificationCheck.of(NAME, false, Text.shorten(String.join("; ", failures)), details);
        }
        return CertificationCheck.of(NAME, true, "largest prompt " + largest + " tokens (" + tokenizer
                + ") + max_tokens: at most " + largestNeeded
                + " <= context_window " + provider.contextWindow()
                + (local.isPresent() ? "; every prompt decodes back exactly" : ""), details);
    }

    /** Counts one golden prompt into {@code entry}; returns why it fails, or {@code null}. */
    private String measure(ProviderConfig provider, Contract contract, int input, Optional<OpenAiTokens> local,
                           ObjectNode entry) {
        Prompt prompt;
        try {
            prompt = contract.prompt(contract.golden().get(input).variables());
        } catch (IllegalArgumentException e) {
            return "cannot be counted: " + e.getMessage();
        }
        String system = prompt.system();
        String user = prompt.conversationText();
        long tokens;
        if (local.isPresent()) {
            OpenAiTokens encoding = local.get();
            tokens = encoding.count(system) + encoding.count(user)
                    + (prompt.structured() ? encoding.count(Json.write(prompt.outputSchema())) : 0)
                    + OPENAI_FRAMING_TOKENS + (long) OPENAI_TOKENS_PER_MESSAGE * (prompt.turns().size() - 1);
            boolean exact = encoding.decodesExactly(system) && encoding.decodesExactly(user);
            entry.put("decodes_exactly", exact);
            if (!exact) {
                return "the " + encoding.name() + " tokens of the prompt do not decode back to the same text";
            }
        } else {
            try {
                tokens = anthropicCounter.count(provider, prompt);
            } catch (AnthropicTokenCounter.CountFailed e) {
                return e.getMessage();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CancellationException("certification of " + provider.id() + " was interrupted");
            }
        }
        long needed = tokens + prompt.maxTokens();
        entry.put("prompt_tokens", tokens).put("needed", needed);
        if (needed > provider.contextWindow()) {
            return "prompt " + tokens + " tokens + max_tokens " + prompt.maxTokens() + " = " + needed
                    + " > context_window " + provider.contextWindow();
        }
        return null;
    }
}
