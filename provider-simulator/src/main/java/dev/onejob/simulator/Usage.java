package dev.onejob.simulator;

/**
 * The tokens one answer's {@code usage} block reports, in one shape for both protocols.
 *
 * <p>Produced by {@link Wire#usage} from the answer as sent; consumed by the request handler, which prices it
 * and records it in the ledger.
 *
 * @param inputTokens       every input token, cached ones included
 * @param outputTokens      output tokens
 * @param cachedInputTokens the input tokens read from the cache (the simulator reports none)
 */
record Usage(long inputTokens, long outputTokens, long cachedInputTokens) {
}
