package dev.onejob.launcher;

/** A startup failure with a message that says what failed and what to do about it; printed without a stack trace. */
final class StartupException extends RuntimeException {
    StartupException(String message) {
        super(message);
    }
}
