package dev.onejob.launcher;

import java.io.PrintStream;

/** Startup progress on the terminal: one line per step, so a stall shows what it is waiting for. */
final class Progress {
    private final PrintStream out;
    private final long started = System.nanoTime();

    Progress(PrintStream out) {
        this.out = out;
    }

    void step(String what) {
        out.printf("[%5.1fs] %s ...%n", (System.nanoTime() - started) / 1e9, what);
        out.flush();
    }
}
