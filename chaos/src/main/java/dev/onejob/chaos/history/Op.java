package dev.onejob.chaos.history;

/**
 * One line of the run's history, as the clients saw it (in the spirit of Jepsen): each operation is recorded when it
 * is invoked and again when its outcome is known, with the same {@code op} number.
 *
 * <p>{@code type}: {@code invoke}; {@code ok} (it happened, e.g. a 2xx answer or a Kafka send acknowledged);
 * {@code fail} (it definitely did not happen, e.g. a 4xx answer); {@code unknown} (it may or may not have happened: a
 * timeout, a reset connection, a 5xx from nginx or the service); {@code info} (a fault the harness injected, or a
 * note; no outcome follows).
 *
 * <p>{@code f}, what was done: {@code submit} (a job request; {@code via} is {@code http} or {@code kafka}),
 * {@code poison} (a record on job-requests that must be dead-lettered; {@code key} is its Kafka key), {@code resolve}
 * (an operator resolved attempt {@code key} out of band; {@code detail} is the outcome asked for), {@code fallback}
 * (the owner pressed the fallback button on job {@code jobId}), {@code fault} (type {@code info}; {@code detail}
 * names the fault and its target).
 *
 * @param time        milliseconds since the epoch, when recorded
 * @param op          the operation's number, unique in the run; an invoke and its outcome share it
 * @param type        invoke, ok, fail, unknown or info
 * @param f           submit, poison, resolve, fallback or fault
 * @param via         http or kafka for submit, else null
 * @param owner       the owner id for submit, poison, fallback; else null
 * @param key         the idempotency key (submit), the record key (poison), the attempt id (resolve); else null
 * @param fingerprint the SHA-256 (hex) of the submitted payload's canonical JSON, for submit; else null. Submissions
 *                    of one (owner, key) with different fingerprints are deliberate conflicts.
 * @param jobId       the job the answer named (ok of submit over HTTP, fallback), else null
 * @param status      the HTTP status of the answer, when there was one, else null
 * @param requestId   the request_id header sent with a Kafka submit ({@code chaos-<op>}), else null
 * @param detail      free text: the error, the fault, the outcome asked for
 */
public record Op(long time, long op, String type, String f, String via, String owner, String key,
                 String fingerprint, String jobId, Integer status, String requestId, String detail) {
    public static final String INVOKE = "invoke";
    public static final String OK = "ok";
    public static final String FAIL = "fail";
    public static final String UNKNOWN = "unknown";
    public static final String INFO = "info";

    /** The outcome line of this invocation. */
    public Op outcome(long at, String outcomeType, String answeredJobId, Integer answeredStatus, String why) {
        return new Op(at, op, outcomeType, f, via, owner, key, fingerprint, answeredJobId, answeredStatus, requestId,
                why);
    }
}
