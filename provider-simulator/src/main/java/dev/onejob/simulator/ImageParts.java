package dev.onejob.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Base64;
import java.util.Set;

/**
 * Checks the image parts of a message as each provider does before it answers: OpenAI's {@code image_url} parts
 * ({@code image_url.url}, an http(s) or {@code data:image/...;base64,} URL), Anthropic's {@code image} blocks (a
 * {@code base64} source with a media type it takes and data that decodes, or a {@code url} source); a part of the
 * other protocol's shape is a 400, as it is at the provider. It never fetches a URL. Owns nothing.
 */
final class ImageParts {
    private static final Set<String> MEDIA_TYPES = Set.of("image/png", "image/jpeg", "image/gif", "image/webp");

    private ImageParts() {
    }

    static void check(JsonNode content, String where, boolean anthropic) throws WireRejection {
        if (content == null || !content.isArray()) {
            return;
        }
        for (int i = 0; i < content.size(); i++) {
            JsonNode part = content.get(i);
            String type = part.path("type").asText("");
            String at = anthropic ? where + "." + i : where + "[" + i + "]";
            if (anthropic ? "image_url".equals(type) : "image".equals(type)) {
                throw Wire.badRequest(at + ": Invalid value: '" + type + "' is not a content part type of this API");
            }
            if ("image_url".equals(type)) {
                checkUrl(part.path("image_url").path("url").asText(""), at + ".image_url.url");
            } else if ("image".equals(type)) {
                checkSource(part.path("source"), at + ".source");
            }
        }
    }

    private static void checkSource(JsonNode source, String at) throws WireRejection {
        switch (source.path("type").asText("")) {
            case "base64" -> {
                if (!MEDIA_TYPES.contains(source.path("media_type").asText())) {
                    throw Wire.badRequest(at + ".media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' "
                            + "or 'image/webp'");
                }
                decode(source.path("data").asText(""), at + ".data");
            }
            case "url" -> {
                if (!source.path("url").asText("").matches("https?://\\S+")) {
                    throw Wire.badRequest(at + ".url: Input should be a valid URL");
                }
            }
            default -> throw Wire.badRequest(at + ".type: Input should be 'base64' or 'url'");
        }
    }

    private static void checkUrl(String url, String at) throws WireRejection {
        if (url.matches("https?://\\S+")) {
            return;
        }
        int comma = url.indexOf(";base64,");
        if (!url.startsWith("data:") || comma < 0 || !MEDIA_TYPES.contains(url.substring(5, comma))) {
            throw Wire.badRequest(at + ": Invalid image URL: expected an http(s) URL or a base64 data URL of a "
                    + "PNG, JPEG, GIF or WebP image");
        }
        decode(url.substring(comma + ";base64,".length()), at);
    }

    private static void decode(String data, String at) throws WireRejection {
        try {
            if (Base64.getDecoder().decode(data).length == 0) {
                throw Wire.badRequest(at + ": the image data is empty");
            }
        } catch (IllegalArgumentException e) {
            throw Wire.badRequest(at + ": the image data is not valid base64");
        }
    }
}
