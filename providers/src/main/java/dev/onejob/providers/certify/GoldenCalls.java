package dev.onejob.providers.certify;

import dev.onejob.core.billing.CallKeys;
import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.contract.Contract;
import dev.onejob.providers.CallOutcome;
import dev.onejob.providers.ChunkSink;
import dev.onejob.providers.ProviderCall;
import dev.onejob.providers.ProviderClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Sends every golden input of a contract to a provider, repeatedly, through the worker's own adapters.
 *
 * <p>Consumes a {@link ProviderClient} (lent), a provider and a contract; produces one {@link GoldenCall} per
 * (input, repetition), in sending order: repetition 1 of every input, then repetition 2, ... Calls go one at a time,
 * so each latency is the provider's alone, and each has a fresh certification key as its {@code Idempotency-Key}
 * ({@link CallKeys#certification()}: billed, but no attempt, as reconciliation tells). Owns
 * nothing.
 */
final class GoldenCalls {
    /** Beyond the hard deadline, how long to wait for the adapter's own deadline to settle a call. */
    private static final Duration SETTLE_GRACE = Duration.ofSeconds(5);

    /** A certification call's pieces go nowhere: only the assembled answer is judged. */
    private static final ChunkSink IGNORED_PIECES = new ChunkSink() {
        @Override
        public void piece(String text) {
        }

        @Override
        public void end() {
        }
    };

    private GoldenCalls() {
    }

    static List<GoldenCall> run(ProviderClient client, ProviderConfig provider, Contract contract, int repetitions) {
        List<GoldenCall> calls = new ArrayList<>();
        for (int repetition = 1; repetition <= repetitions; repetition++) {
            for (int input = 0; input < contract.golden().size(); input++) {
                // A passthrough job's call is streamed in production; so is its certification's.
                ProviderCall call = contract.passthrough()
                        ? client.call(provider, contract, contract.golden().get(input).variables(),
                                CallKeys.certification(), IGNORED_PIECES)
                        : client.call(provider, contract, contract.golden().get(input).variables(),
                                CallKeys.certification());
                CallOutcome outcome = awaitFinal(call, provider);
                calls.add(new GoldenCall(input, repetition, repetitions, outcome, call.finalBeforeSoftDeadline()));
            }
        }
        return calls;
    }

    /**
     * The call's outcome at its hard deadline (a late answer still counts for the structure check; the soft deadline
     * is judged from {@link ProviderCall#finalBeforeSoftDeadline()}).
     *
     * @throws CancellationException when the thread is interrupted (the flag is kept set)
     */
    static CallOutcome awaitFinal(ProviderCall call, ProviderConfig provider) {
        Duration wait = provider.hardTimeout().plus(SETTLE_GRACE);
        try {
            return call.atHardDeadline().get(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CancellationException("certification of " + provider.id() + " was interrupted");
        } catch (TimeoutException e) {
            return new CallOutcome.Unknown("the adapter settled nothing within " + wait, wait);
        } catch (ExecutionException e) {
            return new CallOutcome.Unknown("the call ended in an unexpected error: " + e.getCause(), Duration.ZERO);
        }
    }
}
