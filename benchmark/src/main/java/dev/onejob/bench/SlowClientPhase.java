package dev.onejob.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.bench.report.Phases;
import dev.onejob.bench.report.Results;
import dev.onejob.bench.report.Targets;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Phase 6, stalled clients: the same open loop at 50% of the HTTP maximum twice, first alone, then while
 * {@code stalledConnections} connections stall: half send half a request head and stop (a slow-loris client), half
 * send a whole head announcing a 200 kB body and trickle it, a byte every 200 ms. When the server answers one 408 and
 * closes it, it is opened again at once, so that many stay stalled throughout. What it shows: stalled connections
 * hold sockets, not the threads that serve requests (a body is read without a thread too), so normal traffic's p99
 * stays close to its p99 without them.
 */
record SlowClientPhase(BenchContext context) {
    private static final byte[] HALF_A_HEAD = ("POST /v1/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
            + "application/json\r\nIdempotency-Key: stalled-").getBytes(StandardCharsets.US_ASCII);
    private static final byte[] HEAD_OF_A_TRICKLED_BODY = ("POST /v1/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
            + "application/json\r\nIdempotency-Key: trickled\r\nContent-Length: 200000\r\n\r\n{")
            .getBytes(StandardCharsets.US_ASCII);

    void run() throws Exception {
        BenchSettings settings = context.settings();
        Results results = context.results();
        double rate = results.positive(Phases.HTTP_INGEST, "max requests/s",
                "the HTTP ingest phase measured no maximum") / 2;
        JsonNode alone;
        JsonNode stalled;
        Stallers stallers;
        try (var window = context.window(Phases.HTTP_SLOW_CLIENTS, List.of(context.services().ingest()))) {
            alone = step("stallbase", rate, settings.stallStepSeconds());
            stallers = new Stallers(context.services().ingestPort(), settings.stalledConnections());
            Thread thread = new Thread(stallers, "bench-stallers");
            thread.setDaemon(true);
            thread.start();
            try {
                stallers.awaitOpen();
                stalled = step("stallunder", rate, settings.stallStepSeconds());
            } finally {
                stallers.stop();
                thread.join(10_000);
            }
        }
        results.add(Phases.HTTP_SLOW_CLIENTS, "accepted p99 ms without stalled connections",
                alone.path("accepted_latency").path("p99_ms").asDouble(), "ms", "2xx answers of an open loop at 50% of"
                        + " max (" + Math.round(rate) + " requests/s) for " + settings.stallStepSeconds()
                        + " s; statuses " + alone.path("statuses"));
        results.add(Phases.HTTP_SLOW_CLIENTS, "accepted p99 ms with stalled connections",
                stalled.path("accepted_latency").path("p99_ms").asDouble(), "ms", "2xx answers of the same load while "
                        + settings.stalledConnections() + " connections stall (half mid-header, half trickling a "
                        + "200 kB body); statuses " + stalled.path("statuses"));
        results.add(Phases.HTTP_SLOW_CLIENTS, Targets.SLOW_CLIENTS_ACCEPTED_WITHOUT, acceptedPercent(alone), "%",
                "share of the normal traffic answered 2xx without stalled connections");
        results.add(Phases.HTTP_SLOW_CLIENTS, Targets.SLOW_CLIENTS_ACCEPTED_WITH, acceptedPercent(stalled), "%",
                "the same with them: a p99 over refused requests would say nothing, so the target needs >= 99%");
        results.add(Phases.HTTP_SLOW_CLIENTS, "stalled connections held", stallers.peakOpen(), "connections",
                "the most open at once (reopened as the server closed them)");
        results.add(Phases.HTTP_SLOW_CLIENTS, "stalled connections answered 408", stallers.timedOut(), "connections",
                "closed by the server with 408 problem+json (HTTP_REQUEST_HEAD_TIMEOUT, HTTP_MIN_BODY_RATE) and "
                        + "reopened");
        results.add(Phases.HTTP_SLOW_CLIENTS, "failed requests", LoadPlan.failures(Map.of("a", alone, "b", stalled)),
                "requests", "non-2xx answers and transport errors of the normal traffic");
    }

    /** 2xx answers as a percentage of the requests sent; 0 when none was sent. */
    private static double acceptedPercent(JsonNode step) {
        long sent = step.path("sent").asLong();
        long accepted = 0;
        var statuses = step.path("statuses").fields();
        while (statuses.hasNext()) {
            var status = statuses.next();
            if (status.getKey().startsWith("2")) {
                accepted += status.getValue().asLong();
            }
        }
        return sent == 0 ? 0 : 100.0 * accepted / sent;
    }

    private JsonNode step(String prefix, double rate, double seconds) throws IOException {
        LoadPlan plan = context.ingestLoad(prefix, context.settings().repeatShare(), "none").openAtRate(prefix, rate, seconds);
        Map<String, JsonNode> steps = plan.run(context, "loadgen-" + prefix);
        context.expectedJobs().put(prefix, LoadPlan.acceptedJobs(steps));
        return steps.get(prefix);
    }

    /**
     * Keeps {@code count} connections stalled on one selector thread, half mid-header and half trickling a body;
     * reopens what the server closes.
     */
    static final class Stallers implements Runnable {
        private final int port;
        private final int count;
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final AtomicLong open = new AtomicLong();
        private final AtomicLong peak = new AtomicLong();
        private final AtomicLong timedOut = new AtomicLong();
        private final CountDownLatch opened = new CountDownLatch(1);

        Stallers(int port, int count) {
            this.port = port;
            this.count = count;
        }

        @Override
        public void run() {
            try (Selector selector = Selector.open()) {
                for (int i = 0; i < count; i++) {
                    openOne(selector, i % 2 == 1);
                }
                opened.countDown();
                ByteBuffer buffer = ByteBuffer.allocate(4096);
                long nextByte = System.nanoTime();
                while (running.get()) {
                    selector.select(200);
                    for (SelectionKey key : selector.selectedKeys()) {
                        SocketChannel channel = (SocketChannel) key.channel();
                        buffer.clear();
                        int read;
                        try {
                            read = channel.read(buffer);
                        } catch (IOException e) {
                            read = -1;
                        }
                        if (read > 0 && new String(buffer.array(), 0, read, StandardCharsets.ISO_8859_1)
                                .startsWith("HTTP/1.1 408")) {
                            timedOut.incrementAndGet();
                        }
                        if (read < 0 || read > 0) {
                            key.cancel();
                            channel.close();
                            open.decrementAndGet();
                            if (running.get()) {
                                openOne(selector, Boolean.TRUE.equals(key.attachment()));
                            }
                        }
                    }
                    selector.selectedKeys().clear();
                    if (System.nanoTime() - nextByte >= 0) {
                        nextByte = System.nanoTime() + 200_000_000L;
                        trickle(selector);
                    }
                }
                for (SelectionKey key : selector.keys()) {
                    key.channel().close();
                }
            } catch (IOException e) {
                throw new IllegalStateException("the stalled clients failed: " + e, e);
            } finally {
                opened.countDown();
            }
        }

        /** One more byte of every trickled body. */
        private static void trickle(Selector selector) {
            for (SelectionKey key : selector.keys()) {
                if (key.isValid() && Boolean.TRUE.equals(key.attachment())) {
                    try {
                        ((SocketChannel) key.channel()).write(ByteBuffer.wrap(new byte[] {' '}));
                    } catch (IOException e) {
                        // closed by the server: its 408 is read, and the connection reopened, in the loop
                    }
                }
            }
        }

        /** Opens one stalled connection: half a head, or a whole head and the first byte of a trickled body. */
        private void openOne(Selector selector, boolean trickled) throws IOException {
            SocketChannel channel = SocketChannel.open(new InetSocketAddress("127.0.0.1", port));
            channel.write(ByteBuffer.wrap(trickled ? HEAD_OF_A_TRICKLED_BODY : HALF_A_HEAD));
            channel.configureBlocking(false);
            channel.register(selector, SelectionKey.OP_READ, trickled);
            peak.accumulateAndGet(open.incrementAndGet(), Math::max);
        }

        void awaitOpen() throws InterruptedException {
            opened.await();
        }

        void stop() {
            running.set(false);
        }

        long peakOpen() {
            return peak.get();
        }

        long timedOut() {
            return timedOut.get();
        }
    }
}
