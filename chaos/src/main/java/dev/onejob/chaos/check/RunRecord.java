package dev.onejob.chaos.check;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.chaos.history.Op;
import dev.onejob.core.billing.Usage;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;

/**
 * Everything a chaos run left behind, as plain immutable data: the client history, the ledger's rows, the records
 * of the Kafka topics the invariants speak about, and the provider simulators' ledgers. Produced by
 * {@link RunRecordCollector} (or by hand in tests); consumed by {@link HistoryChecker}. Ids are lower-case text
 * everywhere, so rows, records and ledger entries join on plain string equality.
 *
 * @param ops          the history, in recorded order
 * @param jobs         the {@code jobs} table
 * @param attempts     the {@code attempts} table
 * @param outcomes     {@code job-request-outcomes}
 * @param results      {@code job-results}
 * @param raceAudits   {@code race-audit}
 * @param completions  {@code attempt-completions}
 * @param commands     {@code attempt-commands}
 * @param deadLetters  {@code job-requests.dlq}
 * @param calls        every entry of every simulator ledger, attempt calls or not
 * @param unreadable   records of the topics above that could not be read, as "topic/partition/offset: why"
 */
public record RunRecord(List<Op> ops, List<JobRow> jobs, List<AttemptRow> attempts, List<RequestOutcome> outcomes,
                        List<JobResult> results, List<RaceAudit> raceAudits, List<Completion> completions,
                        List<AttemptCommand> commands, List<DeadLetter> deadLetters, List<ProviderCall> calls,
                        List<String> unreadable) {

    public RunRecord {
        ops = List.copyOf(ops);
        jobs = List.copyOf(jobs);
        attempts = List.copyOf(attempts);
        outcomes = List.copyOf(outcomes);
        results = List.copyOf(results);
        raceAudits = List.copyOf(raceAudits);
        completions = List.copyOf(completions);
        commands = List.copyOf(commands);
        deadLetters = List.copyOf(deadLetters);
        calls = List.copyOf(calls);
        unreadable = List.copyOf(unreadable);
    }

    /** A row of {@code jobs}; {@code completedBy} and {@code result} are null unless SUCCEEDED. */
    public record JobRow(String id, String ownerId, String idempotencyKey, String status, String completedBy,
                         JsonNode result) {
    }

    /**
     * A row of {@code attempts}; {@code startedAt}, {@code finishedAt} and the error may be null, and so are the
     * provider's request id, the usage and the cost until a completion reported them.
     */
    public record AttemptRow(String id, String jobId, int number, String provider, String status, Instant createdAt,
                             Instant startedAt, Instant finishedAt, String errorCode, String errorMessage,
                             String providerRequestId, Usage usage, BigDecimal costUsd) {

        /** Without a bill. */
        public AttemptRow(String id, String jobId, int number, String provider, String status, Instant createdAt,
                          Instant startedAt, Instant finishedAt, String errorCode, String errorMessage) {
            this(id, jobId, number, provider, status, createdAt, startedAt, finishedAt, errorCode, errorMessage, null,
                    null, null);
        }

        /** Without an error. */
        public AttemptRow(String id, String jobId, int number, String provider, String status, Instant createdAt,
                          Instant startedAt, Instant finishedAt) {
            this(id, jobId, number, provider, status, createdAt, startedAt, finishedAt, null, null);
        }
    }

    /** A {@code job-request-outcomes} record; {@code jobId} is null for INVALID. */
    public record RequestOutcome(String requestId, String ownerId, String idempotencyKey, String outcome,
                                 String jobId) {
    }

    /** A {@code job-results} record; {@code result} is null (or a JSON null) unless SUCCEEDED. */
    public record JobResult(String jobId, String ownerId, String idempotencyKey, String status, String completedBy,
                            JsonNode result) {
    }

    /** A {@code race-audit} record; {@code winningAttempt} is null when no attempt had won when it was written. */
    public record RaceAudit(String jobId, String winningAttempt, String losingAttempt, String reason) {
    }

    /** An {@code attempt-completions} record; {@code result} is set for SUCCEEDED only. */
    public record Completion(String attemptId, String jobId, String outcome, JsonNode result) {
    }

    /** An {@code attempt-commands} record. */
    public record AttemptCommand(String attemptId, String jobId) {
    }

    /** A {@code job-requests.dlq} record: the original key as UTF-8 text (null if none), and the reason header. */
    public record DeadLetter(String key, String reason, String source) {
        /** A dead letter whose source record is not known. */
        public DeadLetter(String key, String reason) {
            this(key, reason, null);
        }
    }

    /**
     * One entry of a simulator's ledger.
     *
     * @param simulator      which simulator's ledger it came from
     * @param idempotencyKey the Idempotency-Key header: the attempt id for calls made by an attempt
     * @param protocol       the simulator protocol, e.g. {@code openai-chat} or {@code anthropic-count-tokens}
     * @param status         the HTTP status answered, or null when none was (a hang, a reset)
     * @param behaviour      the simulator behaviour applied: {@link #ANSWER} for a plain answer in time, else e.g.
     *                       {@code hang}, {@code drop_field}, {@code poison_answer}
     * @param receivedAt     when the simulator had read the request, or null when not recorded
     * @param requestId      the provider's request id of a billed answer, else null
     * @param usage          the tokens the provider billed for it, or null when it billed nothing
     * @param costUsd        what the provider charged for it, or null when it billed nothing
     */
    public record ProviderCall(String simulator, String idempotencyKey, String protocol, Integer status,
                               String behaviour, Instant receivedAt, String requestId, Usage usage,
                               BigDecimal costUsd) {
        /** The behaviour of a call answered in time with a usable answer. */
        public static final String ANSWER = "answer";

        /** A call whose bill is not recorded. */
        public ProviderCall(String simulator, String idempotencyKey, String protocol, Integer status,
                            String behaviour, Instant receivedAt) {
            this(simulator, idempotencyKey, protocol, status, behaviour, receivedAt, null, null, null);
        }

        /** Whether the provider's bill has a charge for it. */
        public boolean charged() {
            return costUsd != null;
        }

        /** A call with a plain answer (or none, by its status), at no recorded time. */
        public ProviderCall(String simulator, String idempotencyKey, String protocol, Integer status) {
            this(simulator, idempotencyKey, protocol, status, ANSWER, null);
        }

        /** A call with this behaviour, at no recorded time. */
        public ProviderCall(String simulator, String idempotencyKey, String protocol, Integer status,
                            String behaviour) {
            this(simulator, idempotencyKey, protocol, status, behaviour, null);
        }

        /** Billed by the provider: it answered 200. */
        public boolean paid() {
            return status != null && status == 200;
        }

        /**
         * Paid, and its answer was usable and sent before the worker's hard timeout, so the worker had it to publish:
         * a plain {@link #ANSWER}, a {@code hang} that answered (the run's late answers come at 4 s, past the soft
         * timeout and before the 8 s hard one; a hang that never answers has no status), or a {@code paced} answer
         * (a long stream, whose pieces never leave a gap near the soft timeout; answered whole at once when the call
         * did not stream).
         */
        public boolean deliveredUsableAnswer() {
            return paid() && (ANSWER.equals(behaviour) || "hang".equals(behaviour) || PACED.equals(behaviour));
        }

        /** The behaviour of the run's long streams. */
        public static final String PACED = "paced";
    }
}
