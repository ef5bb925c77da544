package dev.onejob.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import java.util.UUID;

/**
 * The hostile inputs the fuzzer draws from, by where they go: strings for JSON fields, JSON values of the wrong
 * type, raw JSON text (nesting too deep to build as a tree), whole bodies, header and query values, path ids.
 */
final class HostileValues {
    static final String SQL = "'; DROP TABLE jobs; --";
    static final String DEEP_ARRAY = "[".repeat(10_000) + "]".repeat(10_000);
    static final String DEEP_OBJECT = "{\"a\":".repeat(10_000) + "1" + "}".repeat(10_000);

    private static final List<String> STRINGS = List.of(
            "", " ", "\t", SQL, "\" OR 1=1 --", "1; SELECT pg_sleep(10)", "$1", "%s%n%x", "../../../../etc/passwd",
            "${jndi:ldap://127.0.0.1/x}", "{{text}}", "<script>alert(1)</script>", "\\", "\\u0041",
            "😀🙈💥", "\uD83D\uDC68\u200D\uD83D\uDC69\u200D\uD83D\uDC67", "שלום עולם", "مرحبا بالعالم",
            "\u202Eevil\u202C", "e\u0301\u0301\u0301\u0308\u0327", "Z\u0334\u0321\u0322\u031B\u0317\u0318\u0300",
            "\u0001\u0002\u0003\u001b[31m\u001f\u007f", "line\nbreak\r\n", "\u2028\u2029", "\uFEFFbom",
            "\uFFFE\uFFFF", "\uD835\uDD73\uD835\uDD8A", "𝕳𝖊𝖑𝖑𝖔", "null", "true", "0", "-1", "NaN",
            "PRIMARY", "primary ", "sentiment\u200B", "ｓｅｎｔｉｍｅｎｔ");

    private static final List<String> CONTENT_TYPES = List.of("application/json", "text/plain",
            "application/xml", "application/json; charset=utf-16", "multipart/form-data; boundary=--x",
            "application/x-www-form-urlencoded", "*/*", "", "garbage", "application/problem+json",
            "application/json; charset=\"\u00e9\"", "😀/😀");

    private final Random random;

    HostileValues(Random random) {
        this.random = random;
    }

    <T> T pick(List<T> values) {
        return values.get(random.nextInt(values.size()));
    }

    /** A hostile string for a JSON field. */
    String string() {
        return switch (random.nextInt(10)) {
            case 0 -> "x".repeat(256);
            case 1 -> "a".repeat(20_001);
            case 2 -> "a\u0000b";
            case 3 -> randomUnicode(1 + random.nextInt(40));
            default -> pick(STRINGS);
        };
    }

    /** A JSON value for a field, often of the wrong type. */
    JsonNode value() {
        JsonNodeFactory f = JsonNodeFactory.instance;
        return switch (random.nextInt(14)) {
            case 0 -> f.numberNode(0);
            case 1 -> f.numberNode(-1);
            case 2 -> f.numberNode(new BigDecimal("1e400"));
            case 3 -> f.numberNode(new BigInteger("92233720368547758089223372036854775808"));
            case 4 -> f.booleanNode(random.nextBoolean());
            case 5 -> f.nullNode();
            case 6 -> f.arrayNode();
            case 7 -> f.objectNode();
            case 8 -> f.arrayNode().add(string());
            case 9 -> f.objectNode().put(key(), string());
            default -> f.textNode(string());
        };
    }

    /** Raw JSON text that cannot be a tree here: nesting 10 000 deep. */
    String rawValue() {
        return random.nextBoolean() ? DEEP_ARRAY : DEEP_OBJECT;
    }

    /** A hostile object key: 256 characters, empty, unicode, prototype names. */
    String key() {
        return pick(List.of("k".repeat(256), "", "__proto__", "constructor", "😀", "\u202Ekey", SQL, "a.b",
                "$where", "contract ", "CONTRACT"));
    }

    /** A whole body that is not the request: malformed, the wrong JSON, binary, deep. */
    byte[] body() {
        String text = switch (random.nextInt(18)) {
            case 0 -> "";
            case 1 -> "{";
            case 2 -> "{\"contract\":";
            case 3 -> "[]";
            case 4 -> "\"a string\"";
            case 5 -> "42";
            case 6 -> "null";
            case 7 -> "true";
            case 8 -> "{'contract':'sentiment'}";
            case 9 -> "{\"a\":1,}";
            case 10 -> "/* comment */ {}";
            case 11 -> "{\"a\":NaN}";
            case 12 -> "{} {}";
            case 13 -> DEEP_ARRAY;
            case 14 -> DEEP_OBJECT;
            case 15 -> "{\"contract\":\"sentiment\",\"contract\":\"sentiment\"}";
            default -> null;
        };
        if (text != null) {
            return text.getBytes(StandardCharsets.UTF_8);
        }
        byte[] bytes = new byte[1 + random.nextInt(512)];
        random.nextBytes(bytes);
        if (random.nextBoolean()) {
            bytes[0] = (byte) 0xC3; // a UTF-8 lead byte without its continuation
            bytes[Math.min(1, bytes.length - 1)] = (byte) 0x28;
        }
        return bytes;
    }

    /** An Idempotency-Key header value (a valid key, 255/256 characters, unicode, control characters). */
    String idempotencyKey(String valid) {
        return switch (random.nextInt(20)) {
            case 0 -> "";
            case 1 -> printableAscii(255);
            case 2 -> printableAscii(256);
            case 3 -> "k\u00e9y-😀";
            case 4 -> "k\u0001\u007f";
            case 5 -> "key\u0000nul";
            case 6 -> SQL + valid;
            case 7 -> "\u202E" + valid;
            case 8 -> "k".repeat(100 * 1024);
            default -> valid;
        };
    }

    /** A query value for idempotency_key; percent-encoded by the caller. */
    String queryValue(String valid) {
        return switch (random.nextInt(9)) {
            case 0 -> "";
            case 1 -> printableAscii(256);
            case 2 -> SQL;
            case 3 -> "😀\u202E" + valid;
            case 4 -> "k\u0001\u001f";
            case 5 -> "k\u0000";
            case 6 -> "k+%";
            default -> valid;
        };
    }

    /** A path id that is not one of the caller's: unknown UUIDs, not-UUIDs, traversal, unicode. */
    String foreignId() {
        return pick(List.of(UUID.randomUUID().toString(), "00000000-0000-0000-0000-000000000000",
                "not-a-uuid", "1", "1-1-1-1-1", "{" + UUID.randomUUID() + "}",
                UUID.randomUUID().toString().toUpperCase(), "x".repeat(256), SQL, "😀", "..", "%00",
                "\u202E" + UUID.randomUUID(), "ffffffff-ffff-ffff-ffff-ffffffffffffff"));
    }

    String contentType() {
        return pick(CONTENT_TYPES);
    }

    String printableAscii(int length) {
        StringBuilder key = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            // no space at either end: HTTP drops it from a header value as padding
            int low = i == 0 || i == length - 1 ? 0x21 : 0x20;
            key.append((char) (low + random.nextInt(0x7F - low)));
        }
        return key.toString();
    }

    private String randomUnicode(int length) {
        StringBuilder text = new StringBuilder();
        while (text.codePointCount(0, text.length()) < length) {
            int codePoint = random.nextInt(0x30000);
            boolean surrogate = codePoint >= 0xD800 && codePoint <= 0xDFFF;
            if (!surrogate && Character.isDefined(codePoint)) {
                text.appendCodePoint(codePoint);
            }
        }
        return text.toString();
    }
}
