package dev.onejob.providers;

import java.io.IOException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;

/**
 * Decides what an HTTP error status or a transport exception means for an attempt: FAILED (with whether the
 * request may have left and whether a retry may help) or UNKNOWN (the provider may have done the work).
 *
 * <p>Consumes a status code or a {@link Throwable} plus what is known about the request's progress; produces a
 * {@link CallOutcome}. Pure: no I/O, no clock, no state. The rule when in doubt is UNKNOWN, because a wrong
 * "not sent" lets the same work be paid for twice while a wrong "unknown" only costs a reconciliation.
 */
public final class OutcomeClassifier {

    private OutcomeClassifier() {
    }

    /**
     * The outcome of a non-2xx HTTP answer.
     *
     * @param providerMessage the provider's own error text (already free of the API key), or {@code null}
     * @param retryAfter      the {@code Retry-After} header, or {@code null}
     */
    public static CallOutcome forStatus(int status, String providerRequestId, String providerMessage,
                                        String retryAfter, Duration latency) {
        return forStatus(status, providerRequestId, providerMessage,
                retryAfter == null ? null : RetryAfter.retryAfter(retryAfter, Instant.now()).orElse(null),
                latency);
    }

    /**
     * The outcome of a non-2xx HTTP answer, with the provider's own hint of when to try again ({@link RetryAfter}),
     * kept on a refusal that may be retried and named in its message.
     */
    public static CallOutcome forStatus(int status, String providerRequestId, String providerMessage,
                                        Duration retryAfter, Duration latency) {
        String detail = (providerMessage == null || providerMessage.isBlank() ? "" : ": " + providerMessage)
                + (retryAfter == null ? "" : " (asked to retry after " + retryAfter.toMillis() + " ms)");
        if (status == 502 || status == 504) {
            return new CallOutcome.Unknown("a gateway answered HTTP " + status + detail + "; it lost the upstream, "
                    + "which may have done the work" + requestIdNote(providerRequestId), latency);
        }
        if (status >= 300 && status <= 599) {
            boolean retryable = retryableStatus(status);
            return new CallOutcome.Failed("http_" + status, "the provider answered HTTP " + status + detail,
                    retryable, true, status, providerRequestId, null, latency, null, retryable ? retryAfter : null);
        }
        // 1xx reaching here, or a status outside HTTP's range: nothing says the work was not done.
        return new CallOutcome.Unknown("the provider answered with the unexpected HTTP status " + status
                + requestIdNote(providerRequestId), latency);
    }

    /**
     * Whether the same request may succeed later because the provider says it ran nothing: a request timeout (408),
     * a rate limit (429), unavailable (503) or overloaded (529). 502 and 504 are UNKNOWN, never retried blindly.
     */
    static boolean retryableStatus(int status) {
        return status == 408 || status == 429 || status == 503 || status == 529;
    }

    /**
     * The outcome of a call that ended in an exception instead of an HTTP answer.
     *
     * @param requestMayHaveLeft false only when the client had not yet asked for the request's length, which it
     *                           must know before it writes the request head: so not one byte of the request left
     */
    public static CallOutcome forException(Throwable thrown, boolean requestMayHaveLeft, Duration latency) {
        Throwable error = unwrap(thrown);
        CallOutcome.Failed notSent = notSent(error, requestMayHaveLeft, latency);
        if (notSent != null) {
            return notSent;
        }
        if (error instanceof HttpTimeoutException) {
            return new CallOutcome.Unknown("no answer within the request timeout; the provider may still be working "
                    + "on the request", latency);
        }
        if (error instanceof IOException) {
            // Reset, closed or "received no bytes" after the request could have been written: it may have been
            // read and acted on.
            return new CallOutcome.Unknown("the connection ended without an answer after the request could have "
                    + "been written (" + describe(error) + ")", latency);
        }
        return new CallOutcome.Unknown("the call ended in an unexpected error (" + describe(error) + ")", latency);
    }

    /** The failure when {@code error} proves the request never left, else {@code null}. */
    private static CallOutcome.Failed notSent(Throwable error, boolean requestMayHaveLeft, Duration latency) {
        if (inChain(error, UnresolvedAddressException.class) || inChain(error, UnknownHostException.class)) {
            return CallOutcome.Failed.notSent("dns_failure", "the provider's host name could not be resolved ("
                    + describe(error) + ")", true, latency);
        }
        if (inChain(error, HttpConnectTimeoutException.class)) {
            return CallOutcome.Failed.notSent("connect_timeout", "no connection to the provider could be set up "
                    + "within the connect timeout (" + describe(error) + ")", true, latency);
        }
        if (tlsHandshakeNeverCompleted(error, requestMayHaveLeft)) {
            return CallOutcome.Failed.notSent("tls_failure", "the TLS handshake with the provider failed ("
                    + describe(error) + ")", false, latency);
        }
        if (inChain(error, ConnectException.class)) {
            return CallOutcome.Failed.notSent("connection_refused", "the provider refused the connection ("
                    + describe(error) + ")", true, latency);
        }
        if (!requestMayHaveLeft && error instanceof HttpTimeoutException) {
            return CallOutcome.Failed.notSent("connect_timeout", "no connection to the provider was ready before the "
                    + "request timeout, so the request was never written", true, latency);
        }
        if (!requestMayHaveLeft && error instanceof IOException) {
            return CallOutcome.Failed.notSent("connection_failed", "the connection failed before the request was "
                    + "written (" + describe(error) + ")", true, latency);
        }
        return null;
    }

    /**
     * No application data is written before a TLS handshake completes, so the request never left when the handshake
     * failed, when a TLS error came before the request head was due, or when the peer does not speak TLS at all
     * (the JDK's "Unrecognized SSL message, plaintext connection?"): such a peer cannot have completed a handshake.
     * Any other TLS error may come after the request was written, so it is not "not sent".
     */
    private static boolean tlsHandshakeNeverCompleted(Throwable error, boolean requestMayHaveLeft) {
        Throwable tls = firstInChain(error, SSLException.class);
        if (tls == null) {
            return false;
        }
        return tls instanceof SSLHandshakeException || !requestMayHaveLeft
                || String.valueOf(tls.getMessage()).contains("plaintext connection");
    }

    static Throwable unwrap(Throwable thrown) {
        Throwable error = thrown;
        while ((error instanceof CompletionException || error instanceof ExecutionException)
                && error.getCause() != null) {
            error = error.getCause();
        }
        return error;
    }

    private static boolean inChain(Throwable error, Class<? extends Throwable> type) {
        return firstInChain(error, type) != null;
    }

    private static Throwable firstInChain(Throwable error, Class<? extends Throwable> type) {
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (type.isInstance(t)) {
                return t;
            }
        }
        return null;
    }

    /** The exception types and messages of the chain, e.g. "ConnectException caused by ClosedChannelException". */
    private static String describe(Throwable error) {
        StringBuilder text = new StringBuilder();
        int depth = 0;
        for (Throwable t = error; t != null && depth < 4; t = t.getCause() == t ? null : t.getCause(), depth++) {
            text.append(depth == 0 ? "" : " caused by ").append(t.getClass().getSimpleName());
            if (t.getMessage() != null) {
                text.append(": ").append(t.getMessage());
            }
        }
        return text.toString();
    }

    private static String requestIdNote(String providerRequestId) {
        return providerRequestId == null ? "" : " (provider request id " + providerRequestId + ")";
    }
}
