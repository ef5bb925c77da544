package dev.onejob.simulator;

/**
 * A request the simulator refuses before applying any behaviour: bad or missing API key, missing
 * required header, body that is not the protocol's request shape.
 *
 * <p>Thrown by the wire readers; the request handler turns it into an error in the protocol's shape
 * and a ledger entry with behaviour {@value LedgerEntry#REJECTED}. The message never contains a key.
 */
final class WireRejection extends Exception {

    private final int status;

    WireRejection(int status, String message) {
        super(message, null, false, false);
        this.status = status;
    }

    int status() {
        return status;
    }
}
