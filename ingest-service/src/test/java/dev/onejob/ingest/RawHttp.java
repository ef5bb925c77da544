package dev.onejob.ingest;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * HTTP/1.1 over a plain socket, for requests a well-behaved client refuses to send: duplicate or control-character
 * headers, raw bytes in header values, any method, any request target, a Content-Length that lies. Every request
 * asks for {@code Connection: close}; the answer is read up to its Content-Length (or the end of the stream).
 * Bodies are written on a helper thread so a server that answers before reading them cannot deadlock the test.
 */
final class RawHttp {
    private static final ExecutorService WRITERS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "raw-http-writer");
        t.setDaemon(true);
        return t;
    });

    private RawHttp() {
    }

    /** One header line as sent: the value's bytes go on the wire exactly as given (UTF-8 of the string). */
    record Header(String name, String value) {
    }

    /** What came back; {@code status} is -1 when no complete answer arrived ({@code error} says why). */
    record Response(int status, Map<String, List<String>> headers, byte[] body, String error) {
        String header(String name) {
            List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
            return values == null || values.isEmpty() ? null : values.get(0);
        }

        List<String> headerValues(String name) {
            return headers.getOrDefault(name.toLowerCase(Locale.ROOT), List.of());
        }

        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        @Override
        public String toString() {
            String text = text();
            return status + " " + headers + " " + (text.length() > 600 ? text.substring(0, 600) + "..." : text)
                    + (error == null ? "" : " error=" + error);
        }
    }

    /**
     * Sends {@code method target} with the given headers and body; {@code contentLength} true adds a correct
     * Content-Length for a non-null body (false leaves it to the caller's headers, or out).
     */
    static Response send(int port, String method, String target, List<Header> headers, byte[] body,
                         boolean contentLength) {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        write(head, method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nConnection: close\r\n");
        for (Header header : headers) {
            write(head, header.name() + ": " + header.value() + "\r\n");
        }
        if (body != null && contentLength) {
            write(head, "Content-Length: " + body.length + "\r\n");
        }
        write(head, "\r\n");
        return exchange(port, head.toByteArray(), body == null ? new byte[0] : body, method.equals("HEAD"));
    }

    private static void write(ByteArrayOutputStream out, String text) {
        out.writeBytes(text.getBytes(StandardCharsets.UTF_8));
    }

    private static Response exchange(int port, byte[] head, byte[] body, boolean toHead) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            var written = WRITERS.submit(() -> {
                try {
                    out.write(head);
                    out.write(body);
                    out.flush();
                } catch (IOException e) {
                    // The server may answer (413) and close before reading a large body: the answer still counts.
                }
                return null;
            });
            Response response = read(socket.getInputStream(), toHead);
            written.cancel(true);
            return response;
        } catch (IOException e) {
            return new Response(-1, Map.of(), new byte[0], e.toString());
        }
    }

    private static Response read(InputStream in, boolean toHead) {
        ByteArrayOutputStream raw = new ByteArrayOutputStream();
        String error = null;
        byte[] buffer = new byte[16 * 1024];
        try {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                raw.write(buffer, 0, n);
                Response complete = parse(raw.toByteArray(), false, toHead);
                if (complete != null) {
                    return complete;
                }
            }
        } catch (IOException e) {
            error = e.toString();
        }
        Response atEnd = parse(raw.toByteArray(), true, toHead);
        return atEnd != null ? atEnd
                : new Response(-1, Map.of(), raw.toByteArray(), error == null ? "connection closed without an answer"
                : error);
    }

    /**
     * The answer if {@code bytes} hold a complete one (at the end of the stream, whatever body there is). The answer
     * to a HEAD has no content, whatever its Content-Length says (RFC 9110 9.3.2).
     */
    private static Response parse(byte[] bytes, boolean atEnd, boolean toHead) {
        int headEnd = indexOf(bytes, "\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
        if (headEnd < 0) {
            return null;
        }
        String[] lines = new String(bytes, 0, headEnd, StandardCharsets.ISO_8859_1).split("\r\n");
        String[] statusLine = lines[0].split(" ", 3);
        if (statusLine.length < 2 || !statusLine[0].startsWith("HTTP/")) {
            return null;
        }
        int status = Integer.parseInt(statusLine[1]);
        Map<String, List<String>> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) {
                headers.computeIfAbsent(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
                        k -> new ArrayList<>()).add(lines[i].substring(colon + 1).trim());
            }
        }
        int bodyStart = headEnd + 4;
        if (toHead) {
            return new Response(status, headers, new byte[0], null);
        }
        List<String> length = headers.get("content-length");
        if (length != null) {
            int declared = Integer.parseInt(length.get(0));
            if (bytes.length - bodyStart < declared) {
                return null;
            }
            return new Response(status, headers, Arrays.copyOfRange(bytes, bodyStart, bodyStart + declared),
                    null);
        }
        List<String> encoding = headers.get("transfer-encoding");
        if (encoding != null && encoding.get(0).equalsIgnoreCase("chunked")) {
            byte[] decoded = dechunk(bytes, bodyStart);
            return decoded == null ? null : new Response(status, headers, decoded, null);
        }
        return atEnd ? new Response(status, headers, Arrays.copyOfRange(bytes, bodyStart, bytes.length), null)
                : null;
    }

    private static byte[] dechunk(byte[] bytes, int at) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int position = at;
        while (true) {
            int lineEnd = indexOf(bytes, position, "\r\n".getBytes(StandardCharsets.ISO_8859_1));
            if (lineEnd < 0) {
                return null;
            }
            String sizeText = new String(bytes, position, lineEnd - position, StandardCharsets.ISO_8859_1);
            int semicolon = sizeText.indexOf(';');
            int size = Integer.parseInt((semicolon < 0 ? sizeText : sizeText.substring(0, semicolon)).trim(), 16);
            position = lineEnd + 2;
            if (size == 0) {
                return out.toByteArray();
            }
            if (bytes.length < position + size + 2) {
                return null;
            }
            out.write(bytes, position, size);
            position += size + 2;
        }
    }

    private static int indexOf(byte[] bytes, byte[] pattern) {
        return indexOf(bytes, 0, pattern);
    }

    private static int indexOf(byte[] bytes, int from, byte[] pattern) {
        outer:
        for (int i = from; i <= bytes.length - pattern.length; i++) {
            for (int j = 0; j < pattern.length; j++) {
                if (bytes[i + j] != pattern[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
