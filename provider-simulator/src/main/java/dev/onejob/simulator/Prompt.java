package dev.onejob.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.StringJoiner;

/**
 * Collects the texts of a chat request as the wire readers walk it.
 *
 * <p>Consumes system texts and (role, content) messages, where content is a string or an array of
 * {@code {"type":"text","text":...}} parts; produces the system text, the user text and the whole prompt
 * text of {@link SimRequest}, each joined by newlines. Owns only the texts of one request.
 */
final class Prompt {

    private final StringJoiner system = new StringJoiner("\n");
    private final StringJoiner user = new StringJoiner("\n");
    private final StringJoiner conversation = new StringJoiner("\n");

    void addSystem(String text) {
        system.add(text);
    }

    void addMessage(String role, String text) {
        conversation.add(text);
        if ("user".equals(role)) {
            user.add(text);
        }
    }

    String systemText() {
        return system.toString();
    }

    String userText() {
        return user.toString();
    }

    String promptText() {
        return system.length() == 0 ? conversation.toString() : system + "\n" + conversation;
    }

    /** The text of a content value; non-text parts (images, tool results) contribute nothing. */
    static String contentText(JsonNode content, String where) throws WireRejection {
        if (content != null && content.isTextual()) {
            return content.asText();
        }
        if (content == null || !content.isArray()) {
            throw Wire.badRequest(where + ": content must be a string or an array of content parts");
        }
        StringJoiner text = new StringJoiner("\n");
        for (JsonNode part : content) {
            String partText = Json.text(part, "text");
            if ("text".equals(Json.text(part, "type")) && partText != null) {
                text.add(partText);
            }
        }
        return text.toString();
    }
}
