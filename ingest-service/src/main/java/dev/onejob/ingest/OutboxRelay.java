package dev.onejob.ingest;

import dev.onejob.core.db.Database;
import dev.onejob.core.db.DatabaseConfig;
import dev.onejob.core.json.Json;
import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.outbox.OutboxStore;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;
import org.postgresql.PGConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes the outbox to Kafka with an idempotent producer (key: the event's message key, the job id) and marks
 * rows sent in the same transaction that claimed them ({@code FOR UPDATE SKIP LOCKED}, so several relays share the
 * work). A crash between publish and commit re-sends the batch; consumers are idempotent. The relay sleeps on
 * PostgreSQL's {@code LISTEN outbox_inserted} and wakes as soon as a transaction queues an event.
 */
public final class OutboxRelay implements Runnable, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(OutboxRelay.class);
    private static final int BATCH = 500;
    private static final Duration IDLE_WAIT = Duration.ofSeconds(1);

    /** A seam for tests: runs after the batch was published and before it is marked sent. */
    public interface AfterPublish {
        AfterPublish NOTHING = events -> { };

        void run(List<OutboxStore.OutboxEvent> events);
    }

    private final Database database;
    private final DatabaseConfig databaseConfig;
    private final KafkaProducer<String, byte[]> producer;
    private final IngestMetrics metrics;
    private final AfterPublish afterPublish;
    private final AtomicBoolean running = new AtomicBoolean(true);

    public OutboxRelay(Database database, DatabaseConfig databaseConfig, KafkaConfig kafka, String clientId,
                       IngestMetrics metrics, AfterPublish afterPublish) {
        this.database = database;
        this.databaseConfig = databaseConfig;
        this.producer = new KafkaProducer<>(kafka.producer(clientId), new StringSerializer(),
                new org.apache.kafka.common.serialization.ByteArraySerializer());
        this.metrics = metrics;
        this.afterPublish = afterPublish;
    }

    @Override
    public void run() {
        Connection listener = null;
        try {
            while (running.get()) {
                try {
                    if (listener == null) {
                        listener = listen();
                    }
                    int sent = relayOnce();
                    if (sent < BATCH) {
                        // Nothing more right now: sleep until a transaction queues an event (or a second passes).
                        listener.unwrap(PGConnection.class).getNotifications((int) IDLE_WAIT.toMillis());
                    }
                } catch (SQLException | RuntimeException e) {
                    if (!running.get()) {
                        break;
                    }
                    log.warn("event=relay_error error=\"{}\" action=retry_in_1s", e.toString());
                    closeQuietly(listener);
                    listener = null;
                    pause();
                }
            }
        } finally {
            closeQuietly(listener);
            producer.close(Duration.ofSeconds(5));
        }
    }

    /** One claim-publish-mark round; returns how many events were sent. */
    public int relayOnce() {
        int sent = OutboxStore.relayBatch(database, BATCH, this::publish);
        if (sent > 0) {
            metrics.relayed(sent);
        }
        return sent;
    }

    private void publish(List<OutboxStore.OutboxEvent> events) throws Exception {
        List<Future<RecordMetadata>> acks = new ArrayList<>(events.size());
        for (OutboxStore.OutboxEvent event : events) {
            ProducerRecord<String, byte[]> record = new ProducerRecord<>(event.topic(), event.messageKey(),
                    Json.write(event.payload()).getBytes(StandardCharsets.UTF_8));
            event.headers().forEach((k, v) -> record.headers().add(k, v.getBytes(StandardCharsets.UTF_8)));
            acks.add(producer.send(record));
        }
        producer.flush();
        for (Future<RecordMetadata> ack : acks) {
            ack.get();
        }
        afterPublish.run(events);
    }

    private Connection listen() throws SQLException {
        Connection connection = DriverManager.getConnection(databaseConfig.jdbcUrl(), databaseConfig.user(),
                databaseConfig.password());
        try (Statement statement = connection.createStatement()) {
            statement.execute("LISTEN outbox_inserted");
        }
        return connection;
    }

    private static void pause() {
        try {
            Thread.sleep(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(Connection connection) {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // Closing a broken connection: nothing left to do.
            }
        }
    }

    @Override
    public void close() {
        running.set(false);
    }
}
