package dev.onejob.launcher.demo;

/**
 * One scenario of the design, played against a running stack. Consumes the {@link DemoContext} (the API, the
 * simulators, the race-audit topic); produces what it observed and whether that is what the design promises.
 * A scenario narrates its steps as it runs them; an exception it throws counts as FAIL with the exception's message.
 */
abstract class Scenario {
    private final String name;
    private final String expected;

    Scenario(String name, String expected) {
        this.name = name;
        this.expected = expected;
    }

    /** What the scenario is called in the table, e.g. {@code the double click}. */
    final String name() {
        return name;
    }

    /** What the design promises, in the table's words. */
    final String expected() {
        return expected;
    }

    abstract Outcome run(DemoContext context);

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
