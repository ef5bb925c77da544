package dev.onejob.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Behaviours that act on time and on the connection: delay, hang, reset, refused connections. */
class ConnectionBehaviourIT extends SimulatorPerTest {

    ConnectionBehaviourIT() {
        super(SimulatorConfig.defaults().withName("connection-it"));
    }

    @Test
    void answerWithDelayArrivesNoSoonerThanTheDelay() throws Exception {
        // given
        simulator.setDefaultBehaviour(Behaviour.answerAfter(Duration.ofMillis(300)));
        long started = System.nanoTime();

        // when
        HttpResponse<String> response = http.openAi(SimHttp.openAiBody("hi", null), null);

        // then
        assertEquals(200, response.statusCode());
        assertTrue(Duration.ofNanos(System.nanoTime() - started).toMillis() >= 300);
    }

    @Test
    void hangThenAnswerAnswersLateWhileOtherRequestsAreServed() throws Exception {
        // given
        simulator.setBehaviour("slow", Behaviour.hangThenAnswer(Duration.ofMillis(1000)));
        long started = System.nanoTime();
        CompletableFuture<HttpResponse<String>> slow = http.openAiAsync(SimHttp.openAiBody("hi", null), "slow");
        awaitLedgerSize(1);

        // when
        HttpResponse<String> other = http.openAi(SimHttp.openAiBody("hi", null), "fast");

        // then
        assertEquals(200, other.statusCode());
        assertFalse(slow.isDone(), "the hanging request must still be waiting");
        assertEquals(200, slow.get(5, TimeUnit.SECONDS).statusCode());
        assertTrue(Duration.ofNanos(System.nanoTime() - started).toMillis() >= 1000);
        assertEquals(200, simulator.ledger().get(0).status());
    }

    @Test
    void hangForeverLeavesTheClientToTimeOutAndIsLedgeredWithoutStatus() throws Exception {
        // given
        simulator.setDefaultBehaviour(Behaviour.hangForever());

        // when
        HttpTimeoutException timeout = assertThrows(HttpTimeoutException.class, () ->
                http.withTimeout(Duration.ofMillis(300)).openAi(SimHttp.openAiBody("hi", null), "k"));

        // then
        assertTrue(timeout.getMessage().contains("timed out"), timeout.getMessage());
        LedgerEntry entry = simulator.ledger().get(0);
        assertEquals("hang", entry.behaviour());
        assertNull(entry.status());
    }

    @Test
    void closingTheSimulatorReleasesAHangingRequest() throws Exception {
        // given
        simulator.setDefaultBehaviour(Behaviour.hangForever());
        CompletableFuture<HttpResponse<String>> hanging = http.openAiAsync(SimHttp.openAiBody("hi", null), null);
        awaitLedgerSize(1);

        // when
        simulator.close();

        // then
        ExecutionException failure = assertThrows(ExecutionException.class, () -> hanging.get(5, TimeUnit.SECONDS));
        assertInstanceOf(IOException.class, failure.getCause());
    }

    @Test
    void resetClosesTheConnectionWithoutAResponse() throws Exception {
        // given
        simulator.setBehaviour("doomed", Behaviour.reset());

        // when
        IOException failure = assertThrows(IOException.class,
                () -> http.openAi(SimHttp.openAiBody("hi", null), "doomed"));

        // then
        assertFalse(failure instanceof HttpTimeoutException, failure.toString());
        assertEquals(1, simulator.requestsWithIdempotencyKey("doomed"));
        assertEquals("reset", simulator.ledger().get(0).behaviour());
        assertNull(simulator.ledger().get(0).status());
    }

    @Test
    void refusingConnectionsClosesThePortAndAcceptingAgainReopensTheSamePort() throws Exception {
        // given
        int port = simulator.port();
        assertTrue(canConnect(port));

        // when
        simulator.refuseConnections(true);

        // then
        assertTrue(simulator.isRefusingConnections());
        assertThrows(ConnectException.class, () -> connect(port));
        assertThrows(ConnectException.class, () -> http.openAi(SimHttp.openAiBody("hi", null), null));

        // when
        simulator.refuseConnections(false);

        // then
        assertEquals(port, simulator.port());
        assertEquals(200, http.openAi(SimHttp.openAiBody("hi", null), null).statusCode());
    }

    private void awaitLedgerSize(int size) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (simulator.ledger().size() < size) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("ledger never reached " + size + " entries: " + simulator.ledger());
            }
            Thread.sleep(10);
        }
    }

    static boolean canConnect(int port) {
        try {
            connect(port);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    static void connect(int port) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
        }
    }
}
