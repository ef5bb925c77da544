package dev.onejob.providers;

import static dev.onejob.providers.SimulatedProvider.awaitKind;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.config.ProviderProtocol;
import dev.onejob.core.contract.Contract;
import dev.onejob.core.contract.Contracts;
import dev.onejob.core.ledger.AttemptFailure;
import dev.onejob.simulator.Behaviour;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Unstreamed replies are read with a bound: an answer longer than {@link ProviderConfig#ANSWER_BYTES_LIMIT} is
 * {@code answer_too_large} (billed, from the usage at its end, as a streamed one is) without being kept, and an error
 * reply's body is cut at {@link BoundedBody#ERROR_BYTES_LIMIT}, even one that never ends.
 */
class ProviderReplySizeIT {
    /** Sentiment with a summary of any length, which the simulator's large_answer grows to the size asked. */
    private static final String ESSAY = """
            id: essay
            description: Sentiment with a summary as long as the provider writes it.
            prompt:
              system: Answer only with JSON that matches the given schema.
              user: "Text: {{text}}"
            variables_schema:
              type: object
              required: [text]
              properties:
                text: {type: string, minLength: 1}
            output_schema:
              type: object
              required: [sentiment, summary]
              properties:
                sentiment: {enum: [positive, negative, neutral]}
                summary: {type: string}
            max_tokens: 200
            golden:
              - variables: {text: "I loved it."}
                expect: {sentiment: positive}
            """;

    @TempDir
    Path contracts;
    /** A simulator of its own for each test, closed after it. */
    @AutoClose
    private final SimulatedProvider provider = SimulatedProvider.start();

    @ParameterizedTest
    @EnumSource(ProviderProtocol.class)
    void anUnstreamedAnswerOverTheLimitIsTooLargeAndBilledWithoutBeingKept(ProviderProtocol protocol)
            throws IOException {
        // given a provider that answers with a valid answer of 16 MiB, past the 12 MiB any reply may have
        int size = 16 * 1024 * 1024;
        assertTrue(size > ProviderConfig.ANSWER_BYTES_LIMIT);

        // when it is called without streaming
        Files.writeString(contracts.resolve("essay.yaml"), ESSAY);
        Contract essay = Contracts.load(contracts).find("essay").orElseThrow();
        UUID attemptId = UUID.randomUUID();
        provider.sim.setBehaviour(attemptId.toString(), Behaviour.largeAnswer(size));
        ProviderCall call = provider.clients.call(provider.provider(protocol), essay,
                SimulatedProvider.variables("I loved it"), attemptId);

        // then the call failed as an answer too large, sent and billed, not retried, naming the bound it passed
        CallOutcome.Failed failed = awaitKind(call.atSoftDeadline(), CallOutcome.Failed.class);
        assertEquals(AttemptFailure.ANSWER_TOO_LARGE, failed.code());
        assertTrue(failed.sent());
        assertFalse(failed.retryable());
        assertEquals(200, failed.httpStatus());
        assertTrue(failed.message().contains("over the " + ProviderConfig.ANSWER_BYTES_LIMIT + " any reply may have"),
                failed::message);
        assertNotNull(failed.usage(), "the usage at the reply's end is kept, as for a streamed answer");
        assertTrue(failed.usage().outputTokens() > 1_000_000, failed.usage()::toString);
    }

    @ParameterizedTest
    @EnumSource(ProviderProtocol.class)
    void repliesWithinTheLimitAreReadWholeAndJudgedByTheCallsOwnBound(ProviderProtocol protocol) throws IOException {
        // given the same contract, an ordinary answer and one of 10 MiB: under the reply limit, over the call's 8 MiB
        Files.writeString(contracts.resolve("essay.yaml"), ESSAY);
        Contract essay = Contracts.load(contracts).find("essay").orElseThrow();
        UUID ordinary = UUID.randomUUID();
        UUID large = UUID.randomUUID();
        provider.sim.setBehaviour(large.toString(), Behaviour.largeAnswer(10 * 1024 * 1024));

        // when both are called
        ProviderCall first = provider.clients.call(provider.provider(protocol), essay,
                SimulatedProvider.variables("I loved it"), ordinary);
        ProviderCall second = provider.clients.call(provider.provider(protocol), essay,
                SimulatedProvider.variables("I loved it"), large);

        // then the first succeeds, and the second is too large for its call, counted in characters as before
        awaitKind(first.atSoftDeadline(), CallOutcome.Succeeded.class);
        CallOutcome.Failed failed = awaitKind(second.atSoftDeadline(), CallOutcome.Failed.class);
        assertEquals(AttemptFailure.ANSWER_TOO_LARGE, failed.code());
        assertTrue(failed.message().contains("characters, over the 8388608 this call allows"), failed::message);
        assertNotNull(failed.usage());
    }

    @ParameterizedTest
    @EnumSource(ProviderProtocol.class)
    void anEndlessErrorBodyIsCutAndTheCallIsThatError(ProviderProtocol protocol) throws Exception {
        try (EndlessErrorServer server = new EndlessErrorServer()) {
            // given a provider whose 500 answer's body never ends
            ProviderConfig endless = SimulatedProvider.provider(protocol, "http://127.0.0.1:" + server.port(),
                    SimulatedProvider.SOFT, SimulatedProvider.HARD);

            // when it is called
            ProviderCall call = provider.clients.call(endless, SimulatedProvider.SENTIMENT,
                    SimulatedProvider.variables("I loved it"), UUID.randomUUID());

            // then the call is that 500 before its soft deadline, with the start of the body as its message, and the
            // client hung up instead of reading on
            CallOutcome.Failed failed = awaitKind(call.atSoftDeadline(), CallOutcome.Failed.class);
            assertEquals("http_500", failed.code());
            assertTrue(failed.message().contains("boom"), failed::message);
            assertTrue(failed.message().length() < 1_000, failed.message().length() + " characters");
            long written = server.hungUp.get(10, TimeUnit.SECONDS);
            assertTrue(written >= BoundedBody.ERROR_BYTES_LIMIT, written + " bytes written");
        }
    }

    /**
     * Test fixture: a loopback port that answers every request with {@code 500} and a chunked JSON error body that
     * never ends; {@link #hungUp} completes with the bytes written when the client closes the connection.
     */
    private static final class EndlessErrorServer implements AutoCloseable {
        final CompletableFuture<Long> hungUp = new CompletableFuture<>();
        private final ServerSocket server;

        EndlessErrorServer() {
            try {
                server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            Thread acceptor = new Thread(this::answer, "endless-error-server");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        int port() {
            return server.getLocalPort();
        }

        private void answer() {
            try (Socket connection = server.accept()) {
                readHead(connection.getInputStream());
                OutputStream out = connection.getOutputStream();
                out.write(("HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\n"
                        + "Transfer-Encoding: chunked\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                chunk(out, "{\"error\":{\"type\":\"api_error\",\"message\":\"boom ".getBytes(StandardCharsets.UTF_8));
                byte[] filler = new byte[16 * 1024];
                Arrays.fill(filler, (byte) 'x');
                long written = 0;
                try {
                    while (true) {
                        chunk(out, filler);
                        written += filler.length;
                    }
                } catch (IOException e) {
                    hungUp.complete(written);
                }
            } catch (IOException e) {
                hungUp.completeExceptionally(e);
            }
        }

        private static void chunk(OutputStream out, byte[] bytes) throws IOException {
            out.write((Integer.toHexString(bytes.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(bytes);
            out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
        }

        /** Reads up to the end of the request's head; its small body stays in the socket's buffer. */
        private static void readHead(InputStream in) throws IOException {
            int matched = 0;
            byte[] end = "\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
            for (int b = in.read(); b >= 0; b = in.read()) {
                matched = b == end[matched] ? matched + 1 : b == end[0] ? 1 : 0;
                if (matched == end.length) {
                    return;
                }
            }
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }
}
