package dev.onejob.reconciler;

import dev.onejob.core.config.Providers;
import dev.onejob.core.db.Database;
import dev.onejob.core.ledger.LedgerStore;
import dev.onejob.core.ledger.ProviderGate;
import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reconciler's parts: the Kafka Streams application ({@code processing.guarantee=exactly_once_v2}) running
 * {@link ReconcilerTopology}, and the {@link Sweeper}. A stream thread that fails (the database is down) is
 * replaced and its task re-processes from the last committed offset, which the idempotent ledger makes harmless.
 */
public final class ResultReconciler implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ResultReconciler.class);

    private final ReconcilerConfig config;
    private final Database database;
    private final CompletionHandler handler;
    private KafkaStreams streams;
    private Sweeper sweeper;

    public ResultReconciler(ReconcilerConfig config, Database database, ProviderGate gate) {
        this.config = config;
        this.database = database;
        this.handler = new CompletionHandler(new LedgerStore(database), gate);
    }

    /** Failover goes only to providers this reconciler knows. */
    public static ProviderGate configuredProviders(Providers providers) {
        return (job, provider) -> providers.find(provider).isPresent();
    }

    public void start() {
        streams = new KafkaStreams(ReconcilerTopology.build(handler), streamsProperties());
        streams.setUncaughtExceptionHandler(e -> {
            log.error("event=stream_thread_failed error=\"{}\" action=replace_thread", e.toString());
            return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.REPLACE_THREAD;
        });
        streams.start();
        sweeper = new Sweeper(new LedgerStore(database));
        sweeper.start(config.sweepInterval());
        log.info("event=started service=result-reconciler application_id={} kafka={} guarantee=exactly_once_v2 "
                + "sweep_interval={}", config.applicationId(), config.kafka().bootstrapServers(), config.sweepInterval());
    }

    public KafkaStreams.State state() {
        return streams.state();
    }

    private Properties streamsProperties() {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, config.applicationId());
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, config.kafka().bootstrapServers());
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.STATE_DIR_CONFIG, config.stateDir().toString());
        props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, config.streamThreads());
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        props.put(StreamsConfig.consumerPrefix("auto.offset.reset"), "earliest");
        props.put(StreamsConfig.consumerPrefix("session.timeout.ms"), 10_000);
        return props;
    }

    @Override
    public void close() {
        if (sweeper != null) {
            sweeper.close();
        }
        if (streams != null) {
            streams.close(Duration.ofSeconds(10));
        }
    }
}
