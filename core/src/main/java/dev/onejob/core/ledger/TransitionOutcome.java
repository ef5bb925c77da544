package dev.onejob.core.ledger;

/** The answer of a plain conditional transition (start, mark UNKNOWN, cancel): it happened, or why not. */
public sealed interface TransitionOutcome {
    record Applied() implements TransitionOutcome {
    }

    /** The row was not in a state the transition starts from; {@code current} says where it is (null: no row). */
    record NotApplied(String current) implements TransitionOutcome {
    }

    static TransitionOutcome applied() {
        return new Applied();
    }
}
