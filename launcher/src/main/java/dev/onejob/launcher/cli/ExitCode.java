package dev.onejob.launcher.cli;

/**
 * The exit statuses of the operator commands and of {@code ./onejob demo}, so a script can tell the cases apart.
 * Produced by every command; owns nothing.
 */
public final class ExitCode {
    /** Done as asked. */
    public static final int OK = 0;
    /** Not found, or refused: a 403, a 409, a record that did not come in time, a demo scenario that failed. */
    public static final int REFUSED = 1;
    /** The command line or the configuration is wrong: an unknown option, a missing token, a bad file. */
    public static final int USAGE = 2;
    /** The HTTP API, the database or the Kafka broker cannot be reached. */
    public static final int UNREACHABLE = 3;

    private ExitCode() {
    }
}
