package dev.onejob.providers;

/**
 * Where a streamed call's pieces of answer go as they arrive (the attempt worker publishes them for the drop-in
 * streams). Called on the HTTP client's threads, in order; an implementation must not block.
 */
public interface ChunkSink {
    /** One piece of the answer's text (for a structured answer, a piece of its JSON). Never empty. */
    void piece(String text);

    /** The provider's stream reached its end event: no piece follows. */
    void end();
}
