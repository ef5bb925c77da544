package dev.onejob.stack.infra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class NginxIT {
    private static final Duration QUICK = Duration.ZERO;
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Test
    void getsAreSpreadRoundRobinOverBothInstances() throws Exception {
        // given nginx in front of two instances
        try (RecordingUpstream a = new RecordingUpstream("A", QUICK);
             RecordingUpstream b = new RecordingUpstream("B", QUICK);
             Nginx nginx = start("round-robin", NginxConfig.roundRobin(List.of(a.port(), b.port())))) {
            // when ten GETs go through it one after another
            for (int i = 0; i < 10; i++) {
                assertEquals(200, send(nginx, "GET", null).statusCode());
            }

            // then each instance served half of them
            assertEquals(5, a.received().size(), "A saw " + a.received());
            assertEquals(5, b.received().size(), "B saw " + b.received());
        }
    }

    @Test
    void aPostThatTimesOutOnOneInstanceIsRetriedOnTheOtherWithTheSameKey() throws Exception {
        // given instance A answers only after nginx's read timeout
        try (RecordingUpstream a = new RecordingUpstream("A", Duration.ofSeconds(3));
             RecordingUpstream b = new RecordingUpstream("B", QUICK);
             Nginx nginx = start("read-timeout", NginxConfig.roundRobin(List.of(a.port(), b.port()))
                     .withTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(1)))) {
            // when POSTs go through it until one has been sent to A first
            List<String> keys = new ArrayList<>();
            for (int i = 0; i < 4 && a.received().isEmpty(); i++) {
                String key = UUID.randomUUID().toString();
                keys.add(key);
                HttpResponse<String> response = send(nginx, "POST", key);

                // then every client gets B's answer
                assertEquals(200, response.statusCode());
                assertEquals("B", response.body());
            }

            // and the POST A timed out on reached B too, with the same Idempotency-Key
            assertFalse(a.received().isEmpty(), "no POST went to A first");
            assertEquals("POST", a.received().get(0).method());
            String retried = a.received().get(0).idempotencyKey();
            assertTrue(b.keys().contains(retried), "B saw " + b.keys() + ", A saw " + retried);
            assertEquals(keys, b.keys());
            // and the access log names both instances for that request
            String line = accessLogLine(nginx, retried);
            assertTrue(line.contains("127.0.0.1:" + a.port() + ", 127.0.0.1:" + b.port()), line);
        }
    }

    @Test
    void postsSucceedThroughTheOtherInstanceWhileOneRefusesConnections() throws Exception {
        // given instance A is down (connection refused)
        try (RecordingUpstream a = new RecordingUpstream("A", QUICK);
             RecordingUpstream b = new RecordingUpstream("B", QUICK);
             Nginx nginx = start("refused", NginxConfig.roundRobin(List.of(a.port(), b.port())))) {
            a.stop();

            // when POSTs go through nginx
            for (int i = 0; i < 6; i++) {
                HttpResponse<String> response = send(nginx, "POST", UUID.randomUUID().toString());

                // then every one succeeds with B's answer
                assertEquals(200, response.statusCode());
                assertEquals("B", response.body());
            }
            assertEquals(6, b.received().size());
            assertTrue(a.received().isEmpty());
        }
    }

    private static Nginx start(String name, NginxConfig config) {
        return Nginx.start(InfraRuns.runner("nginx-" + name), InfraRuns.root(),
                InfraRuns.dir("nginx-" + name).resolve("nginx"), config);
    }

    private HttpResponse<String> send(Nginx nginx, String method, String key) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(nginx.url() + "/jobs"))
                .timeout(Duration.ofSeconds(20))
                .method(method, key == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString("{\"prompt\":\"hello\"}"));
        if (key != null) {
            request.header("Idempotency-Key", key).header("Content-Type", "application/json");
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String accessLogLine(Nginx nginx, String key) throws IOException {
        return Files.readAllLines(nginx.accessLog()).stream().filter(l -> l.endsWith(" " + key)).findFirst()
                .orElseThrow(() -> new AssertionError("no access log line for " + key));
    }
}
