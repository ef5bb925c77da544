package dev.onejob.providers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * Test fixture: a loopback port where a plain-HTTP server answers every connection at once with
 * {@code 400 Bad Request} in clear text, as a front server does when TLS bytes arrive on its HTTP port.
 *
 * <p>Consumes connections; produces that one answer per connection and counts them. Owns the listening socket
 * and its daemon accept thread; {@link #close()} stops both.
 */
final class PlainHttpPort implements AutoCloseable {

    private static final byte[] BAD_REQUEST = ("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n"
            + "Connection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII);

    private final ServerSocket server;

    PlainHttpPort() {
        try {
            server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Thread acceptor = new Thread(this::answerAll, "plain-http-port");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return server.getLocalPort();
    }

    private void answerAll() {
        while (!server.isClosed()) {
            try (Socket connection = server.accept()) {
                connection.getOutputStream().write(BAD_REQUEST);
                connection.getOutputStream().flush();
            } catch (IOException e) {
                // closed while accepting, or the client hung up first: either way nothing more to answer
            }
        }
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
