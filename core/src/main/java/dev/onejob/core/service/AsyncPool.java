package dev.onejob.core.service;

import java.util.concurrent.ForkJoinPool;

/**
 * Keeps asynchronous completions on a pool of threads on small machines. {@code CompletableFuture} runs its
 * {@code *Async} stages on the common {@link ForkJoinPool} only when that pool's parallelism is above 1; on a machine
 * of one or two cores it is 1, and each such stage gets a new thread of its own. The JDK's HTTP client hops every
 * {@code sendAsync} answer onto that default executor, so a worker on two cores started one thread per provider
 * answer: 4,000 threads in the benchmark's two-minute backlog run, with the allocation and collection pauses they
 * bring. Setting the common pool's parallelism to at least 2 before the pool is first used keeps those stages on
 * two pooled threads; on larger machines, where the JVM's default is already above 1, nothing changes. Each process's
 * {@code main} calls {@link #configure()} first.
 */
public final class AsyncPool {
    static final String PARALLELISM = "java.util.concurrent.ForkJoinPool.common.parallelism";

    private AsyncPool() {
    }

    /**
     * Sets the common pool's parallelism to 2 when the machine would give it 1 and nobody set it; returns the
     * parallelism in effect, which stays 1 only when the pool was used before this call or set so on purpose.
     */
    public static int configure() {
        if (System.getProperty(PARALLELISM) == null && Runtime.getRuntime().availableProcessors() <= 2) {
            System.setProperty(PARALLELISM, "2");
        }
        return ForkJoinPool.getCommonPoolParallelism();
    }
}
