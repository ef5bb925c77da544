package dev.onejob.core.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.testing.Trickler;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Request bodies are read before the route runs and without a thread: clients that trickle their bodies hold
 * sockets, never the threads that serve everyone else, and a body that does not arrive in time, or arrives too
 * slowly, is answered 408 problem+json and its connection closed. Over real sockets.
 */
class SlowBodiesTest {
    private static final String HEAD = "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n";
    private final List<AutoCloseable> open = new ArrayList<>();
    private final ConcurrentLinkedQueue<String> seen = new ConcurrentLinkedQueue<>();
    private final Trickler trickler = new Trickler();

    @AfterEach
    void close() throws Exception {
        trickler.close();
        for (AutoCloseable closeable : open) {
            closeable.close();
        }
    }

    /** A server of two route threads whose one route answers with the length of the body it was given. */
    private WebServer start(Duration bodyTimeout, long minRate) throws IOException {
        WebServer.Settings settings = new WebServer.Settings("slow-bodies", "127.0.0.1", 0, 2, 1000, 8 * 1024,
                Duration.ofSeconds(60), Duration.ofSeconds(5), null).withBody(256 * 1024, bodyTimeout, minRate);
        WebServer server = WebServer.start(settings, call -> {
            byte[] body = call.body().readAllBytes();
            seen.add(call.rawPath() + " " + body.length);
            call.send(200, "text/plain", String.valueOf(body.length).getBytes(StandardCharsets.UTF_8));
        });
        open.add(server);
        return server;
    }

    @Test
    void fortyEightTrickledBodiesLeaveAFreshRequestAnsweredAtOnce() throws Exception {
        // given a server of two threads, and 48 clients each trickling a 200 kB body, one byte every 100 ms
        WebServer server = start(Duration.ofMinutes(5), 0);
        for (int i = 0; i < 48; i++) {
            Socket socket = sentInPart(server, HEAD + "Content-Length: 200000\r\n\r\n{", 0);
            open.add(socket);
            trickler.trickle(socket);
        }

        // when a fresh client asks, allowing it one second
        HttpResponse<String> answer = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + server.port() + "/echo"))
                .timeout(Duration.ofSeconds(1)).POST(HttpRequest.BodyPublishers.ofString("{\"a\":1}")).build(),
                HttpResponse.BodyHandlers.ofString());

        // then it is answered within that second, and no route saw any of the trickled bodies
        assertEquals(200, answer.statusCode());
        assertEquals("7", answer.body());
        assertEquals(List.of("/echo 7"), List.copyOf(seen));
    }

    /**
     * A connection that sent {@code start} (a request head and the first part of its body) and no more; reads on it
     * wait {@code readTimeoutMillis} at most (0: no limit).
     */
    private static Socket sentInPart(WebServer server, String start, int readTimeoutMillis) throws IOException {
        Socket socket = new Socket("127.0.0.1", server.port());
        socket.setSoTimeout(readTimeoutMillis);
        socket.getOutputStream().write(start.getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
        return socket;
    }

    @Test
    void aBodyThatDoesNotArriveInTimeGetsA408ProblemAndTheConnectionCloses() throws Exception {
        WebServer server = start(Duration.ofSeconds(1), 0);
        try (Socket socket = sentInPart(server, HEAD + "Content-Length: 100\r\n\r\n{\"half\":", 10_000)) {
            String answer = readAll(socket.getInputStream());
            assertTrue(answer.startsWith("HTTP/1.1 408 "), answer);
            assertTrue(answer.toLowerCase().contains("content-type: application/problem+json"), answer);
            assertTrue(answer.contains("\"type\":\"https://onejob.dev/problems/request-timeout\""), answer);
            assertTrue(answer.contains("did not arrive within 1000 ms"), answer);
        }
        assertTrue(seen.isEmpty(), "no route saw the body that did not arrive: " + seen);
    }

    @Test
    void aBodySlowerThanTheMinimumRateGetsA408Problem() throws Exception {
        // given a minimum of 1,000 bytes a second, and a client that sends 10
        WebServer server = start(Duration.ofMinutes(5), 1000);
        try (Socket socket = sentInPart(server, HEAD + "Content-Length: 100000\r\n\r\n{", 20_000)) {
            trickler.trickle(socket);
            String answer = readAll(socket.getInputStream());
            assertTrue(answer.startsWith("HTTP/1.1 408 "), answer);
            assertTrue(answer.contains("slower than 1000 bytes a second"), answer);
        }
        assertTrue(seen.isEmpty(), seen.toString());
    }

    @Test
    void wholeAndChunkedBodiesReachTheRouteAndAnOversizedOneIsCutOneBytePastTheLimit() throws Exception {
        WebServer server = start(Duration.ofSeconds(30), 4096);
        assertTrue(raw(server, HEAD + "Content-Length: 5\r\nConnection: close\r\n\r\nhello").endsWith("\r\n5"));
        assertTrue(raw(server, HEAD + "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0"
                + "\r\n\r\n").endsWith("\r\n5"));
        String big = "x".repeat(300 * 1024);
        String answer = raw(server, HEAD + "Content-Length: " + big.length() + "\r\nConnection: close\r\n\r\n" + big);
        // the route is handed the limit plus one byte, which tells it the body is too large
        assertTrue(answer.endsWith("\r\n" + (256 * 1024 + 1)), answer.substring(0, Math.min(200, answer.length())));
    }

    @Test
    void theTimeABodyTakesToArriveIsTheClientsNotCountedAsAWaitForAThread() throws Exception {
        // given a route that tells how long its request has waited on the server's side
        WebServer.Settings settings = new WebServer.Settings("slow-bodies", "127.0.0.1", 0, 2, 1000, 8 * 1024,
                Duration.ofSeconds(60), Duration.ofSeconds(5), null).withBody(256 * 1024, Duration.ofSeconds(30), 0);
        WebServer server = WebServer.start(settings, call -> call.send(200, "text/plain",
                String.valueOf(call.sinceHeadNanos() / 1_000_000).getBytes(StandardCharsets.UTF_8)));
        open.add(server);
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write((HEAD + "Content-Length: 10\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            // when its body comes a byte every 150 ms, 1.5 s in all
            AtomicInteger sent = new AtomicInteger();
            trickler.every(150, () -> {
                try {
                    if (sent.incrementAndGet() <= 10) {
                        socket.getOutputStream().write('x');
                        socket.getOutputStream().flush();
                    }
                } catch (IOException ignored) {
                    // the answer is read below
                }
            });
            String answer = readAll(socket.getInputStream());

            // then the route counts none of that as the server's wait (a shedding bound of 500 ms would refuse it)
            assertTrue(answer.startsWith("HTTP/1.1 200 "), answer);
            long waited = Long.parseLong(answer.substring(answer.indexOf("\r\n\r\n") + 4).trim());
            assertTrue(waited < 500, "the server counted " + waited + " ms of the client's upload as its own wait");
        }
    }

    private static String raw(WebServer server, String request) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            return readAll(socket.getInputStream());
        }
    }

    private static String readAll(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        in.transferTo(out);
        return out.toString(StandardCharsets.UTF_8);
    }
}
