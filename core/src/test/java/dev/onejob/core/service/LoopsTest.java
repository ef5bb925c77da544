package dev.onejob.core.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class LoopsTest {

    /** A loop that runs {@code body}, then waits until closed. */
    private static Loops.Loop loop(Runnable body, List<String> closed, String name) {
        CountDownLatch stop = new CountDownLatch(1);
        return new Loops.Loop() {
            @Override
            public void run() {
                body.run();
                try {
                    stop.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }

            @Override
            public void close() {
                closed.add(name);
                stop.countDown();
            }
        };
    }

    @Test
    void theFirstLoopThatDiesIsReportedAndHandedToThePolicyOnce() throws InterruptedException {
        List<String> policyCalls = new CopyOnWriteArrayList<>();
        Loops loops = new Loops(policyCalls::add);
        List<String> closed = new CopyOnWriteArrayList<>();
        loops.start("healthy", loop(() -> { }, closed, "healthy"));
        loops.start("job-requests-consumer", loop(() -> {
            throw new IllegalStateException("commit refused");
        }, closed, "consumer"));
        awaitDeath(loops);
        loops.start("outbox-relay", loop(() -> {
            throw new IllegalStateException("later");
        }, closed, "relay"));
        Thread.sleep(200); // the second death's handler has run by then; it must not replace the first

        String dead = loops.dead().orElseThrow();
        // the reason names the thread; the error's text stays in the log (it is what /health answers anyone)
        assertTrue(dead.contains("job-requests-consumer") && !dead.contains("commit refused"), dead);
        assertEquals(List.of(dead), policyCalls, "the policy runs once, for the first death");
        loops.close();
        assertEquals(List.of("relay", "consumer", "healthy"), closed, "loops stop in reverse order of start");
    }

    @Test
    void aLoopThatIsStillRunningIsNoDeath() {
        Loops loops = new Loops(reason -> {
            throw new AssertionError("no loop died, yet the policy ran: " + reason);
        });
        loops.start("healthy", loop(() -> { }, new CopyOnWriteArrayList<>(), "healthy"));
        assertTrue(loops.dead().isEmpty());
        loops.close();
        assertTrue(loops.dead().isEmpty(), "a loop asked to stop that stops is no death");
    }

    private static void awaitDeath(Loops loops) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (loops.dead().isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
    }
}
