package dev.onejob.providers.certify;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingRegistry;
import com.knuddels.jtokkit.api.IntArrayList;
import java.util.Optional;

/**
 * An OpenAI tokenizer ({@code o200k_base}, {@code cl100k_base}, ...) from jtokkit, run locally.
 *
 * <p>Consumes text; produces its tokens, their count, and whether decoding them gives the text back. Text is
 * encoded as ordinary text: a prompt that happens to contain {@code <|endoftext|>} is counted as the characters it
 * is, as the API counts user content. The registry is lazy, so only the encodings in use are loaded (each is a few
 * MB of merge ranks); encodings are thread-safe and shared.
 */
final class OpenAiTokens {
    private static final EncodingRegistry REGISTRY = Encodings.newLazyEncodingRegistry();

    private final Encoding encoding;

    private OpenAiTokens(Encoding encoding) {
        this.encoding = encoding;
    }

    /** The encoding named {@code name} (a provider's {@code tokenizer}); empty when jtokkit has none of that name. */
    static Optional<OpenAiTokens> forName(String name) {
        return name == null ? Optional.empty() : REGISTRY.getEncoding(name).map(OpenAiTokens::new);
    }

    String name() {
        return encoding.getName();
    }

    IntArrayList encode(String text) {
        return encoding.encodeOrdinary(text);
    }

    int count(String text) {
        return encoding.countTokensOrdinary(text);
    }

    /** Whether the tokens of {@code text} decode to exactly {@code text} (no lost or replaced character). */
    boolean decodesExactly(String text) {
        return encoding.decode(encode(text)).equals(text);
    }
}
