package dev.onejob.worker;

import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.config.Providers;
import dev.onejob.core.contract.Contract;
import dev.onejob.core.contract.Contracts;
import dev.onejob.core.events.AttemptCommand;
import dev.onejob.core.json.Json;
import dev.onejob.core.kafka.DeadLetters;
import dev.onejob.core.kafka.Topics;
import dev.onejob.core.service.LogContext;
import dev.onejob.worker.StartsInDoubt.Startable;
import java.io.IOException;
import java.time.Duration;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Producer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads records of {@code attempt-commands} into attempts to start, on the poll thread. A record that is not a valid
 * attempt command goes to {@code attempt-commands.dlq} with its reason in {@code onejob-dlq-reason}; a command this
 * worker cannot run (its provider or contract is not in this worker's files: config skew) is failed without a call,
 * with a FAILED completion that lets the reconciler fail over or fail the job. Owns the dead-letter producer.
 */
record CommandReader(Producer<byte[], byte[]> deadLetters, Providers providers, Contracts contracts,
                     StartsInDoubt starts, AttemptCalls calls, WorkerMetrics metrics) implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(CommandReader.class);

    /** The record as a command to start, or null when it was dead-lettered or failed without a call. */
    Startable read(ConsumerRecord<byte[], byte[]> record) {
        AttemptCommand command;
        try {
            command = AttemptCommand.fromJson(Json.MAPPER.readTree(record.value()));
        } catch (IOException | IllegalArgumentException | NullPointerException e) {
            deadLetter(record, "not a valid attempt command: " + e.getMessage());
            return null;
        }
        try (LogContext ignored = LogContext.of(command.jobId(), command.attemptId())) {
            return startable(command);
        }
    }

    private Startable startable(AttemptCommand command) {
        ProviderConfig provider = providers.find(command.provider()).orElse(null);
        Contract contract = contracts.find(command.contract()).orElse(null);
        if (provider == null || contract == null) {
            // Config skew (a rolling deploy, a provider removed): nothing is sent, and the attempt must not stay
            // PENDING forever. A FAILED completion that says so lets the reconciler fail over or fail the job.
            String code = provider == null ? "unknown_provider" : "unknown_contract";
            String message = provider == null
                    ? "this worker has no provider '" + command.provider() + "' in its providers file"
                    : "this worker has no contract '" + command.contract() + "' in its contracts directory";
            log.warn("event=command_not_runnable job={} attempt={} code={} reason=\"{}\"", command.jobId(),
                    command.attemptId(), code, message);
            metrics.notRunnable(code);
            calls.publishNow(Completions.notRunnable(command, null, code, message));
            return null;
        }
        return starts.startable(command, provider, contract);
    }

    private void deadLetter(ConsumerRecord<byte[], byte[]> record, String reason) {
        DeadLetters.sendNow(deadLetters, Topics.ATTEMPT_COMMANDS_DLQ, record, reason);
        metrics.deadLettered();
        log.warn("event=dead_lettered topic={} partition={} offset={} reason=\"{}\"", record.topic(),
                record.partition(), record.offset(), reason);
    }

    /** Closes the dead-letter producer. */
    @Override
    public void close() {
        deadLetters.close(Duration.ofSeconds(5));
    }
}
