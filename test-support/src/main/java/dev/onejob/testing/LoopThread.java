package dev.onejob.testing;

/**
 * A poll loop under test, run on a thread of its own: the test drives its mock clients and watches what it does, and
 * closing this closes the loop and waits (10 s at most) for its thread to end, also when the test failed half way.
 */
public record LoopThread(AutoCloseable loop, Thread thread) implements AutoCloseable {

    /** Starts {@code loop} on a thread named {@code name}. */
    public static <L extends Runnable & AutoCloseable> LoopThread start(String name, L loop) {
        Thread thread = new Thread(loop, name);
        thread.start();
        return new LoopThread(loop, thread);
    }

    /** Whether the loop still runs (it has not returned nor died). */
    public boolean isAlive() {
        return thread.isAlive();
    }

    @Override
    public void close() throws Exception {
        loop.close();
        thread.join(10_000);
    }
}
