package dev.onejob.stack.infra;

import dev.onejob.infra.proc.ChildProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * Loopback ports for the processes a run of the stack starts: a free one to hand to a child, and waiting until a child
 * listens on its port. Owns nothing; every socket it opens is closed before it returns.
 */
public final class LoopbackPorts {
    public static final String HOST = "127.0.0.1";

    private LoopbackPorts() {
    }

    /** A port nobody listens on right now; the child binds it moments later, so a clash is possible but rare. */
    public static int free() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }

    static boolean accepts(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(HOST, port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Waits until {@code process} accepts connections on {@code port}; fails with {@code diagnostics} (the
     * process's own error output) if it exits first or time runs out.
     */
    static void awaitListening(ChildProcess process, int port, Duration timeout, Supplier<String> diagnostics) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!accepts(port)) {
            if (!process.isAlive()) {
                throw new IllegalStateException(process.name() + " exited before it listened on " + HOST + ":"
                        + port + "; its log ends:\n" + diagnostics.get());
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(process.name() + " did not listen on " + HOST + ":" + port
                        + " within " + timeout.toSeconds() + " s; its log ends:\n" + diagnostics.get());
            }
            pause(50);
        }
    }

    static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
