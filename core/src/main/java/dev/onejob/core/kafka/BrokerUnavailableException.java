package dev.onejob.core.kafka;

/**
 * The broker did not take a record a loop must see acknowledged before it goes on (a dead letter, an answer, a
 * completion decided on the poll thread): transient like a database outage, so the loop reads its poll again after
 * a backoff instead of dying. Thrown by the services' poll loops, caught by the same loops.
 */
public final class BrokerUnavailableException extends RuntimeException {
    public BrokerUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
