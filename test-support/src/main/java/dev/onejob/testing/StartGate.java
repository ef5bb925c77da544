package dev.onejob.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Releases many callers at once: each task waits on one latch on a thread of its own, the gate opens when all are
 * parked, and the results come back in task order. This is how tests make real races instead of hoping for them.
 */
public final class StartGate {
    private StartGate() {
    }

    /** Races {@code tasks} on a pool of their own, one thread per task, shut down once they are done. */
    public static <T> List<T> race(List<Callable<T>> tasks) {
        ExecutorService pool = Executors.newFixedThreadPool(tasks.size());
        try {
            return race(pool, tasks);
        } finally {
            pool.shutdownNow();
        }
    }

    private static <T> List<T> race(ExecutorService pool, List<Callable<T>> tasks) {
        CountDownLatch ready = new CountDownLatch(tasks.size());
        CountDownLatch go = new CountDownLatch(1);
        List<Future<T>> futures = new ArrayList<>(tasks.size());
        for (Callable<T> task : tasks) {
            futures.add(pool.submit(() -> {
                ready.countDown();
                go.await();
                return task.call();
            }));
        }
        try {
            if (!ready.await(30, TimeUnit.SECONDS)) {
                throw new AssertionError("the pool has fewer threads than the " + tasks.size() + " racers");
            }
            go.countDown();
            List<T> results = new ArrayList<>(futures.size());
            for (Future<T> future : futures) {
                results.add(future.get(60, TimeUnit.SECONDS));
            }
            return results;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while racing", e);
        } catch (ExecutionException e) {
            throw new AssertionError("a racer failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new AssertionError("a racer did not finish within 60 s", e);
        }
    }
}
