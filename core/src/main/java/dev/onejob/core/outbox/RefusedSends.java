package dev.onejob.core.outbox;

import dev.onejob.core.db.Database;
import io.micrometer.core.instrument.Counter;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * After an {@link OutboxRelay}'s Kafka transaction failed and was aborted: finds the sends the broker (or the
 * producer) refused for what the record is (too large, invalid), never worth a retry, and parks their rows with the
 * reason ({@link OutboxLeases#park}), so the rows behind them flow on.
 */
final class RefusedSends {
    /** The relay's own logger: a parked row is the relay's event in the logs. */
    private static final Logger log = LoggerFactory.getLogger(OutboxRelay.class);

    private RefusedSends() {
    }

    /**
     * Parks each of {@code events} whose send ({@code sends}, in the same order; fewer when sending stopped early)
     * was refused for what it is, counting each parked row on {@code parked}; returns how many sends were refused.
     */
    static int park(Database database, List<OutboxEvent> events, List<Future<RecordMetadata>> sends, UUID holder,
                    Counter parked) {
        int refused = 0;
        // A send after the first refusal may have thrown at once (the transaction had failed): only sends made
        // have a verdict, and the rows of the others are given back with the rest.
        for (int i = 0; i < sends.size(); i++) {
            String reason = refusal(sends.get(i));
            if (reason == null) {
                continue;
            }
            refused++;
            OutboxEvent event = events.get(i);
            if (OutboxLeases.park(database, event, reason, holder)) {
                parked.increment();
                log.error("event=outbox_row_parked id={} topic={} key={} reason=\"{}\" action=\"set aside; the"
                        + " rows behind it flow on; see ./onejob outbox status\"", event.id(), event.topic(),
                        event.messageKey(), reason);
            }
        }
        return refused;
    }

    /**
     * Why the broker (or the producer) refused this send for what the record is, never worth a retry; or null (sent,
     * pending, or failed for another reason).
     */
    static String refusal(Future<RecordMetadata> send) {
        if (!send.isDone()) {
            return null;
        }
        try {
            send.get();
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RecordTooLargeException || cause instanceof RecordBatchTooLargeException
                    || cause instanceof InvalidRecordException) {
                return cause.getClass().getSimpleName() + ": " + cause.getMessage();
            }
            return null;
        }
    }
}
