package dev.onejob.providers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.UnresolvedAddressException;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.stream.Stream;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/** The classification table, case by case: HTTP statuses and transport exceptions. */
class OutcomeClassifierTest {

    private static final Duration LATENCY = Duration.ofMillis(42);

    @ParameterizedTest(name = "HTTP {0} -> {1} {2} retryable={3}")
    @CsvSource({
        "301, FAILED, http_301, false",
        "400, FAILED, http_400, false",
        "401, FAILED, http_401, false",
        "403, FAILED, http_403, false",
        "404, FAILED, http_404, false",
        "408, FAILED, http_408, true",
        "409, FAILED, http_409, false",
        "413, FAILED, http_413, false",
        "422, FAILED, http_422, false",
        "429, FAILED, http_429, true",
        "500, FAILED, http_500, false",
        "501, FAILED, http_501, false",
        "502, UNKNOWN, , false",
        "503, FAILED, http_503, true",
        "504, UNKNOWN, , false",
        "505, FAILED, http_505, false",
        "529, FAILED, http_529, true",
        "600, UNKNOWN, , false",
    })
    void statusIsClassified(int status, String kind, String code, boolean retryable) {
        // when
        CallOutcome outcome = OutcomeClassifier.forStatus(status, "req_1", "Simulated", (Duration) null, LATENCY);
        // then
        assertEquals(kind, kindOf(outcome));
        assertEquals(LATENCY, outcome.latency());
        if (outcome instanceof CallOutcome.Failed failed) {
            assertEquals(code, failed.code());
            assertEquals(retryable, failed.retryable());
            assertTrue(failed.sent(), "an HTTP answer means the request arrived");
            assertEquals(status, failed.httpStatus());
            assertEquals("req_1", failed.providerRequestId());
        } else {
            assertTrue(((CallOutcome.Unknown) outcome).reason().contains("req_1"), outcome::toString);
        }
    }

    static Stream<Arguments> exceptions() {
        return Stream.of(
            failed(cause(new ConnectException(), new ClosedChannelException()), true, "connection_refused"),
            failed(cause(new ConnectException(), new UnresolvedAddressException()), true, "dns_failure"),
            failed(cause(new IOException("lookup"), new UnknownHostException("x.invalid")), true, "dns_failure"),
            failed(cause(new HttpConnectTimeoutException("HTTP connect timed out"),
                    new ConnectException("HTTP connect timed out")), true, "connect_timeout"),
            failed(new SSLHandshakeException("PKIX path building failed"), true, "tls_failure"),
            failed(new SSLException("Received fatal alert: protocol_version"), false, "tls_failure"),
            failed(cause(new IOException("HTTP/1.1 header parser received no bytes"),
                    new SSLException("Unrecognized SSL message, plaintext connection?")), true, "tls_failure"),
            unknown(new SSLException("Tag mismatch"), true),
            failed(new HttpTimeoutException("request timed out"), false, "connect_timeout"),
            unknown(new HttpTimeoutException("request timed out"), true),
            unknown(cause(new IOException("HTTP/1.1 header parser received no bytes"),
                    new EOFException("EOF reached while reading")), true),
            unknown(new IOException("Connection reset"), true),
            failed(new IOException("Connection reset"), false, "connection_failed"),
            failed(new CompletionException(cause(new ConnectException(), new ClosedChannelException())), true,
                    "connection_refused"),
            unknown(new IllegalStateException("bug"), false));
    }

    @ParameterizedTest(name = "{0} (request may have left: {1}) -> {2}")
    @MethodSource("exceptions")
    void exceptionIsClassified(Throwable error, boolean requestMayHaveLeft, String expected) {
        // when
        CallOutcome outcome = OutcomeClassifier.forException(error, requestMayHaveLeft, LATENCY);
        // then
        if (expected.equals("UNKNOWN")) {
            assertInstanceOf(CallOutcome.Unknown.class, outcome, outcome::toString);
        } else {
            CallOutcome.Failed failed = assertInstanceOf(CallOutcome.Failed.class, outcome, outcome::toString);
            assertEquals(expected, failed.code());
            assertFalse(failed.sent(), "safe to retry elsewhere");
            assertNull(failed.httpStatus());
        }
        assertEquals(LATENCY, outcome.latency());
    }

    private static Arguments failed(Throwable error, boolean mayHaveLeft, String code) {
        return Arguments.of(Named.of(describe(error), error), mayHaveLeft, code);
    }

    private static Arguments unknown(Throwable error, boolean mayHaveLeft) {
        return Arguments.of(Named.of(describe(error), error), mayHaveLeft, "UNKNOWN");
    }

    private static String describe(Throwable error) {
        StringBuilder text = new StringBuilder();
        for (Throwable t = error; t != null; t = t.getCause()) {
            text.append(text.length() == 0 ? "" : " <- ").append(t.getClass().getSimpleName());
        }
        return text.toString();
    }

    private static <T extends Throwable> T cause(T error, Throwable cause) {
        error.initCause(cause);
        return error;
    }

    private static String kindOf(CallOutcome outcome) {
        return outcome instanceof CallOutcome.Failed ? "FAILED"
                : outcome instanceof CallOutcome.Unknown ? "UNKNOWN" : "SUCCEEDED";
    }
}
