package dev.onejob.core.json;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The references of one schema document as {@link UntrustedSchemaCheck} walks it: the pointers of its schemas, its
 * anchors, its {@code $ref}s, and the in-place edges between schemas (a keyword such as {@code allOf}, or a
 * reference, that applies a schema to the same value as its holder). Once the walk is over it refuses a reference
 * that names nothing in the document ({@link #resolve}) and a schema that applies itself to the same value forever
 * ({@link #refuseEndlessLoops}); every refusal is a {@link SchemaRefusedException} naming the pointer and the value.
 */
final class SchemaReferences {
    private static final Pattern ANCHOR = Pattern.compile("[A-Za-z_][-A-Za-z0-9._]*");

    private record Reference(String holder, String pointer, String value) {
    }

    private record Edge(String to, Reference via) {
    }

    private final Set<String> schemas = new HashSet<>();
    private final Map<String, String> anchors = new HashMap<>();
    private final List<Reference> references = new ArrayList<>();
    private final Map<String, List<Edge>> inPlace = new HashMap<>();

    /** A schema is at {@code pointer}. */
    void schema(String pointer) {
        schemas.add(pointer);
    }

    /** The schema at {@code to} applies to the same value as the one at {@code from} (an in-place keyword). */
    void inPlace(String from, String to) {
        inPlace.computeIfAbsent(from, p -> new ArrayList<>()).add(new Edge(to, null));
    }

    /** A {@code keyword} reference at {@code at} in the schema at {@code holder}: a fragment, resolved later. */
    void reference(String keyword, JsonNode value, String holder, String at) {
        if (!value.isTextual()) {
            throw SchemaRefusedException.at(at, value, keyword + " must be a string");
        }
        String ref = value.textValue();
        if (keyword.equals("$recursiveRef") && !ref.equals("#")) {
            throw SchemaRefusedException.at(at, ref, "$recursiveRef may only be \"#\"");
        }
        if (!ref.startsWith("#")) {
            throw SchemaRefusedException.at(at, ref, "only references inside this schema are allowed (\"#/$defs/"
                    + "name\", \"#/properties/name\", \"#anchor\"); onejob never fetches a schema");
        }
        references.add(new Reference(holder, at, ref));
    }

    /** An anchor declared at {@code at} by the schema at {@code holder}: a name, declared once. */
    void anchor(JsonNode value, String holder, String at) {
        if (!value.isTextual() || !ANCHOR.matcher(value.textValue()).matches()) {
            throw SchemaRefusedException.at(at, value, "an anchor is a name of letters, digits, '-', '_' and '.', "
                    + "starting with a letter or '_'");
        }
        String earlier = anchors.putIfAbsent(value.textValue(), holder);
        if (earlier != null && !earlier.equals(holder)) {
            throw SchemaRefusedException.at(at, value.textValue(), "the anchor is declared twice (also at "
                    + SchemaRefusedException.shown(earlier) + ")");
        }
    }

    /** Every reference names a schema or an anchor of this document, and adds an in-place edge to it. */
    void resolve() {
        for (Reference ref : references) {
            String fragment = ref.value().substring(1);
            String target;
            if (fragment.isEmpty() || fragment.startsWith("/")) {
                target = percentDecoded(fragment, ref);
                if (!schemas.contains(target)) {
                    throw SchemaRefusedException.at(ref.pointer(), ref.value(), "it does not point at a schema "
                            + "inside this document");
                }
            } else {
                target = anchors.get(fragment);
                if (target == null) {
                    throw SchemaRefusedException.at(ref.pointer(), ref.value(), "no $anchor or $dynamicAnchor of "
                            + "this document has that name");
                }
            }
            inPlace.computeIfAbsent(ref.holder(), p -> new ArrayList<>()).add(new Edge(target, ref));
        }
    }

    /**
     * A schema that reaches itself through references and in-place keywords ({@code allOf}, {@code not}, ...)
     * without descending into the value would be applied to it forever: the validator's stack overflows.
     */
    void refuseEndlessLoops() {
        Map<String, Boolean> finished = new HashMap<>();
        for (String start : schemas) {
            visit(start, finished, new ArrayDeque<>());
        }
    }

    private void visit(String pointer, Map<String, Boolean> finished, Deque<Edge> path) {
        Boolean done = finished.get(pointer);
        if (done != null) {
            if (!done) {
                throw loop(pointer, path);
            }
            return;
        }
        finished.put(pointer, false);
        for (Edge edge : inPlace.getOrDefault(pointer, List.of())) {
            path.push(edge);
            visit(edge.to(), finished, path);
            path.pop();
        }
        finished.put(pointer, true);
    }

    private static SchemaRefusedException loop(String pointer, Deque<Edge> path) {
        Reference culprit = null;
        for (Edge edge : path) { // newest first: the loop's edges come before any that led to it
            if (edge.via() != null) {
                culprit = edge.via();
                break;
            }
        }
        String at = culprit == null ? pointer : culprit.pointer();
        return SchemaRefusedException.at(at, culprit == null ? "" : culprit.value(), "it makes the schema at "
                + SchemaRefusedException.shown(pointer) + " apply itself to the same value again without end (a "
                + "reference must descend into a property or an item before it comes back)");
    }

    private static String percentDecoded(String fragment, Reference ref) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (int i = 0; i < fragment.length(); i += Character.charCount(fragment.codePointAt(i))) {
            int c = fragment.codePointAt(i);
            if (c == '%') {
                int value = i + 2 < fragment.length() ? hex(fragment.charAt(i + 1), fragment.charAt(i + 2)) : -1;
                if (value < 0) {
                    throw SchemaRefusedException.at(ref.pointer(), ref.value(), "a '%' must be followed by two hex "
                            + "digits");
                }
                bytes.write(value);
                i += 2;
            } else {
                byte[] encoded = Character.toString(c).getBytes(StandardCharsets.UTF_8);
                bytes.write(encoded, 0, encoded.length);
            }
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private static int hex(char high, char low) {
        int h = Character.digit(high, 16);
        int l = Character.digit(low, 16);
        return h < 0 || l < 0 ? -1 : h * 16 + l;
    }
}
