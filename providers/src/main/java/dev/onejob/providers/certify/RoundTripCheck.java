package dev.onejob.providers.certify;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.certification.CertificationCheck;
import dev.onejob.core.contract.Contract;
import dev.onejob.core.json.Json;
import dev.onejob.providers.CallOutcome;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code round_trip} check: non-ASCII text in a golden input reaches the provider and comes back intact.
 *
 * <p>Consumes the contract and its {@link GoldenCall}s; produces one {@link CertificationCheck}. Pure. The rule, the
 * same for both protocols: for every golden input whose variables hold non-ASCII characters, take its "non-ASCII
 * words" (runs of letters, marks and digits with at least one non-ASCII character, e.g. {@code Très}). Then every
 * string value of every successful answer for that input, except values the output schema fixes by {@code enum} or
 * {@code const}, must not contain
 * <ul>
 *   <li>U+FFFD (a decoder's replacement character) at all;</li>
 *   <li>one of those words with its non-ASCII characters replaced by {@code ?} or U+FFFD (one to four per
 *   character, for encoders that replace per character, per UTF-16 unit or per UTF-8 byte), e.g. {@code Tr?s};</li>
 *   <li>one of those words as its UTF-8 bytes read as ISO-8859-1 (mojibake, e.g. {@code TrÃ¨s}).</li>
 * </ul>
 * An input with non-ASCII text and no successful answer fails (nothing proves the round trip). A word made only of
 * non-ASCII characters matches any run of question marks of its length, a false alarm accepted in exchange for
 * catching a lossy encoder. A contract whose golden inputs are all ASCII passes, and the evidence says the check
 * was not exercised.
 */
final class RoundTripCheck {
    static final String NAME = "round_trip";
    private static final Pattern WORD = Pattern.compile("[\\p{L}\\p{M}\\p{N}]+");
    private static final String REPLACEMENT = "\uFFFD";

    private RoundTripCheck() {
    }

    static CertificationCheck check(Contract contract, List<GoldenCall> calls) {
        ArrayNode inputs = Json.MAPPER.createArrayNode();
        List<String> failures = new ArrayList<>();
        ArrayNode listed = Json.MAPPER.createArrayNode();
        for (int i = 0; i < contract.golden().size(); i++) {
            Set<String> words = nonAsciiWords(contract.golden().get(i).variables());
            if (words.isEmpty()) {
                continue;
            }
            int checked = 0;
            for (GoldenCall call : calls) {
                if (call.input() == i && call.outcome() instanceof CallOutcome.Succeeded succeeded) {
                    checked++;
                    damage(succeeded.result(),
                            contract.prompt(contract.golden().get(i).variables()).outputSchema(), words).ifPresent(found -> {
                        failures.add(call.where() + ": " + found.get("problem").asText());
                        listed.add(found.put("input", GoldenCall.inputLabel(call.input()))
                                .put("repetition", call.repetition()));
                    });
                }
            }
            ObjectNode entry = inputs.addObject().put("input", GoldenCall.inputLabel(i))
                    .put("answers_checked", checked);
            words.forEach(entry.withArray("non_ascii_words")::add);
            if (checked == 0) {
                failures.add(GoldenCall.inputLabel(i) + ": no successful answer to check the non-ASCII text in");
            }
        }
        ObjectNode details = Json.object();
        details.set("inputs", inputs);
        details.set("failures", listed);
        if (inputs.isEmpty()) {
            return CertificationCheck.of(NAME, true, "not exercised: no golden input has non-ASCII text", details);
        }
        if (failures.isEmpty()) {
            return CertificationCheck.of(NAME, true, "non-ASCII text of " + inputs.size() + " golden input(s) came "
                    + "back intact in every answer", details);
        }
        return CertificationCheck.of(NAME, false, failures.size() + " problem(s) with non-ASCII text; first: "
                + Text.shorten(failures.get(0)), details);
    }

    /** The words of the variables' strings that hold a non-ASCII character, in order of appearance. */
    static Set<String> nonAsciiWords(JsonNode variables) {
        Set<String> words = new LinkedHashSet<>();
        for (JsonNode value : strings(variables)) {
            Matcher m = WORD.matcher(value.asText());
            while (m.find()) {
                if (m.group().chars().anyMatch(c -> c > 0x7f)) {
                    words.add(m.group());
                }
            }
        }
        return words;
    }

    /** The first damaged string of {@code answer}, as evidence: field path, value and what it stands for. */
    static Optional<ObjectNode> damage(JsonNode answer, JsonNode schema, Set<String> words) {
        List<ObjectNode> found = new ArrayList<>();
        walk(answer, schema, "$", words, found);
        return found.stream().findFirst();
    }

    private static void walk(JsonNode value, JsonNode schema, String path, Set<String> words, List<ObjectNode> found) {
        if (schema.has("enum") || schema.has("const")) {
            return;
        }
        if (value.isTextual()) {
            problem(value.asText(), words).ifPresent(problem -> found.add(Json.object().put("field", path)
                    .put("value", value.asText()).put("problem", path + " " + problem)));
        } else if (value.isObject()) {
            for (Map.Entry<String, JsonNode> field : value.properties()) {
                walk(field.getValue(), schema.path("properties").path(field.getKey()), path + "." + field.getKey(),
                        words, found);
            }
        } else if (value.isArray()) {
            for (int i = 0; i < value.size(); i++) {
                walk(value.get(i), schema.path("items"), path + "[" + i + "]", words, found);
            }
        }
    }

    private static Optional<String> problem(String text, Set<String> words) {
        if (text.contains(REPLACEMENT)) {
            return Optional.of("holds U+FFFD, the replacement character: " + Text.shorten(text));
        }
        for (String word : words) {
            Matcher lossy = lossyForm(word).matcher(text);
            if (lossy.find()) {
                return Optional.of("holds '" + lossy.group() + "' where the input had '" + word + "'");
            }
            String mojibake = new String(word.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
            if (text.contains(mojibake)) {
                return Optional.of("holds '" + mojibake + "' (UTF-8 read as ISO-8859-1) where the input had '"
                        + word + "'");
            }
        }
        return Optional.empty();
    }

    /** {@code word} with each non-ASCII character as one to four '?' or U+FFFD, the rest literal. */
    static Pattern lossyForm(String word) {
        StringBuilder regex = new StringBuilder();
        word.codePoints().forEach(cp -> regex.append(cp < 0x80 ? Pattern.quote(Character.toString(cp))
                : "[?" + REPLACEMENT + "]{1,4}"));
        return Pattern.compile(regex.toString());
    }

    private static List<JsonNode> strings(JsonNode node) {
        List<JsonNode> strings = new ArrayList<>();
        if (node.isTextual()) {
            strings.add(node);
        }
        node.forEach(child -> strings.addAll(strings(child)));
        return strings;
    }
}
