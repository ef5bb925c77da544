package dev.onejob.core.config;

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

    public static java.util.Optional<ProviderProtocol> fromWireName(String name) {
        for (ProviderProtocol p : values()) {
            if (p.wireName.equals(name)) {
                return java.util.Optional.of(p);
            }
        }
        return java.util.Optional.empty();
    }
}
