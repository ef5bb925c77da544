package dev.onejob.launcher.demo;

import java.io.PrintStream;
import java.util.Locale;

/**
 * The demo's voice: a heading per scenario, then one plain-words line per step as it happens, stamped with the
 * seconds since the demo began, so a wait shows as a wait. Consumes sentences; produces lines on the demo's output.
 */
final class Narrator {
    private final PrintStream out;
    private final long started = System.nanoTime();

    Narrator(PrintStream out) {
        this.out = out;
    }

    PrintStream out() {
        return out;
    }

    void heading(String text) {
        out.println();
        out.println("== " + text + " ==");
        out.flush();
    }

    /** One step, as it happens. */
    void say(String text) {
        out.printf(Locale.ROOT, "[%5.1fs] %s%n", (System.nanoTime() - started) / 1e9, text);
        out.flush();
    }

    /** Evidence that belongs to the step before it (a record, a response), indented under it. */
    void show(String text) {
        text.lines().forEach(line -> out.println("         | " + line));
        out.flush();
    }
}
