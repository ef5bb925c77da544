package dev.onejob.ingest.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.contract.Passthrough;
import dev.onejob.core.json.Json;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The images of a user message, read from either drop-in format into the passthrough contract's neutral parts
 * ({@code [{"type": "text", "text"}, {"type": "image", "url", "detail"}]}, in the caller's order): OpenAI's
 * {@code image_url} parts (a URL or a data URL, with {@code detail}), Anthropic's {@code image} blocks (a
 * {@code base64} source becomes a data URL, a {@code url} source its URL). onejob never fetches an image: a URL is
 * the provider's to fetch, and a data URL travels inside the call, within the body limit. Owns nothing.
 */
final class DropInImages {
    /** An http(s) URL, or a data URL of an image type both protocols take, base64. */
    private static final Pattern URL = Pattern.compile(
            "https?://\\S+|data:image/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+=*");
    private static final String URL_RULE = "an http(s) URL or a data:image/{png,jpeg,gif,webp};base64 URL";

    private DropInImages() {
    }

    /** Whether {@code content} is an array with an image part (OpenAI's {@code image_url}, Anthropic's image). */
    static boolean shown(JsonNode content, boolean anthropic) {
        if (content == null || !content.isArray()) {
            return false;
        }
        String type = anthropic ? "image" : "image_url";
        for (JsonNode part : content) {
            if (type.equals(part.path("type").asText())) {
                return true;
            }
        }
        return false;
    }

    /** The neutral parts of an OpenAI user message's content: text and {@code image_url} parts, nothing else. */
    static ArrayNode fromOpenAi(JsonNode content, String where, List<String> problems) {
        return parts(content, where, problems, "image_url", DropInImages::openAiImage,
                " part is not passed through (text and image_url are)");
    }

    /** The neutral parts of an Anthropic user message's content: text and {@code image} blocks, nothing else. */
    static ArrayNode fromAnthropic(JsonNode content, String where, List<String> problems) {
        return parts(content, where, problems, "image", DropInImages::anthropicImage,
                " block in a message with images is not passed through (text and image are)");
    }

    /** Reads one image part of a format into {@code parts}, or names what is wrong with it. */
    private interface ImageReader {
        void read(JsonNode part, String at, ArrayNode parts, List<String> problems);
    }

    /** The parts of {@code content}, in order: its texts, its images of {@code imageType}, and nothing else. */
    private static ArrayNode parts(JsonNode content, String where, List<String> problems, String imageType,
                                   ImageReader images, String refusal) {
        ArrayNode parts = Json.MAPPER.createArrayNode();
        for (int i = 0; i < content.size(); i++) {
            JsonNode part = content.get(i);
            String at = where + "[" + i + "]";
            String type = part.path("type").asText("");
            if ("text".equals(type)) {
                text(part, at, parts, problems);
            } else if (imageType.equals(type)) {
                images.read(part, at, parts, problems);
            } else {
                problems.add(at + ": a '" + part.path("type").asText("?") + "'" + refusal);
            }
        }
        return parts;
    }

    private static void openAiImage(JsonNode part, String at, ArrayNode parts, List<String> problems) {
        JsonNode image = part.path("image_url");
        ObjectNode neutral = image(image.get("url"), at + ".image_url.url", parts, problems);
        JsonNode detail = image.get("detail");
        if (neutral != null && detail != null && !detail.isNull()) {
            if (List.of("auto", "low", "high").contains(detail.asText())) {
                neutral.put("detail", detail.asText());
            } else {
                problems.add(at + ".image_url.detail must be 'auto', 'low' or 'high'");
            }
        }
    }

    private static void anthropicImage(JsonNode block, String at, ArrayNode parts, List<String> problems) {
        JsonNode source = block.path("source");
        switch (source.path("type").asText("")) {
            case "base64" -> image(Json.MAPPER.getNodeFactory().textNode("data:" + source.path("media_type").asText("?")
                    + ";base64," + source.path("data").asText("")), at + ".source", parts, problems);
            case "url" -> image(source.get("url"), at + ".source.url", parts, problems);
            default -> problems.add(at + ".source.type must be 'base64' or 'url' (a file id names a file at one "
                    + "provider, which no other could read)");
        }
    }

    private static void text(JsonNode part, String at, ArrayNode parts, List<String> problems) {
        if (part.path("text").isTextual()) {
            parts.addObject().put("type", "text").put("text", part.get("text").asText());
        } else {
            problems.add(at + ".text is required: a string");
        }
    }

    private static ObjectNode image(JsonNode url, String at, ArrayNode parts, List<String> problems) {
        if (url == null || !url.isTextual() || !URL.matcher(url.asText()).matches()) {
            problems.add(at + " must be " + URL_RULE);
            return null;
        }
        return parts.addObject().put("type", Passthrough.IMAGE).put("url", url.asText());
    }
}
