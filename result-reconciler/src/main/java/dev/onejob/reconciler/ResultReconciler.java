package dev.onejob.reconciler;

import dev.onejob.core.certification.CertificationGate;
import dev.onejob.core.certification.CertificationRequests;
import dev.onejob.core.certification.CertificationStore;
import dev.onejob.core.config.Providers;
import dev.onejob.core.contract.Contracts;
import dev.onejob.core.db.Database;
import dev.onejob.core.ledger.BillingStore;
import dev.onejob.core.ledger.Ledger;
import dev.onejob.core.ledger.ProviderGate;
import dev.onejob.core.metrics.LedgerGauges;
import dev.onejob.core.metrics.OpsServer;
import dev.onejob.core.outbox.OutboxHost;
import dev.onejob.core.outbox.OutboxRelay;
import dev.onejob.core.service.Closeables;
import dev.onejob.core.service.Loops;
import io.micrometer.core.instrument.binder.kafka.KafkaStreamsMetrics;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Properties;
import java.util.function.Consumer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reconciler's parts: the Kafka Streams application ({@code processing.guarantee=exactly_once_v2}) running
 * {@link ReconcilerTopology}, the {@link Sweeper} and, unless {@code OUTBOX_RELAY=false}, an {@link OutboxRelay}
 * that publishes what the reconciler writes to the outbox (failover commands, job results, race-audit records), so
 * its output reaches Kafka with no ingest instance running. A stream thread that fails (the database is down) is
 * replaced and its task re-processes from the last committed offset, which the idempotent ledger makes harmless.
 */
public final class ResultReconciler implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ResultReconciler.class);
    /** The race statistics' Streams application id: the reconciler's group id plus this. */
    public static final String RACE_STATS_SUFFIX = "-race-stats";

    private final ReconcilerConfig config;
    private final Database database;
    private final CompletionHandler handler;
    private final ReconcilerMetrics metrics = new ReconcilerMetrics();
    private KafkaStreams streams;
    private Sweeper sweeper;
    private CompletionProgress progress;
    private LedgerGauges gauges;
    private OpsServer ops;
    private CertificationSchedule schedule;
    private final Loops loops;

    /** {@code onDeadLoop} is what happens when the relay dies ({@link Loops#EXIT} for a reconciler run alone). */
    public ResultReconciler(ReconcilerConfig config, Database database, ProviderGate gate,
                            Consumer<String> onDeadLoop) {
        this.config = config;
        this.database = database;
        this.handler = new CompletionHandler(new Ledger(database), new BillingStore(database), gate,
                metrics, config.startTokensRequired());
        this.loops = new Loops(onDeadLoop);
    }

    /**
     * The production gate: failover only to providers with a passing certification for the job's contract as it is
     * now, younger than {@code CERTIFICATION_MAX_AGE}.
     */
    public static ProviderGate certified(Database database, Contracts contracts, Providers providers,
                                         Duration maxAge) {
        return new CertificationGate(new CertificationStore(database), contracts, providers, maxAge,
                Clock.systemUTC());
    }

    /**
     * Asks the workers to re-certify every pair every {@code interval} (a request and its command through the outbox;
     * the schedule is owned and closed by this reconciler); off unless called.
     */
    public void certifyEvery(Duration interval) {
        schedule = new CertificationSchedule(new CertificationRequests(database), interval);
    }

    public void start() {
        // The relay first: loops stop in reverse order, so it stops last and publishes what the consumers wrote.
        if (config.relay()) {
            OutboxHost.start(loops, database, config.kafka(), config.instanceId(),
                    metrics.registry(), OutboxRelay.Hooks.NONE, config.outboxRetention());
        }
        for (int i = 0; i < config.completionThreads(); i++) {
            String name = config.instanceId() + "-completions-" + i;
            loops.start("completions-" + i, CompletionConsumer.create(config.kafka(), config.applicationId(), name,
                    config.applicationId() + "-" + name, handler));
        }
        streams = new KafkaStreams(RaceStatsTopology.build(), streamsProperties());
        ThreadRestarts restarts = ThreadRestarts.standard();
        streams.setUncaughtExceptionHandler(e -> {
            // Called on the failing stream thread: waiting here keeps its partitions from being replayed in a loop.
            Duration wait = restarts.nextWait();
            log.error("event=stream_thread_failed error=\"{}\" action=replace_thread_in_{}ms", e.toString(),
                    wait.toMillis());
            try {
                Thread.sleep(wait.toMillis());
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
            return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.REPLACE_THREAD;
        });
        streams.start();
        progress = new CompletionProgress(config.kafka(), config.applicationId(),
                config.instanceId() + "-sweeper");
        sweeper = new Sweeper(new Ledger(database), metrics, progress::snapshot);
        sweeper.start(config.sweepInterval());
        gauges = new LedgerGauges(database, metrics.registry());
        new KafkaStreamsMetrics(streams).bindTo(metrics.registry());
        if (config.metricsPort() >= 0) {
            try {
                ops = OpsServer.start("0.0.0.0", config.metricsPort(), metrics.registry(), this::notReady);
            } catch (IOException e) {
                throw new IllegalStateException("result-reconciler cannot serve /metrics on port "
                        + config.metricsPort() + ": " + e.getMessage() + " (set METRICS_PORT, or -1 to turn it off)", e);
            }
        }
        log.info("event=started service=result-reconciler group={} completion_threads={} kafka={} "
                        + "sweep_interval={} relay={} metrics={}", config.applicationId(), config.completionThreads(),
                config.kafka().bootstrapServers(), config.sweepInterval(), config.relay(),
                ops == null ? "off" : "http://0.0.0.0:" + ops.port() + "/metrics");
    }

    public KafkaStreams.State state() {
        return streams.state();
    }

    /** The port serving /metrics and /health, or -1 when turned off. */
    public int metricsPort() {
        return ops == null ? -1 : ops.port();
    }

    /** Ready when the completion consumers, the relay (if any) and the stream threads run and PostgreSQL answers. */
    private String notReady() {
        if (loops.dead().isPresent()) {
            return loops.dead().get();
        }
        if (streams.state() != KafkaStreams.State.RUNNING) {
            return "Kafka Streams is " + streams.state();
        }
        try (var connection = database.dataSource().getConnection()) {
            return connection.isValid(2) ? null : "PostgreSQL does not answer";
        } catch (Exception e) {
            log.warn("event=readiness_postgres_failed error=\"{}\"", e.toString());
            return "PostgreSQL does not answer";
        }
    }

    private Properties streamsProperties() {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, config.applicationId() + RACE_STATS_SUFFIX);
        props.putAll(config.kafka().common());
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.STATE_DIR_CONFIG, config.stateDir().toString());
        props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        props.put(StreamsConfig.consumerPrefix("auto.offset.reset"), "earliest");
        props.put(StreamsConfig.consumerPrefix("session.timeout.ms"), 10_000);
        return props;
    }

    @Override
    public void close() {
        Closeables.closeInOrder(schedule, ops, gauges, sweeper, progress);
        if (streams != null) {
            streams.close(Duration.ofSeconds(10));
        }
        // Last: the completion consumers stop, then the relay publishes what they wrote before they stopped.
        loops.close();
    }
}
