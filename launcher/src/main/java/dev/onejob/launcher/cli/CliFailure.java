package dev.onejob.launcher.cli;

/**
 * Why a command stops early, with the exit status that says so ({@link ExitCode}). Thrown by commands and their
 * helpers; {@link OnejobCli} prints the message on standard error, without a stack trace, and exits with the status.
 */
public final class CliFailure extends RuntimeException {
    private final int exitCode;

    public CliFailure(int exitCode, String message) {
        super(message, null, false, false);
        this.exitCode = exitCode;
    }

    public static CliFailure refused(String message) {
        return new CliFailure(ExitCode.REFUSED, message);
    }

    public static CliFailure usage(String message) {
        return new CliFailure(ExitCode.USAGE, message);
    }

    public static CliFailure unreachable(String message) {
        return new CliFailure(ExitCode.UNREACHABLE, message);
    }

    public int exitCode() {
        return exitCode;
    }
}
