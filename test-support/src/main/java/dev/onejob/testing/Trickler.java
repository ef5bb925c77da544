package dev.onejob.testing;

import java.io.IOException;
import java.net.Socket;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A client that sends a request body as slowly as a stalled one: a space every 100 ms on each socket it is given, from
 * one thread, until the socket fails (the server closed it) or the trickler is closed.
 */
public final class Trickler implements AutoCloseable {
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();

    /** Sends one space on {@code socket} every 100 ms from now on. */
    public void trickle(Socket socket) {
        timer.scheduleAtFixedRate(() -> {
            try {
                socket.getOutputStream().write(' ');
                socket.getOutputStream().flush();
            } catch (IOException ignored) {
                // the server closed it (a 408, say), or the test did: what it answered is the test's to read
            }
        }, 100, 100, TimeUnit.MILLISECONDS);
    }

    /** Runs {@code step} every {@code periodMillis}, for a test that sends something else than spaces. */
    public void every(long periodMillis, Runnable step) {
        timer.scheduleAtFixedRate(step, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
