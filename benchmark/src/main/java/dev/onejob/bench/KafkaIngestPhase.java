package dev.onejob.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.bench.loadgen.JobRequestFactory;
import dev.onejob.bench.loadgen.TopicEnd;
import dev.onejob.bench.report.Phases;
import dev.onejob.core.json.Json;
import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.kafka.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Phase 3, ingest over Kafka: the ingest service (its own process, relay on, no worker running) consumes
 * {@code job-requests} records produced here with the project's producer settings: a share repeat an earlier
 * request (REPLAYED by the ledger) and every 100th is not JSON (dead-lettered). Measured from the first produce to
 * the last expected {@code attempt-commands} record (one per new job) seen by a read_committed consumer. A small
 * batch with other owners runs first, to warm the service up.
 */
record KafkaIngestPhase(BenchContext context) {
    void run() throws InterruptedException {
        send("kwarm", context.settings().kafkaWarmupRecords());
        try (var window = context.window(Phases.KAFKA_INGEST, List.of(context.services().ingest()))) {
            long[] measured = send("kafka", context.settings().kafkaRecords());
            double seconds = measured[3] / 1e9;
            if (measured[2] < measured[1]) {
                context.results().notMeasured(Phases.KAFKA_INGEST, "job requests/s", "requests/s", "only "
                        + measured[2] + " of " + measured[1] + " attempt commands arrived within the time limit");
                return;
            }
            long records = context.settings().kafkaRecords();
            context.results().add(Phases.KAFKA_INGEST, "job requests/s", records / seconds, "requests/s",
                    records + " records in " + String.format("%.2f", seconds) + " s");
            context.results().add(Phases.KAFKA_INGEST, "new jobs/s", measured[1] / seconds, "jobs/s",
                    measured[1] + " new jobs, each with its attempt command");
            context.results().add(Phases.KAFKA_INGEST, "repeated requests", measured[0], "records",
                    "same owner, key and payload as an earlier record: answered REPLAYED");
            context.results().add(Phases.KAFKA_INGEST, "poison records", records / context.settings().poisonEvery(),
                    "records", "not JSON: dead-lettered to job-requests.dlq");
        }
    }

    /** Sends {@code count} records for owners {@code <prefix>-N}; {repeats, new jobs, commands seen, nanos}. */
    private long[] send(String prefix, int count) throws InterruptedException {
        List<String> owners = BenchFiles.OWNERS.stream().map(o -> prefix + o.substring(o.indexOf('-'))).toList();
        JobRequestFactory factory = new JobRequestFactory(prefix, owners, context.settings().repeatShare(), 0, "");
        CommandCounter counter = new CommandCounter(context.kafka().bootstrapServers(), prefix + "-");
        KafkaConfig kafka = new KafkaConfig(context.kafka().bootstrapServers());
        long repeats = 0;
        long start = System.nanoTime();
        try (var producer = new KafkaProducer<>(kafka.producer("bench-job-requests"), new ByteArraySerializer(),
                new ByteArraySerializer())) {
            for (int i = 1; i <= count; i++) {
                byte[] value;
                String owner;
                if (i % context.settings().poisonEvery() == 0) {
                    owner = owners.get(i % owners.size());
                    value = ("{not json " + i).getBytes(StandardCharsets.UTF_8);
                } else {
                    JobRequestFactory.JobRequest request = factory.next();
                    repeats += request.repeat() ? 1 : 0;
                    owner = request.owner();
                    value = factory.envelope(request).getBytes(StandardCharsets.UTF_8);
                }
                producer.send(new ProducerRecord<>(Topics.JOB_REQUESTS.name(), owner.getBytes(StandardCharsets.UTF_8),
                        value));
            }
            producer.flush();
        }
        long expected = factory.distinctJobs();
        long[] seen = counter.await(expected, Duration.ofSeconds(300));
        return new long[] {repeats, expected, seen[0], seen[1] - start};
    }

    /** Counts attempt commands whose owner starts with a prefix, as a read_committed consumer from the topic's end. */
    private static final class CommandCounter {
        private final KafkaConsumer<byte[], byte[]> consumer;
        private final String ownerPrefix;

        CommandCounter(String bootstrapServers, String ownerPrefix) {
            this.ownerPrefix = ownerPrefix;
            consumer = TopicEnd.reader(bootstrapServers, Topics.ATTEMPT_COMMANDS.name(), "bench-commands-");
        }

        /** {count seen, nanoTime of the last one}. */
        long[] await(long expected, Duration timeout) {
            long seen = 0;
            long last = System.nanoTime();
            long deadline = System.nanoTime() + timeout.toNanos();
            try (consumer) {
                while (seen < expected && System.nanoTime() < deadline) {
                    for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(50))) {
                        JsonNode command = Json.parse(new String(record.value(), StandardCharsets.UTF_8));
                        if (command.path("owner_id").asText().startsWith(ownerPrefix)) {
                            seen++;
                            last = System.nanoTime();
                        }
                    }
                }
            }
            return new long[] {seen, last};
        }
    }
}
