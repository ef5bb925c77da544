package dev.onejob.chaos.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onejob.chaos.sim.FaultPlan.Fault;
import dev.onejob.simulator.SimulatorConfig;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A chaos simulator wired as {@link ChaosSimulatorMain} wires it, driven over real HTTP on loopback. */
class ChaosSimulatorIT {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String API_KEY = "sk-chaos-it";
    private static final long SEED = 20240601L;

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private ChaosSimulator chaos;

    @BeforeEach
    void start() throws IOException {
        ChaosSimulatorConfig config = ChaosSimulatorConfig.fromEnvironment(Map.of("SIM_PORT", "0",
                "SIM_NAME", "chaos-it", "SIM_API_KEY", API_KEY, "CHAOS_SEED", String.valueOf(SEED),
                "CHAOS_LATE_ANSWER_MS", "300", "CHAOS_ANSWER_DELAY_MS", "0"));
        chaos = ChaosSimulator.start(config);
    }

    @AfterEach
    void stop() {
        chaos.close();
    }

    @Test
    void plannedKeysMeetTheirFaultsAndTheLedgerRecordsThem() throws Exception {
        // given
        String failing = keyMeeting(Fault.SERVER_ERROR);
        String normal = keyMeeting(Fault.ANSWER);
        String violating = keyMeeting(Fault.CONTRACT_VIOLATION);

        // when
        HttpResponse<String> error = chat(failing, Duration.ofSeconds(10));
        HttpResponse<String> answer = chat(normal, Duration.ofSeconds(10));
        HttpResponse<String> violation = chat(violating, Duration.ofSeconds(10));

        // then
        assertEquals(500, error.statusCode());
        assertEquals(200, answer.statusCode());
        assertEquals(200, violation.statusCode());
        Map<String, JsonNode> ledger = ledgerByKey();
        assertEquals("status", ledger.get(failing).get("behaviour").asText());
        assertEquals(500, ledger.get(failing).get("status").asInt());
        assertEquals("answer", ledger.get(normal).get("behaviour").asText());
        assertEquals(200, ledger.get(normal).get("status").asInt());
        assertTrue(Set.of("invent_key", "drop_field").contains(
                ledger.get(violating).get("behaviour").asText()), ledger.get(violating).toString());
    }

    @Test
    void lateAnswersComeLateAndHangsNeverAnswer() throws Exception {
        // given
        String late = keyMeeting(Fault.LATE_ANSWER);
        String hanging = keyMeeting(Fault.HANG_FOREVER);
        long started = System.nanoTime();

        // when
        HttpResponse<String> lateAnswer = chat(late, Duration.ofSeconds(10));
        long lateMs = Duration.ofNanos(System.nanoTime() - started).toMillis();

        // then
        assertEquals(200, lateAnswer.statusCode());
        assertTrue(lateMs >= 300, "answered after " + lateMs + " ms");
        assertThrows(HttpTimeoutException.class, () -> chat(hanging, Duration.ofMillis(700)));
        assertEquals("hang", ledgerByKey().get(hanging).get("behaviour").asText());
    }

    @Test
    void switchingFaultsOffAnswersEveryKeyNormally() throws Exception {
        // given
        String failing = keyMeeting(Fault.SERVER_ERROR);

        // when
        HttpResponse<String> off = control("POST", "/faults?on=false");
        HttpResponse<String> answer = chat(failing, Duration.ofSeconds(10));
        control("POST", "/faults?on=true");
        HttpResponse<String> error = chat(failing, Duration.ofSeconds(10));

        // then
        assertEquals(200, off.statusCode());
        assertFalse(MAPPER.readTree(off.body()).get("faults").asBoolean());
        assertEquals(200, answer.statusCode());
        assertEquals(500, error.statusCode());
    }

    @Test
    void anOutageRefusesConnectionsThenTheSamePortAcceptsAgain() throws Exception {
        // given
        assertEquals(200, control("GET", "/health").statusCode());
        assertTrue(connects(), "the simulator must accept connections before the outage");

        // when
        long started = System.nanoTime();
        HttpResponse<String> accepted = control("POST", "/outage?ms=1500");

        // then
        assertEquals(202, accepted.statusCode());
        assertFalse(connects(), "a connection during the outage must be refused");
        assertTrue(MAPPER.readTree(control("GET", "/health").body()).get("refusing").asBoolean());
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!connects() && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        long outageMs = Duration.ofNanos(System.nanoTime() - started).toMillis();
        assertTrue(outageMs >= 1500, "accepted again after " + outageMs + " ms");
        assertEquals(200, chat(keyMeeting(Fault.ANSWER), Duration.ofSeconds(10)).statusCode());
    }

    @Test
    void anOutageWithoutAPositiveDurationIsRefused() throws Exception {
        assertEquals(400, control("POST", "/outage?ms=0").statusCode());
        assertEquals(400, control("POST", "/outage").statusCode());
        assertEquals(405, control("GET", "/outage?ms=100").statusCode());
        assertTrue(connects());
    }

    @Test
    void theStartedLineNamesBothListenersAndThePlan() {
        // when
        String line = ChaosSimulatorMain.startedLine(chaos);

        // then
        assertEquals("event=started service=provider-simulator name=chaos-it url=" + chaos.url() + " control="
                + chaos.controlUrl() + " plan=" + FaultPlan.withDefaults(SEED).withLateAnswerMs(300)
                .withAnswerDelayMs(0).describe(), line);
    }

    private String keyMeeting(Fault fault) {
        while (true) {
            String key = UUID.randomUUID().toString();
            if (chaos.activePlan().faultFor(key) == fault) {
                return key;
            }
        }
    }

    private HttpResponse<String> chat(String idempotencyKey, Duration timeout)
            throws IOException, InterruptedException {
        String body = """
                {"model":"gpt-4o-mini","temperature":0,"max_tokens":200,
                 "messages":[{"role":"system","content":"Classify the review."},
                             {"role":"user","content":"Great value, arrived on time."}],
                 "response_format":{"type":"json_schema","json_schema":{"name":"review","strict":true,"schema":
                   {"type":"object","properties":{"sentiment":{"type":"string","enum":["positive","negative"]}},
                    "required":["sentiment"],"additionalProperties":false}}}}
                """;
        HttpRequest request = HttpRequest.newBuilder(URI.create(chaos.url() + "/v1/chat/completions"))
                .timeout(timeout)
                .header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + API_KEY)
                .header("Idempotency-Key", idempotencyKey)
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private Map<String, JsonNode> ledgerByKey() throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(chaos.url() + "/_sim/ledger")).GET().build();
        Map<String, JsonNode> byKey = new HashMap<>();
        MAPPER.readTree(client.send(request, HttpResponse.BodyHandlers.ofString()).body())
                .forEach(entry -> byKey.put(entry.get("idempotency_key").asText(), entry));
        return byKey;
    }

    private HttpResponse<String> control(String method, String pathAndQuery) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(chaos.controlUrl() + pathAndQuery))
                .timeout(Duration.ofSeconds(5))
                .method(method, HttpRequest.BodyPublishers.noBody())
                .build();
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }

    /** A plain TCP connect to the simulator's port: refused during an outage. */
    private boolean connects() throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", chaos.simulator().port()), 1000);
            return true;
        } catch (ConnectException e) {
            return false;
        }
    }
}
