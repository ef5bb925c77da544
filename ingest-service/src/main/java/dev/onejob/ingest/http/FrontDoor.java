package dev.onejob.ingest.http;

import java.time.Duration;

/**
 * How the API admits submissions: group commit ({@code HTTP_GROUP_COMMITTERS} transactions at once, each of at most
 * {@code HTTP_GROUP_COMMIT_MAX} submissions), each owner's share ({@code RATE_LIMIT_PER_OWNER} submissions per
 * second per instance, bursts of twice that; 0 turns it off), and load shedding ({@code HTTP_SHED_QUEUE_WAIT}, the
 * longest a request may wait for a server thread, and {@code HTTP_SHED_BACKLOG}, the most attempt commands waiting
 * for a worker before submissions are refused; 0 turns either off). See {@link Admission}. Waiting requests
 * ({@code Prefer: wait=N}, event streams): {@code HTTP_MAX_WAIT}, the longest a request may wait for its job, and
 * {@code HTTP_WAIT_RECHECK}, how often one batched read of the ledger looks at every watched job, beside the
 * {@code job-results} subscription that wakes a waiter the moment its job ends. See {@link JobWatch}. What one owner
 * may hold open at once ({@code HTTP_MAX_REQUESTS_PER_OWNER}, {@code HTTP_MAX_WAITS_PER_OWNER},
 * {@code HTTP_MAX_STREAMS_PER_OWNER}): see {@link OwnerCaps}.
 */
public record FrontDoor(int groupCommitters, int groupCommitMax, int submissionsPerOwnerPerSecond,
                        Duration shedQueueWait, long shedBacklog, Duration maxWait, Duration waitRecheck,
                        OwnerCaps.Limits perOwner) {
    public static final int DEFAULT_GROUP_COMMITTERS = 4;
    public static final int DEFAULT_GROUP_COMMIT_MAX = 128;
    public static final int DEFAULT_RATE_PER_OWNER = 500;
    public static final Duration DEFAULT_SHED_QUEUE_WAIT = Duration.ofMillis(500);
    public static final long DEFAULT_SHED_BACKLOG = 100_000;
    public static final Duration DEFAULT_MAX_WAIT = Duration.ofSeconds(60);
    public static final Duration DEFAULT_WAIT_RECHECK = Duration.ofSeconds(1);

    /** What one owner may hold open at once: requests in flight, waits and event streams ({@link OwnerCaps}). */
    public static final int DEFAULT_REQUESTS_PER_OWNER = OwnerCaps.Limits.DEFAULTS.requests();
    public static final int DEFAULT_WAITS_PER_OWNER = OwnerCaps.Limits.DEFAULTS.waits();
    public static final int DEFAULT_STREAMS_PER_OWNER = OwnerCaps.Limits.DEFAULTS.streams();

    /** With the default caps per owner. */
    public FrontDoor(int groupCommitters, int groupCommitMax, int submissionsPerOwnerPerSecond,
                     Duration shedQueueWait, long shedBacklog, Duration maxWait, Duration waitRecheck) {
        this(groupCommitters, groupCommitMax, submissionsPerOwnerPerSecond, shedQueueWait, shedBacklog, maxWait,
                waitRecheck, OwnerCaps.Limits.DEFAULTS);
    }

    public static FrontDoor defaults() {
        return new FrontDoor(DEFAULT_GROUP_COMMITTERS, DEFAULT_GROUP_COMMIT_MAX, DEFAULT_RATE_PER_OWNER,
                DEFAULT_SHED_QUEUE_WAIT, DEFAULT_SHED_BACKLOG, DEFAULT_MAX_WAIT, DEFAULT_WAIT_RECHECK);
    }

    /** Caps on what one owner holds open: requests in flight, waits, event streams (0: no cap). */
    public FrontDoor withPerOwner(int requests, int waits, int streams) {
        return new FrontDoor(groupCommitters, groupCommitMax, submissionsPerOwnerPerSecond, shedQueueWait,
                shedBacklog, maxWait, waitRecheck, new OwnerCaps.Limits(requests, waits, streams));
    }

    public FrontDoor withRatePerOwner(int perSecond) {
        return new FrontDoor(groupCommitters, groupCommitMax, perSecond, shedQueueWait, shedBacklog, maxWait,
                waitRecheck, perOwner);
    }

    public FrontDoor withShedding(Duration queueWait, long backlog) {
        return new FrontDoor(groupCommitters, groupCommitMax, submissionsPerOwnerPerSecond, queueWait, backlog,
                maxWait, waitRecheck, perOwner);
    }
}
