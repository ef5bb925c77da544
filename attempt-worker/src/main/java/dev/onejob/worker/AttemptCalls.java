package dev.onejob.worker;

import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.contract.Contract;
import dev.onejob.core.events.AttemptCommand;
import dev.onejob.core.events.AttemptCompletion;
import dev.onejob.core.kafka.BrokerUnavailableException;
import dev.onejob.providers.CallOutcome;
import dev.onejob.providers.ProviderCall;
import dev.onejob.providers.ProviderClient;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The provider calls of the attempts this worker started. Consumes started attempts ({@link #launch}); makes each
 * call asynchronously (no thread waits on a provider) and publishes its outcomes to {@code attempt-completions}:
 * UNKNOWN at the soft deadline when no answer came (for a streamed call: when its stream fell silent), then SUCCEEDED
 * or FAILED whenever a late answer arrives, until the call is given up at its hard deadline. Counts the calls in
 * flight, so the poll loop can hold back and a stopping worker can drain. Owns the completions publisher and the
 * stream leases.
 */
final class AttemptCalls implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(AttemptCalls.class);

    private final ProviderClient client;
    private final Completions completions;
    private final StreamLeases streamLeases;
    private final WorkerMetrics metrics;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger startedCount = new AtomicInteger();

    AttemptCalls(ProviderClient client, Completions completions, StreamLeases streamLeases, WorkerMetrics metrics) {
        this.client = client;
        this.completions = completions;
        this.streamLeases = streamLeases;
        this.metrics = metrics;
        metrics.inFlight(inFlight::get);
    }

    /** Makes the call of a started attempt and publishes its outcome (and a late answer) until the broker has it. */
    void launch(AttemptCommand command, ProviderConfig provider, Contract contract, UUID startToken) {
        log.debug("event=attempt_started job={} attempt={} provider={} soft_timeout={}", command.jobId(),
                command.attemptId(), provider.id(), provider.softTimeout());
        inFlight.incrementAndGet();
        startedCount.incrementAndGet();
        metrics.started(provider.id());
        // A passthrough job may have a drop-in caller streaming it: its call is streamed, the pieces published.
        ProviderCall call = contract.passthrough()
                ? client.call(provider, contract, command.variables(), command.attemptId(),
                        completions.chunkSink(command))
                : client.call(provider, contract, command.variables(), command.attemptId());
        if (contract.passthrough()) {
            // A streamed call's deadlines in the ledger move with its pieces.
            streamLeases.track(command.attemptId(), call, startToken, provider);
        }
        call.atSoftDeadline().whenComplete((outcome, error) -> {
            CallOutcome first = error == null ? outcome
                    : new CallOutcome.Unknown("the call failed inside the worker: " + error, Duration.ZERO);
            var published = completions.publishAsync(Completions.of(command, startToken, provider, first));
            if (first instanceof CallOutcome.Unknown && !call.finalBeforeSoftDeadline()) {
                // A late answer counts however late it comes: it is billed and goes through the compare-and-swap.
                // Only a call given up at its hard deadline (or its whole-answer bound) leaves the attempt UNKNOWN.
                published = published.thenCombine(call.atHardDeadline(), (ignored, late) -> late)
                        .thenCompose(late -> late instanceof CallOutcome.Unknown ? CompletableFuture.completedFuture(null)
                                : completions.publishAsync(Completions.of(command, startToken, provider, late)));
            }
            published.whenComplete((ignored, failure) -> {
                streamLeases.forget(command.attemptId());
                inFlight.decrementAndGet();
            });
        });
    }

    /** Publishes a completion and waits until the broker has it (for outcomes decided on the poll thread). */
    void publishNow(AttemptCompletion completion) {
        try {
            completions.publishAsync(completion).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while publishing a completion", e);
        } catch (ExecutionException e) {
            throw new BrokerUnavailableException("a completion decided without a call was not published: "
                    + e.getCause(), e.getCause());
        }
    }

    int inFlight() {
        return inFlight.get();
    }

    /** How many attempts this worker started (and so called). */
    int started() {
        return startedCount.get();
    }

    /**
     * Waits until no call is in flight or {@code deadlineNanos} ({@link System#nanoTime}) has passed; the calls still
     * in flight then are given up (the sweeper makes their attempts UNKNOWN).
     */
    void drainUntil(long deadlineNanos, Duration grace) {
        int draining = inFlight.get();
        if (draining > 0) {
            log.info("event=draining calls_in_flight={} drain_timeout={}", draining, grace);
        }
        while (inFlight.get() > 0 && System.nanoTime() < deadlineNanos) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (inFlight.get() > 0) {
            log.warn("event=drain_timed_out calls_in_flight={} drain_timeout={} action=\"their attempts become"
                    + " UNKNOWN through the sweeper\"", inFlight.get(), grace);
        }
    }

    /** Stops renewing the stream leases and closes the completions publisher. */
    @Override
    public void close() {
        streamLeases.close();
        completions.close();
    }
}
