package dev.onejob.launcher;

import java.io.PrintStream;
import java.util.Map;
import java.util.TreeMap;

/**
 * The local stack exactly as {@code ./onejob dev} builds it ({@link LocalStack}), for code outside this package:
 * {@code ./onejob demo} and the operator commands' tests.
 *
 * <p>Consumes the same environment as {@code ./onejob dev} ({@code DATABASE_URL}, {@code KAFKA_BOOTSTRAP_SERVERS},
 * {@code HTTP_PORT}, {@code PROVIDERS_FILE}, ...); produces where everything listens and the dev tokens; owns the
 * stack it started and stops it on {@link #close()}. It only delegates, so the demo plays against the same wiring
 * as the local stack.
 */
public final class InProcessStack implements AutoCloseable {
    private final LocalStack stack;

    private InProcessStack(LocalStack stack) {
        this.stack = stack;
    }

    /**
     * Starts the stack, printing one progress line per step on {@code progress}.
     *
     * @throws IllegalStateException with a message that says what failed and what to do, when a part cannot start
     */
    public static InProcessStack start(Map<String, String> env, PrintStream progress) {
        LocalStack stack = new LocalStack(new Progress(progress));
        try {
            stack.start(env);
        } catch (StartupException e) {
            stack.close();
            throw new IllegalStateException(e.getMessage(), e);
        } catch (RuntimeException e) {
            stack.close();
            throw e;
        }
        return new InProcessStack(stack);
    }

    /** The HTTP API's base URL on loopback, e.g. {@code http://127.0.0.1:8080}. */
    public String apiUrl() {
        return "http://127.0.0.1:" + stack.httpPort();
    }

    /** Owner -> token for the dev callers (alice, bob: submit; ops: operate); empty when TOKENS_FILE was given. */
    public Map<String, String> devTokens() {
        return stack.devTokens();
    }

    /** Provider id -> the simulator's base URL (its control plane is under {@code /_sim/}); empty without simulators. */
    public Map<String, String> simulatorUrls() {
        Map<String, String> urls = new TreeMap<>();
        stack.services().simulators().forEach((name, simulator) -> urls.put(name, simulator.baseUrl()));
        return urls;
    }

    public String bootstrapServers() {
        return stack.bootstrapServers();
    }

    @Override
    public void close() {
        stack.close();
    }
}
