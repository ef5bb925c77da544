package dev.onejob.providers;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.config.ProviderProtocol;
import dev.onejob.core.contract.Contract;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The provider adapters of one process, sharing one HTTP client and one deadline timer.
 *
 * <p>Consumes an {@link HttpClient} and the environment (for API keys); produces a {@link ProviderClient} per wire
 * protocol, and is itself a {@code ProviderClient} that picks one by {@link ProviderConfig#protocol()}. Owns the
 * deadline timer (one daemon thread) unless one was passed in; {@link #close()} stops an owned timer, after which
 * pending deadlines no longer fire. The HTTP client is lent, not owned.
 */
public final class ProviderClients implements ProviderClient, AutoCloseable {

    /** How long the JDK's HTTP client keeps an idle pooled connection, in seconds; set unless already set. */
    static final String KEEPALIVE_PROPERTY = "jdk.httpclient.keepalive.timeout";

    static {
        // The JDK keeps an idle connection 1,200 s; servers close theirs much sooner (the JDK's HttpServer after 30 s,
        // load balancers after about 60 s). A request written into a connection the server is just closing is reset
        // with no answer, and that is UNKNOWN: it may have been read. Dropping idle connections first, after 20 s,
        // leaves that race to servers that close sooner still. Read once, when the first HTTP client is made.
        if (System.getProperty(KEEPALIVE_PROPERTY) == null) {
            System.setProperty(KEEPALIVE_PROPERTY, "20");
        }
    }

    /** Connect timeout of {@link #defaultHttpClient()}: a provider that cannot be reached by then is "not sent". */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);

    private final ScheduledExecutorService timer;
    private final boolean ownsTimer;
    private final OpenAiChatClient openAiChat;
    private final AnthropicMessagesClient anthropicMessages;
    private final AnthropicTokenCounter tokenCounter;

    private ProviderClients(HttpClient http, Map<String, String> env, ScheduledExecutorService timer,
                            boolean ownsTimer) {
        ProviderTransport transport = new ProviderTransport(http, env, timer);
        this.timer = timer;
        this.ownsTimer = ownsTimer;
        this.openAiChat = new OpenAiChatClient(transport);
        this.anthropicMessages = new AnthropicMessagesClient(transport);
        this.tokenCounter = new AnthropicTokenCounter(transport);
    }

    /**
     * Refuses a provider of another protocol than the adapter's own ({@code expected}): a wiring mistake, thrown as
     * an {@link IllegalArgumentException}, not a call's outcome.
     */
    static void requireProtocol(ProviderConfig provider, ProviderProtocol expected) {
        if (provider.protocol() != expected) {
            throw new IllegalArgumentException("provider " + provider.id() + " speaks " + provider.protocol().wireName()
                    + ", not " + expected.wireName());
        }
    }

    /** Adapters over {@code http}, reading API keys from {@code env}, with their own deadline timer. */
    public static ProviderClients create(HttpClient http, Map<String, String> env) {
        return new ProviderClients(http, env, deadlineTimer(), true);
    }

    /** Adapters over {@code http} using the caller's {@code timer}, which {@link #close()} leaves running. */
    public static ProviderClients create(HttpClient http, Map<String, String> env, ScheduledExecutorService timer) {
        return new ProviderClients(http, env, timer, false);
    }

    /** HTTP/1.1, {@link #DEFAULT_CONNECT_TIMEOUT}, no redirects (a redirected POST is not the call we meant). */
    public static HttpClient defaultHttpClient() {
        return HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(DEFAULT_CONNECT_TIMEOUT)
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    /** The adapter for {@code protocol}. */
    public ProviderClient forProtocol(ProviderProtocol protocol) {
        return switch (protocol) {
            case OPENAI_CHAT -> openAiChat;
            case ANTHROPIC_MESSAGES -> anthropicMessages;
        };
    }

    @Override
    public ProviderCall call(ProviderConfig provider, Contract contract, JsonNode variables, UUID attemptId,
                             ChunkSink sink) {
        return forProtocol(provider.protocol()).call(provider, contract, variables, attemptId, sink);
    }

    public AnthropicTokenCounter tokenCounter() {
        return tokenCounter;
    }

    @Override
    public void close() {
        if (ownsTimer) {
            timer.shutdownNow();
        }
    }

    private static ScheduledExecutorService deadlineTimer() {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "provider-deadlines");
            thread.setDaemon(true);
            return thread;
        });
        // Most calls answer before their deadlines: drop cancelled timers at once instead of at their due time.
        timer.setRemoveOnCancelPolicy(true);
        timer.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        return timer;
    }
}
