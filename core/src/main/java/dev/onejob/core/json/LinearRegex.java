package dev.onejob.core.json;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import com.networknt.schema.regex.RegularExpression;
import com.networknt.schema.regex.RegularExpressionFactory;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The regular expressions of every JSON Schema onejob compiles ({@code pattern}, {@code patternProperties}, format
 * {@code regex}), run by RE2/J: matching takes time linear in the string, whatever the pattern, so a caller's
 * pattern cannot pin a thread on a provider's answer the way a backtracking engine can ({@code ^(a+)+$}). RE2 has no
 * backreferences and no lookaround; such a pattern does not compile. As JSON Schema says, a pattern matches when it
 * is found anywhere in the string (anchors are the pattern's own). ECMA-262's {@code \\uXXXX} escapes are read as
 * RE2's {@code \\x{XXXX}}.
 */
final class LinearRegex implements RegularExpressionFactory {
    static final LinearRegex FACTORY = new LinearRegex();

    /**
     * The most instructions one pattern may expand to, counted the way RE2 compiles it (a counted repetition copies
     * what it repeats: {@code (a{1000}){1000}} is a million). RE2/J has no such limit of its own, and both the memory
     * to compile a pattern and the time to match it (the pattern's size times the string's length) grow with it;
     * {@code ^[a-z]{1,1000}$} still fits.
     */
    static final int MAX_PATTERN_SIZE = 2_000;

    private LinearRegex() {
    }

    @Override
    public RegularExpression getRegularExpression(String regex) {
        Pattern pattern = compile(regex);
        return value -> pattern.matcher(value).find();
    }

    /**
     * The compiled pattern.
     *
     * @throws IllegalArgumentException naming why, when RE2 cannot compile it or it expands past
     *         {@link #MAX_PATTERN_SIZE}
     */
    static Pattern compile(String regex) {
        String translated = translateUnicodeEscapes(regex);
        long size = expandedSize(translated);
        if (size > MAX_PATTERN_SIZE) {
            throw new IllegalArgumentException("the pattern expands to more than " + MAX_PATTERN_SIZE
                    + " instructions (nested or large counted repetitions), the bound for a pattern");
        }
        try {
            return Pattern.compile(translated);
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException(e.getMessage() + "; only linear-time patterns are allowed (RE2 "
                    + "syntax: no backreferences, no lookahead or lookbehind)", e);
        }
    }

    /** ECMA-262's {@code \\uXXXX} as RE2's {@code \\x{XXXX}}; an escaped backslash stays what it is. */
    static String translateUnicodeEscapes(String regex) {
        if (!regex.contains("\\u")) {
            return regex;
        }
        StringBuilder out = new StringBuilder(regex.length());
        for (int i = 0; i < regex.length(); i++) {
            char c = regex.charAt(i);
            if (c == '\\' && i + 1 < regex.length()) {
                if (regex.charAt(i + 1) == 'u' && i + 6 <= regex.length() && isHex(regex.substring(i + 2, i + 6))) {
                    out.append("\\x{").append(regex, i + 2, i + 6).append('}');
                    i += 5;
                } else {
                    out.append(c).append(regex.charAt(i + 1));
                    i++;
                }
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    private static boolean isHex(String digits) {
        return digits.chars().allMatch(ch -> Character.digit(ch, 16) >= 0);
    }

    /**
     * An upper bound of the instructions RE2 compiles the pattern to: each atom counts one, a group what it holds
     * plus one, a counted repetition multiplies what it repeats by its largest count. Saturates rather than
     * overflows; a pattern RE2 will refuse anyway may be counted loosely.
     */
    static long expandedSize(String regex) {
        Deque<long[]> groups = new ArrayDeque<>(); // per open group: {total so far, size of its last atom}
        long[] current = {0, 0};
        int i = 0;
        while (i < regex.length()) {
            char c = regex.charAt(i);
            if (c == '(') {
                groups.push(current);
                current = new long[] {0, 0};
                i++;
            } else if (c == ')' && !groups.isEmpty()) {
                long inside = current[0] + 1;
                current = groups.pop();
                atom(current, inside);
                i++;
            } else if (c == '{' && repeatEnd(regex, i) > 0) {
                int end = repeatEnd(regex, i);
                long count = largestCount(regex.substring(i + 1, end));
                long repeated = Math.min(Long.MAX_VALUE / 4, current[1] * Math.max(1, count));
                current[0] = Math.min(Long.MAX_VALUE / 4, current[0] - current[1] + repeated);
                current[1] = repeated;
                i = end + 1;
            } else if (c == '\\') {
                i = escapeEnd(regex, i);
                atom(current, 1);
            } else if (c == '[') {
                i = classEnd(regex, i);
                atom(current, 1);
            } else {
                atom(current, 1);
                i++;
            }
        }
        long total = current[0];
        while (!groups.isEmpty()) {
            total = Math.min(Long.MAX_VALUE / 4, total + groups.pop()[0]);
        }
        return total;
    }

    private static void atom(long[] group, long size) {
        group[0] = Math.min(Long.MAX_VALUE / 4, group[0] + size);
        group[1] = size;
    }

    /** The index of the {@code }} closing a counted repetition {@code {n}}, {@code {n,}}, {@code {n,m}}; -1 if none. */
    private static int repeatEnd(String regex, int open) {
        int i = open + 1;
        boolean digits = false;
        boolean comma = false;
        while (i < regex.length()) {
            char c = regex.charAt(i);
            if (c == '}') {
                return digits ? i : -1;
            } else if (c >= '0' && c <= '9') {
                digits = true;
            } else if (c == ',' && !comma && digits) {
                comma = true;
            } else {
                return -1;
            }
            i++;
        }
        return -1;
    }

    private static long largestCount(String counts) {
        long largest = 0;
        for (String count : counts.split(",")) {
            if (!count.isEmpty()) {
                largest = Math.max(largest, count.length() > 9 ? Integer.MAX_VALUE : Long.parseLong(count));
            }
        }
        return counts.endsWith(",") ? largest + 1 : largest;
    }

    /** Past an escape, including a braced one ({@code \\x{e9}}, {@code \\p{Greek}}). */
    private static int escapeEnd(String regex, int backslash) {
        int i = backslash + 2;
        if (i < regex.length() && regex.charAt(i) == '{' && "xpP".indexOf(regex.charAt(backslash + 1)) >= 0) {
            int close = regex.indexOf('}', i);
            return close < 0 ? regex.length() : close + 1;
        }
        return Math.min(i, regex.length());
    }

    /** Past a character class, which compiles to one instruction however long it is. */
    private static int classEnd(String regex, int open) {
        int i = open + 1;
        if (i < regex.length() && regex.charAt(i) == '^') {
            i++;
        }
        if (i < regex.length() && regex.charAt(i) == ']') {
            i++;
        }
        while (i < regex.length()) {
            char c = regex.charAt(i);
            if (c == '\\') {
                i = escapeEnd(regex, i);
            } else if (c == '[' && i + 1 < regex.length() && regex.charAt(i + 1) == ':') {
                int close = regex.indexOf(":]", i + 2);
                i = close < 0 ? regex.length() : close + 2;
            } else if (c == ']') {
                return i + 1;
            } else {
                i++;
            }
        }
        return i;
    }
}
