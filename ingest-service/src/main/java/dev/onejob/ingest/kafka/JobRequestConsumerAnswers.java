package dev.onejob.ingest.kafka;

import dev.onejob.core.ledger.SubmitOutcome;
import java.util.List;

/**
 * What the consumer decided for a readable record: invalid (with reasons), not permitted for its owner, or submitted
 * (with the ledger's answer). A record over its owner's rate gets no answer yet: it is read again later.
 */
final class JobRequestConsumerAnswers {
    private JobRequestConsumerAnswers() {
    }

    record Invalid(String ownerId, String idempotencyKey, List<String> problems) {
    }

    record Submitted(String ownerId, String idempotencyKey, SubmitOutcome outcome) {
    }

    /** Read from a topic whose producer may not submit for this owner ({@link dev.onejob.core.kafka.KafkaPrincipals}). */
    record NotPermitted(String ownerId, String idempotencyKey, String reason) {
    }
}
