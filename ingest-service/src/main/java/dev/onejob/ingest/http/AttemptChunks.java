package dev.onejob.ingest.http;

import dev.onejob.core.events.AttemptChunk;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The pieces of answer that attempts stream, as this instance reads them from {@code attempt-chunks}, handed to the
 * drop-in streams following their jobs. A chunk no stream here follows is dropped: chunks are a live view, and a
 * finished job's answer is always read from the ledger.
 */
public final class AttemptChunks {

    /** A stream following one job's chunks; called on the subscription's thread, so it must not block. */
    interface Listener {
        void chunk(AttemptChunk chunk);
    }

    private final Map<UUID, Set<Listener>> listeners = new ConcurrentHashMap<>();

    void listen(UUID jobId, Listener listener) {
        listeners.computeIfAbsent(jobId, id -> ConcurrentHashMap.newKeySet()).add(listener);
    }

    void stop(UUID jobId, Listener listener) {
        listeners.computeIfPresent(jobId, (id, set) -> {
            set.remove(listener);
            return set.isEmpty() ? null : set;
        });
    }

    /** Hands each chunk, in order, to whatever follows its job here. */
    public void deliver(Collection<AttemptChunk> chunks) {
        for (AttemptChunk chunk : chunks) {
            Set<Listener> following = listeners.get(chunk.jobId());
            if (following != null) {
                following.forEach(listener -> listener.chunk(chunk));
            }
        }
    }

    /** How many jobs a stream of this instance follows. */
    int following() {
        return listeners.size();
    }
}
