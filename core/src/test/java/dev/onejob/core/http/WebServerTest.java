package dev.onejob.core.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.json.Json;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server every onejob HTTP endpoint runs on, over real sockets: stalled clients cost no thread, every refusal
 * is problem+json, header values are taken exactly as sent. Bounded, not timed: each wait has a limit far above what
 * a healthy server needs.
 */
class WebServerTest {
    private final List<AutoCloseable> open = new ArrayList<>();
    private final ConcurrentLinkedQueue<String> seen = new ConcurrentLinkedQueue<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable closeable : open) {
            closeable.close();
        }
    }

    private WebServer start(WebServer.Settings settings) throws IOException {
        WebServer server = WebServer.start(settings, call -> {
            seen.add(call.method() + " " + call.rawPath() + " key=" + call.header("Idempotency-Key"));
            call.send(200, "application/json", "{\"ok\":true}".getBytes(StandardCharsets.UTF_8));
        });
        open.add(server);
        return server;
    }

    private static WebServer.Settings settings(int threads) {
        return new WebServer.Settings("test-http", "127.0.0.1", 0, threads, 1000, 8 * 1024, Duration.ofSeconds(30),
                Duration.ofSeconds(1), null);
    }

    @Test
    void aHundredStalledConnectionsLeaveAFreshClientAnswered() throws Exception {
        // given a server with 2 route threads, and 100 connections that each sent half a request head and stalled
        WebServer server = start(settings(2));
        for (int i = 0; i < 100; i++) {
            Socket socket = new Socket("127.0.0.1", server.port());
            open.add(socket);
            socket.getOutputStream().write("POST /v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Ty".getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
        }

        // when a fresh client asks
        HttpResponse<String> answer = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()
                .send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/health/live"))
                        .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());

        // then it is answered
        assertEquals(200, answer.statusCode());
    }

    @Test
    void aStalledRequestHeadGetsA408ProblemAndTheConnectionCloses() throws Exception {
        WebServer server = start(settings(2));
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write("GET /x HTTP/1.1\r\nHost: x\r\nX-Slow: ".getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            String answer = readAll(socket.getInputStream());
            assertTrue(answer.startsWith("HTTP/1.1 408 "), answer);
            assertEquals(1, answer.split("HTTP/1.1 ", -1).length - 1, "one answer, then the connection closed: "
                    + answer);
            assertProblem(answer, 408, "request-timeout");
        }
        assertTrue(seen.isEmpty(), "no route saw the stalled request: " + seen);
    }

    @Test
    void aControlCharacterInAHeaderValueIsRefusedNotTrimmed() throws Exception {
        WebServer server = start(settings(2));
        for (String value : List.of("k\u0001", "k\u000b", "\u0001k")) {
            String answer = raw(server, "GET /v1/jobs HTTP/1.1\r\nHost: x\r\nIdempotency-Key: " + value
                    + "\r\nConnection: close\r\n\r\n");
            assertTrue(answer.startsWith("HTTP/1.1 400 "), value.codePointAt(value.length() - 1) + ": " + answer);
            assertProblem(answer, 400, "bad-request");
        }
        assertTrue(seen.isEmpty(), "no route saw a control character: " + seen);
    }

    @Test
    void malformedHttpIsA400Problem() throws Exception {
        WebServer server = start(settings(2));
        for (String request : List.of("GARBAGE\r\n\r\n", "GET /x HTTP/9.9\r\nHost: x\r\n\r\n",
                "GET /x HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n")) {
            String answer = raw(server, request);
            assertTrue(answer.matches("(?s)HTTP/1.1 (400|505) .*"), request + " -> " + answer);
            assertTrue(answer.toLowerCase().contains("content-type: application/problem+json"), answer);
        }
        assertTrue(seen.isEmpty(), seen.toString());
    }

    @Test
    void aTooLargeHeadIsA431Problem() throws Exception {
        WebServer server = start(settings(2));
        String answer = raw(server, "GET /x HTTP/1.1\r\nHost: x\r\nX-Big: " + "a".repeat(9000)
                + "\r\nConnection: close\r\n\r\n");
        assertTrue(answer.startsWith("HTTP/1.1 431 "), answer);
        assertProblem(answer, 431, "request-header-fields-too-large");
    }

    @Test
    void headerValuesAndEncodedPathsArriveExactlyAsSent() throws Exception {
        WebServer server = start(settings(2));
        String answer = raw(server, "POST /v1/jobs/a%2Fb HTTP/1.1\r\nHost: x\r\nIdempotency-Key:  k-1 \t\r\n"
                + "Content-Length: 0\r\nConnection: close\r\n\r\n");
        assertTrue(answer.startsWith("HTTP/1.1 200 "), answer);
        // RFC 9110 5.5: spaces and tabs around a value are not part of it; everything else is.
        assertEquals(List.of("POST /v1/jobs/a%2Fb key=k-1"), List.copyOf(seen));
    }

    @Test
    void aRouteThatFailsGetsA500ProblemNotAStackTrace() throws Exception {
        WebServer server = WebServer.start(settings(2), call -> {
            throw new IllegalStateException("boom at line 42");
        });
        open.add(server);
        String answer = raw(server, "GET /x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        assertTrue(answer.startsWith("HTTP/1.1 500 "), answer);
        assertProblem(answer, 500, "internal");
        assertTrue(!answer.contains("boom") && !answer.contains("IllegalStateException"), answer);
    }

    @Test
    void servesHttpsFromPemFiles(@TempDir Path dir) throws Exception {
        // given a self-signed certificate and its PKCS#8 key as PEM files (made with the JDK's keytool)
        Path store = dir.resolve("store.p12");
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "t", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=127.0.0.1",
                "-ext", "SAN=ip:127.0.0.1", "-validity", "2", "-storetype", "PKCS12", "-keystore", store.toString(),
                "-storepass", "changeit").redirectErrorStream(true).start();
        assertEquals(0, keytool.waitFor(), new String(keytool.getInputStream().readAllBytes()));
        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            keys.load(in, "changeit".toCharArray());
        }
        X509Certificate certificate = (X509Certificate) keys.getCertificate("t");
        Path cert = dir.resolve("cert.pem");
        Path key = dir.resolve("key.pem");
        Files.writeString(cert, pem("CERTIFICATE", certificate.getEncoded()));
        Files.writeString(key, pem("PRIVATE KEY", keys.getKey("t", "changeit".toCharArray()).getEncoded()));
        WebServer server = start(settings(2).withTls(new PemTls(cert, key)));

        // when a client that trusts that certificate asks over HTTPS
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("t", certificate);
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(trust);
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(null, factory.getTrustManagers(), null);
        HttpResponse<String> answer = HttpClient.newBuilder().sslContext(tls).build()
                .send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + server.port() + "/ok"))
                        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());

        // then it is answered, and plain HTTP on the same port is not
        assertEquals(200, answer.statusCode());
        // and a TLS connection idle past the request-head time limit is not taken for a stalled head
        try (SSLSocket socket = (SSLSocket) tls.getSocketFactory()
                .createSocket("127.0.0.1", server.port())) {
            socket.setSoTimeout(10_000);
            socket.startHandshake();
            Thread.sleep(2_500);
            socket.getOutputStream().write("GET /ok HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            String later = readAll(socket.getInputStream());
            assertTrue(later.startsWith("HTTP/1.1 200 "), later);
        }
        String plain = raw(server, "GET /ok HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        assertTrue(!plain.startsWith("HTTP/1.1 200"), plain);
    }

    @Test
    void aKeyInAnotherFormatFailsWithTheReason(@TempDir Path dir) throws Exception {
        Path cert = dir.resolve("cert.pem");
        Path key = dir.resolve("key.pem");
        Files.writeString(cert, "not a certificate");
        Files.writeString(key, "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n");
        IllegalArgumentException e = Assertions.assertThrows(IllegalArgumentException.class,
                () -> new PemTls(cert, key).keyStore());
        assertTrue(e.getMessage().contains("certificate") || e.getMessage().contains("PKCS#8"), e.getMessage());
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }

    private static void assertProblem(String answer, int status, String type) {
        assertTrue(answer.toLowerCase().contains("content-type: application/problem+json"), answer);
        JsonNode body = Json.parse(answer.substring(answer.indexOf("\r\n\r\n") + 4));
        assertEquals(status, body.path("status").asInt(), answer);
        assertEquals(ProblemJson.TYPE_BASE + type, body.path("type").asText(), answer);
        assertTrue(!body.path("detail").asText().isBlank(), answer);
    }

    private static String raw(WebServer server, String request) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", server.port()), 5_000);
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(request.getBytes(StandardCharsets.UTF_8));
            out.flush();
            return readAll(socket.getInputStream());
        }
    }

    private static String readAll(InputStream in) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        int n;
        try {
            while ((n = in.read(buffer)) >= 0) {
                bytes.write(buffer, 0, n);
            }
        } catch (SocketException e) {
            // a reset after the answer: what was read is the answer
        }
        return bytes.toString(StandardCharsets.ISO_8859_1);
    }
}
