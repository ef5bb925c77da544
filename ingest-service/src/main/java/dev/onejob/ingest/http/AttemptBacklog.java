package dev.onejob.ingest.http;

import dev.onejob.core.kafka.ConsumerLag;
import dev.onejob.core.kafka.Topics;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;

/**
 * The attempt commands the workers have not taken yet: the {@code attempt-worker} group's lag on
 * {@code attempt-commands} (end offsets minus committed ones; from the earliest offset where the group committed
 * nothing), and the offsets it has committed in all, whose growth is the rate workers take commands. Transaction
 * markers count as commands here: a few per relay batch, a small overcount.
 */
public final class AttemptBacklog implements Supplier<Admission.BacklogReading> {
    /** The workers' consumer group (AttemptWorker.GROUP_ID; the ingest service does not depend on the worker). */
    public static final String WORKER_GROUP = "attempt-worker";
    private static final Duration TIMEOUT = Duration.ofSeconds(3);
    private final Admin admin;
    private final String group;
    private final String topic = Topics.ATTEMPT_COMMANDS.name();

    public AttemptBacklog(Admin admin, String group) {
        this.admin = admin;
        this.group = group;
    }

    @Override
    public Admission.BacklogReading get() {
        try {
            long waiting = 0;
            long taken = 0;
            for (ConsumerLag.Position position : ConsumerLag.read(admin, group, topic, TIMEOUT).partitions()) {
                waiting += position.waiting();
                taken += position.next();
            }
            return new Admission.BacklogReading(waiting, taken);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading the workers' backlog", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot read the " + group + " group's lag on " + topic + ": " + e, e);
        }
    }
}
