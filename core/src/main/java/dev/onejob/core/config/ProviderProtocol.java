package dev.onejob.core.config;

import java.util.Optional;

/** The wire protocols onejob speaks to providers. */
public enum ProviderProtocol {
    /** {@code POST {base_url}/v1/chat/completions}, OpenAI wire format (and OpenAI-compatible servers). */
    OPENAI_CHAT("openai-chat"),
    /** {@code POST {base_url}/v1/messages}, Anthropic wire format. */
    ANTHROPIC_MESSAGES("anthropic-messages");

    private final String wireName;

    ProviderProtocol(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }

    public static Optional<ProviderProtocol> fromWireName(String name) {
        for (ProviderProtocol p : values()) {
            if (p.wireName.equals(name)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }
}
