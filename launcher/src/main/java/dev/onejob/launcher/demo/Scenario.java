package dev.onejob.launcher.demo;

/**
 * One scenario of the design, played against a running stack: what it is called in the table (e.g.
 * {@code 1. the double click}), what the design promises in the table's words, and its {@link Play}. The play
 * consumes the {@link DemoContext} (the API, the simulators, the race-audit topic); produces what it observed and
 * whether that is what the design promises. A play narrates its steps as it runs them; an exception it throws counts
 * as FAIL with the exception's message.
 */
record Scenario(String name, String expected, Play play) {
    /** A scenario's steps. */
    interface Play {
        Outcome run(DemoContext context);
    }

    Outcome run(DemoContext context) {
        return play.run(context);
    }

    /** PASS or FAIL with what was seen; SKIPPED with why it could not be played (it counts as neither). */
    record Outcome(Verdict verdict, String observed) {
        public static Outcome pass(String observed) {
            return new Outcome(Verdict.PASS, observed);
        }

        public static Outcome fail(String observed) {
            return new Outcome(Verdict.FAIL, observed);
        }

        public static Outcome skipped(String why) {
            return new Outcome(Verdict.SKIPPED, why);
        }
    }

    enum Verdict { PASS, FAIL, SKIPPED }
}
