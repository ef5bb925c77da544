package dev.onejob.core.outbox;

/** The broker did not take an outbox batch; the rows stay unsent and the relay tries again. */
public final class OutboxPublishException extends RuntimeException {
    public OutboxPublishException(String message, Throwable cause) {
        super(message, cause);
    }
}
