package dev.onejob.launcher.demo;

/**
 * The job the design's timeout story follows across three scenarios: it times out on the primary (3), an operator
 * cancels that attempt and the owner presses the fallback button (4), the backup wins and the primary's late answer
 * is discarded (5). Written by those scenarios in that order; a later one that finds its part missing fails, naming
 * the one before it.
 */
final class TimeoutStory {
    String jobId;
    String primaryAttemptId;
    String backupAttemptId;
    /** Set by scenario 4 once the job is NEEDS_ACTION and the button gave the backup an attempt. */
    boolean fallbackStarted;
}
