package dev.onejob.chaos.check;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What {@link HistoryChecker} found in one run: named figures in a fixed order, and the anomalies. Owns the plain-text
 * rendering (Markdown tables, so it can be pasted into README.md or RELIABILITY.md as it is). A run passed when it
 * has no anomaly at all.
 */
public final class CheckReport {
    /** How many anomalies of one kind {@link #render()} lists before it only counts the rest. */
    public static final int SHOWN_PER_KIND = 20;

    /** One number of the run, e.g. ("jobs SUCCEEDED", 180). */
    public record Figure(String name, long value) {
    }

    /** One broken invariant: its kind, what it is about (an intent, a job, an attempt), and the evidence. */
    public record Anomaly(AnomalyKind kind, String subject, String detail) {
        public Anomaly {
            Objects.requireNonNull(kind, "kind");
        }
    }

    private final List<Figure> figures;
    private final List<Anomaly> anomalies;

    private CheckReport(List<Figure> figures, List<Anomaly> anomalies) {
        this.figures = List.copyOf(figures);
        // A stable sort keeps each kind's anomalies in the order the checks found them.
        List<Anomaly> sorted = new ArrayList<>(anomalies);
        sorted.sort(Comparator.comparing(Anomaly::kind));
        this.anomalies = List.copyOf(sorted);
    }

    public List<Figure> figures() {
        return figures;
    }

    /** Every anomaly, grouped by kind in {@link AnomalyKind} order. */
    public List<Anomaly> anomalies() {
        return anomalies;
    }

    public boolean passed() {
        return anomalies.isEmpty();
    }

    /** The value of the figure called {@code name}; throws {@link IllegalArgumentException} if there is none. */
    public long figure(String name) {
        return figures.stream().filter(f -> f.name().equals(name)).mapToLong(Figure::value).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no figure called '" + name + "'"));
    }

    /** How many anomalies there are of each kind found, in {@link AnomalyKind} order. */
    public Map<AnomalyKind, Long> counts() {
        Map<AnomalyKind, Long> counts = new EnumMap<>(AnomalyKind.class);
        anomalies.forEach(a -> counts.merge(a.kind(), 1L, Long::sum));
        return counts;
    }

    /**
     * The report as Markdown: the figures table, then (if any) a count per anomaly kind and the first
     * {@link #SHOWN_PER_KIND} anomalies of each kind, then a one-line verdict.
     */
    public String render() {
        StringBuilder out = new StringBuilder();
        out.append("| figure | value |\n|---|---:|\n");
        figures.forEach(f -> row(out, f.name(), Long.toString(f.value())));
        out.append('\n');
        if (passed()) {
            return out.append("No anomalies: every invariant held.\n").toString();
        }
        out.append("| anomaly | count |\n|---|---:|\n");
        counts().forEach((kind, count) -> row(out, kind.wireName(), Long.toString(count)));
        out.append("\n| anomaly | subject | detail |\n|---|---|---|\n");
        counts().forEach((kind, count) -> {
            anomalies.stream().filter(a -> a.kind() == kind).limit(SHOWN_PER_KIND)
                    .forEach(a -> row(out, kind.wireName(), a.subject(), a.detail()));
            if (count > SHOWN_PER_KIND) {
                row(out, kind.wireName(), "...", (count - SHOWN_PER_KIND) + " more not shown");
            }
        });
        return out.append('\n').append(anomalies.size()).append(" anomalies: the run FAILED its checks.\n")
                .toString();
    }

    private static void row(StringBuilder out, String... cells) {
        out.append('|');
        for (String cell : cells) {
            out.append(' ').append(cell(cell)).append(" |");
        }
        out.append('\n');
    }

    /** A cell cannot hold a pipe or a line break without breaking the table. */
    private static String cell(String text) {
        if (text == null) {
            return "";
        }
        return text.replace("\\", "\\\\").replace("|", "\\|").replace("\r", " ").replace("\n", " ");
    }

    /** Collects figures and anomalies while the checks run; not thread-safe. */
    static final class Builder {
        private final List<Figure> figures = new ArrayList<>();
        private final List<Anomaly> anomalies = new ArrayList<>();

        Builder figure(String name, long value) {
            figures.add(new Figure(name, value));
            return this;
        }

        Builder anomaly(AnomalyKind kind, String subject, String detail) {
            anomalies.add(new Anomaly(kind, subject, detail));
            return this;
        }

        int anomalyCount() {
            return anomalies.size();
        }

        CheckReport build() {
            return new CheckReport(figures, anomalies);
        }
    }
}
