package dev.onejob.core.config;

import dev.onejob.core.events.WireName;
import java.util.Optional;

/** The wire protocols onejob speaks to providers, named in the providers file by their {@link WireName}. */
public enum ProviderProtocol implements WireName {
    /** {@code POST {base_url}/v1/chat/completions}, OpenAI wire format (and OpenAI-compatible servers). */
    OPENAI_CHAT,
    /** {@code POST {base_url}/v1/messages}, Anthropic wire format. */
    ANTHROPIC_MESSAGES;

    public static Optional<ProviderProtocol> fromWireName(String name) {
        return WireName.find(ProviderProtocol.class, name);
    }
}
