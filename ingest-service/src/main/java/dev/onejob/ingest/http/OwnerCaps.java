package dev.onejob.ingest.http;

import dev.onejob.core.http.HttpCall;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What one owner may hold open at once on this instance, so that no owner can take the server from the others:
 * requests in flight ({@code HTTP_MAX_REQUESTS_PER_OWNER}: each holds a connection while it runs), requests answered
 * later ({@code HTTP_MAX_WAITS_PER_OWNER}: {@code Prefer: wait}, the drop-in calls, streamed or not, and submissions
 * waiting for their group commit), and event streams ({@code HTTP_MAX_STREAMS_PER_OWNER}). One over a cap is answered
 * 429 {@code owner-cap-reached} with {@code Retry-After} before anything is written: the counting is done where a
 * request first becomes one of these ({@link #track}), which for a wait is before its submission is committed.
 * Everything a request holds is given back once, when it is finished ({@link Tracked#release}).
 */
public final class OwnerCaps {
    /** The caps; 0 turns one off. */
    public record Limits(int requests, int waits, int streams) {
        static final Limits DEFAULTS = new Limits(2_000, 1_000, 100);
    }

    private enum Kind {
        REQUESTS("requests in flight", "HTTP_MAX_REQUESTS_PER_OWNER"),
        WAITS("requests waiting for their answer", "HTTP_MAX_WAITS_PER_OWNER"),
        STREAMS("event streams", "HTTP_MAX_STREAMS_PER_OWNER");

        final String what;
        final String setting;

        Kind(String what, String setting) {
            this.what = what;
            this.setting = setting;
        }
    }

    private final Limits limits;
    private final Map<String, AtomicInteger[]> held = new ConcurrentHashMap<>();

    OwnerCaps(Limits limits) {
        this.limits = limits;
    }

    /**
     * Counts {@code call} as one of {@code owner}'s requests in flight, or throws the 429 problem; the call returned
     * counts its first {@code later()} as a wait and its {@code stream()} as a stream, the same way.
     */
    Tracked track(HttpCall call, String owner) {
        Tracked tracked = new Tracked(call, owner);
        tracked.take(Kind.REQUESTS);
        return tracked;
    }

    /** What {@code owner} holds now, in the order requests, waits, streams (for tests and the record). */
    List<Integer> held(String owner) {
        AtomicInteger[] counts = held.get(owner);
        return counts == null ? List.of(0, 0, 0) : List.of(counts[0].get(), counts[1].get(), counts[2].get());
    }

    private int limit(Kind kind) {
        return switch (kind) {
            case REQUESTS -> limits.requests();
            case WAITS -> limits.waits();
            case STREAMS -> limits.streams();
        };
    }

    /** One request of one owner, and what it holds; {@link HttpCall} for the routes, counting as it goes. */
    final class Tracked implements HttpCall {
        private final HttpCall call;
        private final String owner;
        private final boolean[] holds = new boolean[Kind.values().length];

        private Tracked(HttpCall call, String owner) {
            this.call = call;
            this.owner = owner;
        }

        private synchronized void take(Kind kind) {
            if (holds[kind.ordinal()]) {
                return;
            }
            int cap = limit(kind);
            AtomicInteger count = held.computeIfAbsent(owner, o -> new AtomicInteger[] {new AtomicInteger(),
                    new AtomicInteger(), new AtomicInteger()})[kind.ordinal()];
            if (count.incrementAndGet() > cap && cap > 0) {
                count.decrementAndGet();
                throw new Problem(429, "owner-cap-reached", "Too many open requests", "owner " + owner + " has "
                        + cap + " " + kind.what + " open on this instance (" + kind.setting + "); retry once one "
                        + "ends").with("retry_after_seconds", "1");
            }
            holds[kind.ordinal()] = true;
        }

        /** Gives back everything this request holds; once, whatever calls it again. */
        synchronized void release() {
            AtomicInteger[] counts = held.get(owner);
            for (Kind kind : Kind.values()) {
                if (holds[kind.ordinal()]) {
                    holds[kind.ordinal()] = false;
                    counts[kind.ordinal()].decrementAndGet();
                }
            }
        }

        @Override
        public void later() {
            take(Kind.WAITS);
            call.later();
        }

        @Override
        public Stream stream(int status, String contentType) throws IOException {
            // A drop-in call streams once its submission is committed: it was counted as a wait before that.
            if (!isLater()) {
                take(Kind.STREAMS);
            }
            return call.stream(status, contentType);
        }

        @Override
        public String method() {
            return call.method();
        }

        @Override
        public String rawPath() {
            return call.rawPath();
        }

        @Override
        public String rawQuery() {
            return call.rawQuery();
        }

        @Override
        public String header(String name) {
            return call.header(name);
        }

        @Override
        public List<String> headers(String name) {
            return call.headers(name);
        }

        @Override
        public InputStream body() {
            return call.body();
        }

        @Override
        public void setHeader(String name, String value) {
            call.setHeader(name, value);
        }

        @Override
        public void send(int status, String contentType, byte[] body) throws IOException {
            call.send(status, contentType, body);
        }

        @Override
        public long sinceHeadNanos() {
            return call.sinceHeadNanos();
        }

        @Override
        public boolean isLater() {
            return call.isLater();
        }

        @Override
        public int status() {
            return call.status();
        }
    }
}
