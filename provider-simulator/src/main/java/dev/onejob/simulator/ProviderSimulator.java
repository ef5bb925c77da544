package dev.onejob.simulator;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A fake AI provider on 127.0.0.1 that speaks the OpenAI Chat Completions and Anthropic Messages wire
 * protocols, with scriptable behaviours, a request ledger, a provider-side usage export and a control plane
 * under {@code /_sim/}.
 *
 * <p>Consumes HTTP requests from provider adapters and configuration calls from tests (this API) or
 * other processes (the control plane); produces protocol-shaped answers, errors, delays, hangs and
 * dropped or refused connections. Owns the HTTP listener (closed while refusing connections, then
 * rebound on the same port), the handler threads, the behaviour rules and the ledger.
 */
public final class ProviderSimulator implements AutoCloseable {

    static {
        // Without TCP_NODELAY every answer waits ~40 ms on Nagle's algorithm and delayed ACKs. The JDK reads
        // this once, when the first HttpServer is made in this JVM.
        System.setProperty("sun.net.httpserver.nodelay", "true");
        // The JDK's server keeps at most 200 idle connections and closes each one past that as soon as its answer is
        // written, without a "Connection: close": a client that pooled it (after a burst of 1,000 calls, 800 of them)
        // writes its next request into a closed socket and gets a reset with no answer, an UNKNOWN a real provider's
        // front end would not cause. Idle connections are closed after the idle interval (30 s) instead.
        System.setProperty("sun.net.httpserver.maxIdleConnections", "100000");
    }

    /**
     * Connections the kernel queues before the server accepts them. A worker whose backlog of commands starts
     * thousands of calls at once opens thousands of connections in a second; with 128 here the queue overflowed, the
     * kernel dropped SYNs, and calls failed with connect timeouts a real provider's front end would not cause.
     * The kernel caps it at {@code net.core.somaxconn}.
     */
    private static final int BACKLOG = 4096;

    private final SimulatorConfig config;
    private final Ledger ledger = new Ledger(Clock.systemUTC());
    private final BehaviourRules rules;
    private final TokenCounter tokens;
    private final CountDownLatch closed = new CountDownLatch(1);
    private final ExecutorService handlers;
    private final ScheduledExecutorService timer;
    private final ControlPlaneHandler controlPlane;
    private final ProtocolHandler[] protocolHandlers;
    private final int port;
    private final Object lifecycle = new Object();
    private HttpServer server; // guarded by lifecycle; null while refusing connections or after close

    private ProviderSimulator(SimulatorConfig config) throws IOException {
        this.config = config;
        this.rules = new BehaviourRules(config.behaviourPlan());
        this.tokens = new TokenCounter(config.tokenCountMultiplier(), config.tokenCountOffset());
        // Unbounded on purpose: a hanging request holds its thread, and must never delay another request.
        this.handlers = Executors.newCachedThreadPool(daemonThreads("sim-" + config.name() + "-http-"));
        this.timer = Executors.newSingleThreadScheduledExecutor(daemonThreads("sim-" + config.name() + "-timer-"));
        AnswerShaper shaper = new AnswerShaper(config.answerFunction());
        this.protocolHandlers = new ProtocolHandler[] {
            new ProtocolHandler(new OpenAiChatWire(config.expectedApiKey(), Clock.systemUTC()), rules, ledger,
                    shaper, tokens, config::priceOf, closed),
            new ProtocolHandler(AnthropicWire.messages(config.expectedApiKey()), rules, ledger, shaper, tokens,
                    config::priceOf, closed),
            new ProtocolHandler(AnthropicWire.countTokens(config.expectedApiKey()), rules, ledger, shaper, tokens,
                    config::priceOf, closed),
        };
        this.controlPlane = new ControlPlaneHandler(this, rules);
        this.server = bind(config.port());
        this.port = server.getAddress().getPort();
    }

    /** Starts a simulator listening on 127.0.0.1 at the configured port (0 = ephemeral). */
    public static ProviderSimulator start(SimulatorConfig config) throws IOException {
        return new ProviderSimulator(config);
    }

    /** Starts a simulator with {@link SimulatorConfig#defaults()}. */
    public static ProviderSimulator start() throws IOException {
        return start(SimulatorConfig.defaults());
    }

    public String name() {
        return config.name();
    }

    /** The port, the same for the simulator's whole life, also across refusing and accepting again. */
    public int port() {
        return port;
    }

    /** {@code http://127.0.0.1:PORT}, the base URL for both protocols (paths start with {@code /v1/}). */
    public String baseUrl() {
        return "http://127.0.0.1:" + port;
    }

    public URI baseUri() {
        return URI.create(baseUrl());
    }

    /** The behaviour for every request that has no per-key or planned behaviour. Initially {@code answer}. */
    public void setDefaultBehaviour(Behaviour behaviour) {
        rules.setDefault(behaviour, false);
    }

    /** The behaviour for the next request without a per-key behaviour only; after it, {@code answer}. */
    public void setOneShotDefaultBehaviour(Behaviour behaviour) {
        rules.setDefault(behaviour, true);
    }

    /**
     * The behaviour for the next {@code times} requests without a per-key or planned behaviour (exactly that many,
     * also when they come concurrently); after them, the default this one replaced applies again. E.g.
     * {@code setDefaultBehaviour(Behaviour.status(429, 1), 2)}: two refusals, then answers.
     */
    public void setDefaultBehaviour(Behaviour behaviour, int times) {
        rules.setDefault(behaviour, times);
    }

    /** The behaviour for every request carrying this {@code Idempotency-Key}, until reset or replaced. */
    public void setBehaviour(String idempotencyKey, Behaviour behaviour) {
        rules.setForKey(idempotencyKey, behaviour, false);
    }

    /** The behaviour for the first request carrying this {@code Idempotency-Key}; later ones get the default. */
    public void setOneShotBehaviour(String idempotencyKey, Behaviour behaviour) {
        rules.setForKey(idempotencyKey, behaviour, true);
    }

    /**
     * The behaviour for the next {@code times} requests carrying this {@code Idempotency-Key}; then the key's behaviour
     * it replaced, or none (the default).
     */
    public void setBehaviour(String idempotencyKey, Behaviour behaviour, int times) {
        rules.setForKey(idempotencyKey, behaviour, times);
    }

    /** Removes the behaviour of this {@code Idempotency-Key}; its requests get the default again. */
    public void clearBehaviour(String idempotencyKey) {
        rules.clearKey(idempotencyKey);
    }

    /** Removes every per-key behaviour and sets the default back to {@code answer}; a configured plan stays. */
    public void resetBehaviours() {
        rules.reset();
    }

    /** Changes the token count adjustment (see {@link SimulatorConfig#tokenCountMultiplier()}). */
    public void setTokenCountAdjustment(double multiplier, long offset) {
        tokens.adjust(multiplier, offset);
    }

    /** An immutable snapshot of every protocol request received since start or the last clear. */
    public List<LedgerEntry> ledger() {
        return ledger.snapshot();
    }

    /**
     * The provider's bill since start or the last clear: every billed request (a 2xx answer with a {@code usage}
     * block), in arrival order, as {@code GET /_sim/usage-export} lists it.
     */
    public List<BilledRequest> usageExport() {
        return ledger.snapshot().stream().flatMap(entry -> BilledRequest.from(entry).stream()).toList();
    }

    public long requestsWithIdempotencyKey(String idempotencyKey) {
        return ledger.countWithIdempotencyKey(idempotencyKey);
    }

    public void clearLedger() {
        ledger.clear();
    }

    /**
     * {@code true} closes the listening socket (and every open connection), so connecting fails with
     * "connection refused"; {@code false} listens again on the same port. Idempotent.
     *
     * @throws UncheckedIOException when the port cannot be bound again (another process took it)
     */
    public void refuseConnections(boolean refuse) {
        synchronized (lifecycle) {
            if (closed.getCount() == 0) {
                throw new IllegalStateException("simulator " + config.name() + " is closed");
            }
            if (refuse && server != null) {
                server.stop(0);
                server = null;
            } else if (!refuse && server == null) {
                try {
                    server = bind(port);
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot listen on port " + port + " again", e);
                }
            }
        }
    }

    public boolean isRefusingConnections() {
        synchronized (lifecycle) {
            return server == null;
        }
    }

    /** Stops listening, drops open connections and releases every delayed or hanging request. Idempotent. */
    @Override
    public void close() {
        synchronized (lifecycle) {
            if (closed.getCount() == 0) {
                return;
            }
            closed.countDown();
            if (server != null) {
                server.stop(0);
                server = null;
            }
        }
        timer.shutdownNow();
        handlers.shutdown();
        try {
            if (!handlers.awaitTermination(2, TimeUnit.SECONDS)) {
                handlers.shutdownNow();
            }
        } catch (InterruptedException e) {
            handlers.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    /** Refuses connections from a moment after this call (so a control-plane answer gets out) for {@code ms}. */
    void refuseConnectionsFor(long ms) {
        timer.execute(() -> {
            refuseUnlessClosed(true);
            timer.schedule(() -> refuseUnlessClosed(false), ms, TimeUnit.MILLISECONDS);
        });
    }

    private void refuseUnlessClosed(boolean refuse) {
        synchronized (lifecycle) {
            if (closed.getCount() > 0) {
                refuseConnections(refuse);
            }
        }
    }

    private HttpServer bind(int onPort) throws IOException {
        // SIM_BIND_HOST=0.0.0.0 lets other containers reach a simulator (docker-compose); loopback otherwise.
        String host = System.getenv("SIM_BIND_HOST");
        InetAddress address = host == null || host.isBlank() ? InetAddress.getLoopbackAddress() : InetAddress.getByName(host);
        HttpServer created = HttpServer.create(new InetSocketAddress(address, onPort), BACKLOG);
        for (ProtocolHandler handler : protocolHandlers) {
            created.createContext(handler.path(), handler);
        }
        created.createContext(ControlPlaneHandler.PREFIX, controlPlane);
        created.createContext("/", controlPlane::notFound);
        created.setExecutor(handlers);
        created.start();
        return created;
    }

    private static ThreadFactory daemonThreads(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
