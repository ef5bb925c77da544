package dev.onejob.launcher.cli;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A plain-text table for terminals: a header row, a rule, then the rows; columns left-aligned, two spaces apart, as
 * wide as their widest cell. A column may be given a maximum width, beyond which its cells wrap at spaces. Consumes
 * cells as objects ({@code null} prints as an empty cell); produces the text; owns its rows.
 */
public final class Table {
    private final String[] headers;
    private final int[] maxWidths;
    private final List<String[]> rows = new ArrayList<>();

    public Table(String... headers) {
        this.headers = headers.clone();
        this.maxWidths = new int[headers.length];
        Arrays.fill(maxWidths, Integer.MAX_VALUE);
    }

    /** Cells of {@code column} wider than {@code width} wrap onto further lines. */
    public Table maxWidth(int column, int width) {
        maxWidths[column] = Math.max(8, width);
        return this;
    }

    public Table row(Object... cells) {
        if (cells.length != headers.length) {
            throw new IllegalArgumentException("a row needs " + headers.length + " cells, got " + cells.length);
        }
        String[] texts = new String[cells.length];
        for (int i = 0; i < cells.length; i++) {
            texts[i] = cells[i] == null ? "" : cells[i].toString();
        }
        rows.add(texts);
        return this;
    }

    public boolean isEmpty() {
        return rows.isEmpty();
    }

    public String render() {
        List<List<List<String>>> wrapped = new ArrayList<>();
        wrapped.add(wrapRow(headers));
        rows.forEach(row -> wrapped.add(wrapRow(row)));
        int[] widths = new int[headers.length];
        for (List<List<String>> row : wrapped) {
            for (int c = 0; c < widths.length; c++) {
                for (String line : row.get(c)) {
                    widths[c] = Math.max(widths[c], line.length());
                }
            }
        }
        StringBuilder text = new StringBuilder();
        for (int r = 0; r < wrapped.size(); r++) {
            appendRow(text, wrapped.get(r), widths);
            if (r == 0) {
                String[] rule = new String[widths.length];
                for (int c = 0; c < widths.length; c++) {
                    rule[c] = "-".repeat(widths[c]);
                }
                appendRow(text, wrapRow(rule), widths);
            }
        }
        return text.toString();
    }

    private List<List<String>> wrapRow(String[] cells) {
        List<List<String>> row = new ArrayList<>();
        for (int c = 0; c < cells.length; c++) {
            row.add(wrap(cells[c], maxWidths[c]));
        }
        return row;
    }

    private static void appendRow(StringBuilder text, List<List<String>> row, int[] widths) {
        int height = row.stream().mapToInt(List::size).max().orElse(1);
        for (int line = 0; line < height; line++) {
            StringBuilder out = new StringBuilder();
            for (int c = 0; c < widths.length; c++) {
                List<String> cell = row.get(c);
                String part = line < cell.size() ? cell.get(line) : "";
                out.append(c == widths.length - 1 ? part : pad(part, widths[c]) + "  ");
            }
            text.append(out.toString().stripTrailing()).append('\n');
        }
    }

    /** Splits at spaces into lines of at most {@code width}; a word longer than that is cut. */
    static List<String> wrap(String text, int width) {
        List<String> lines = new ArrayList<>();
        for (String paragraph : text.split("\n", -1)) {
            StringBuilder line = new StringBuilder();
            for (String word : paragraph.split(" ")) {
                while (word.length() > width) {
                    if (line.length() > 0) {
                        lines.add(line.toString());
                        line.setLength(0);
                    }
                    lines.add(word.substring(0, width));
                    word = word.substring(width);
                }
                if (line.length() > 0 && line.length() + 1 + word.length() > width) {
                    lines.add(line.toString());
                    line.setLength(0);
                }
                line.append(line.length() > 0 ? " " : "").append(word);
            }
            lines.add(line.toString());
        }
        return lines;
    }

    private static String pad(String text, int width) {
        return text + " ".repeat(Math.max(0, width - text.length()));
    }
}
