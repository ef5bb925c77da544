package dev.onejob.bench;

import dev.onejob.infra.proc.ProcessRunner;
import dev.onejob.bench.report.Phases;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.MatchResult;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Phase 2, Kafka's limit on this machine: Kafka's own {@code org.apache.kafka.tools.ProducerPerformance}, in a JVM
 * of its own, sending 1 KiB records as fast as it can to a 3-partition topic with the project's producer settings
 * ({@code KafkaConfig.producer}: acks=all, enable.idempotence=true, linger.ms=2, the same timeouts).
 */
record ProducerPerfPhase(BenchContext context) {
    private static final Pattern SUMMARY = Pattern.compile("(\\d+) records sent, ([\\d.]+) records/sec \\(([\\d.]+) "
            + "MB/sec\\), ([\\d.]+) ms avg latency, ([\\d.]+) ms max latency, (\\d+) ms 50th, (\\d+) ms 95th, (\\d+) ms "
            + "99th");

    void run() {
        List<String> command = new ArrayList<>(List.of(ProcessRunner.javaTool("java"), "-cp",
                context.runner().classpath(), "org.apache.kafka.tools.ProducerPerformance",
                "--topic", BenchKafka.PERF_TOPIC, "--num-records", Integer.toString(context.settings().producerRecords()),
                "--record-size", "1024", "--throughput", "-1", "--producer-props",
                "bootstrap.servers=" + context.kafka().bootstrapServers(), "acks=all", "enable.idempotence=true",
                "linger.ms=2", "delivery.timeout.ms=30000", "request.timeout.ms=10000"));
        ProcessRunner.Completed run;
        try (var window = context.window(Phases.KAFKA_PERF, List.of())) {
            run = context.runner().run("producer-performance", command, Map.of(), Duration.ofMinutes(5));
        }
        MatchResult summary = null;
        Matcher matcher = SUMMARY.matcher(run.output());
        while (matcher.find()) {
            summary = matcher.toMatchResult();
        }
        if (run.exitCode() != 0 || summary == null) {
            context.results().notMeasured(Phases.KAFKA_PERF, "records/s (1 KiB)", "records/s",
                    "ProducerPerformance exited " + run.exitCode() + ": " + run.output().lines()
                            .reduce((a, b) -> b).orElse(""));
            return;
        }
        context.results().add(Phases.KAFKA_PERF, "records/s (1 KiB)", Double.parseDouble(summary.group(2)),
                "records/s", summary.group(1) + " records");
        context.results().add(Phases.KAFKA_PERF, "MB/s", Double.parseDouble(summary.group(3)), "MB/s", "");
        context.results().add(Phases.KAFKA_PERF, "average latency", Double.parseDouble(summary.group(4)), "ms",
                "send to acknowledgement, as ProducerPerformance measures it");
        context.results().add(Phases.KAFKA_PERF, "p99 latency", Double.parseDouble(summary.group(8)), "ms", "");
    }
}
