package dev.onejob.launcher.demo;

import java.util.ArrayList;
import java.util.List;

/**
 * What a scenario expected, item by item, and which items did not hold. Consumes named boolean checks; produces
 * the scenario's {@link Scenario.Outcome}: PASS when every check held, else FAIL naming the ones that did not.
 */
final class Checks {
    private final List<String> failed = new ArrayList<>();

    /** Records {@code expectation}, which did not hold unless {@code held}; returns {@code held}. */
    boolean check(boolean held, String expectation) {
        if (!held) {
            failed.add(expectation);
        }
        return held;
    }

    boolean allHeld() {
        return failed.isEmpty();
    }

    Scenario.Outcome outcome(String observed) {
        return failed.isEmpty() ? Scenario.Outcome.pass(observed)
                : Scenario.Outcome.fail(observed + " -- NOT as expected: " + String.join("; ", failed));
    }
}
