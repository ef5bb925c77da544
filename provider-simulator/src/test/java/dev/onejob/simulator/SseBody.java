package dev.onejob.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Test-side reader of streamed answers: splits a {@code text/event-stream} body into events, strictly (every event
 * is at most an {@code event:} line and exactly one {@code data:} line, then a blank line), and reads a raw HTTP/1.1
 * response off a socket, to see exactly what a cut stream delivered.
 *
 * <p>Consumes response bodies and sockets; produces {@link Event}s and {@link Raw} responses. Owns nothing.
 */
final class SseBody {

    /** One event: its name ({@code null} when unnamed) and its data line. */
    record Event(String name, String data) {
        JsonNode json() {
            return SimHttp.json(data);
        }
    }

    /**
     * What came over the socket: the status line, the headers, the body (de-chunked), and whether it was complete
     * (the last chunk came, or as many bytes as {@code Content-Length} said).
     */
    record Raw(String statusLine, String headers, String body, boolean complete) {
    }

    private static final Pattern CONTENT_LENGTH = Pattern.compile("(?i)content-length: *(\\d+)");

    private SseBody() {
    }

    /** The events of {@code body}; fails on any framing the providers do not use. */
    static List<Event> events(String body) {
        if (!body.endsWith("\n\n")) {
            throw new AssertionError("an event stream ends with a blank line: " + tail(body));
        }
        List<Event> events = new ArrayList<>();
        for (String frame : body.substring(0, body.length() - 2).split("\n\n", -1)) {
            String[] lines = frame.split("\n", -1);
            String name = null;
            int next = 0;
            if (lines[0].startsWith("event: ")) {
                name = lines[0].substring("event: ".length());
                next = 1;
            }
            if (lines.length != next + 1 || !lines[next].startsWith("data: ")) {
                throw new AssertionError("not one [event line and] data line: " + frame);
            }
            events.add(new Event(name, lines[next].substring("data: ".length())));
        }
        return events;
    }

    /** Posts {@code json} with {@code headers} ("Name: value" lines) and reads the response until the server closes. */
    static Raw post(int port, String path, String headers, String json) throws IOException {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + headers + "Content-Length: " + body.length + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.write(body);
            out.flush();
            return parse(readAll(socket.getInputStream()));
        }
    }

    private static Raw parse(byte[] response) {
        String text = new String(response, StandardCharsets.UTF_8);
        int headEnd = text.indexOf("\r\n\r\n");
        if (headEnd < 0) {
            return new Raw(text, "", "", false);
        }
        String head = text.substring(0, headEnd);
        String statusLine = head.substring(0, head.indexOf("\r\n"));
        String rest = text.substring(headEnd + 4);
        Matcher length = CONTENT_LENGTH.matcher(head);
        if (length.find()) {
            int expected = Integer.parseInt(length.group(1));
            return new Raw(statusLine, head, rest, rest.getBytes(StandardCharsets.UTF_8).length == expected);
        }
        StringBuilder body = new StringBuilder();
        int at = 0;
        while (true) {
            int lineEnd = rest.indexOf("\r\n", at);
            if (lineEnd < 0) {
                return new Raw(statusLine, head, body.toString(), false);
            }
            int size = Integer.parseInt(rest.substring(at, lineEnd).trim(), 16);
            if (size == 0) {
                return new Raw(statusLine, head, body.toString(), true);
            }
            // Sizes count bytes; the events written here are ASCII JSON, so bytes and chars agree.
            body.append(rest, lineEnd + 2, lineEnd + 2 + size);
            at = lineEnd + 2 + size + 2;
        }
    }

    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        in.transferTo(bytes);
        return bytes.toByteArray();
    }

    private static String tail(String body) {
        return body.length() <= 80 ? body : "…" + body.substring(body.length() - 80);
    }
}
