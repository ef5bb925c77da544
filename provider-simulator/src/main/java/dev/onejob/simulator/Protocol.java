package dev.onejob.simulator;

/**
 * The wire protocols the simulator speaks, with the name the ledger records for each.
 *
 * <p>Consumed by the handlers and the ledger; owns only the names.
 */
public enum Protocol {
    OPENAI_CHAT("openai-chat", "/v1/chat/completions"),
    ANTHROPIC_MESSAGES("anthropic-messages", "/v1/messages"),
    ANTHROPIC_COUNT_TOKENS("anthropic-count-tokens", "/v1/messages/count_tokens");

    private final String wireName;
    private final String path;

    Protocol(String wireName, String path) {
        this.wireName = wireName;
        this.path = path;
    }

    /** The ledger's name of this protocol, e.g. {@code openai-chat}. */
    public String wireName() {
        return wireName;
    }

    /** The request path this protocol is served on. */
    public String path() {
        return path;
    }
}
