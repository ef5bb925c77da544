package dev.onejob.bench.proc;

import dev.onejob.infra.proc.ProcessRunner;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Summarises a flight recording with the JDK's {@code jfr print}: the methods on top of the stack in
 * {@code jdk.ExecutionSample} (where the CPU went), the first onejob frame of those stacks (which of onejob's code
 * paths spent it), and the top frames of {@code jdk.NativeMethodSample} (threads parked in native code, mostly socket
 * reads: waiting on PostgreSQL, Kafka or HTTP peers; idle selector threads in {@code EPoll.wait} are left out).
 */
public final class JfrSummary {
    /** One frame and how many samples had it. */
    public record Frame(String frame, long samples, double share) {
    }

    /** The top frames of one recording. */
    public record Summary(String process, String phase, long cpuSamples, List<Frame> topSelf, List<Frame> topOnejob,
                          long nativeSamples, List<Frame> topNative) {
    }

    private JfrSummary() {
    }

    public static Summary summarise(String process, String phase, Path recording, int top) {
        Map<String, Long> self = new HashMap<>();
        Map<String, Long> onejob = new HashMap<>();
        long cpu = read(recording, "jdk.ExecutionSample", stack -> {
            self.merge(stack.get(0), 1L, Long::sum);
            onejob.merge(stack.stream().filter(f -> f.startsWith("dev.onejob.")).findFirst()
                    .orElse("(no onejob frame) " + stack.get(0)), 1L, Long::sum);
        });
        Map<String, Long> nativeTop = new HashMap<>();
        long natives = read(recording, "jdk.NativeMethodSample", stack -> {
            if (stack.get(0).startsWith("sun.nio.ch.EPoll.wait")) {
                return;
            }
            String owner = stack.stream().filter(f -> f.startsWith("dev.onejob.")).findFirst().orElse("");
            nativeTop.merge(stack.get(0) + (owner.isEmpty() ? "" : "  <- " + owner), 1L, Long::sum);
        });
        return new Summary(process, phase, cpu, top(self, cpu, top), top(onejob, cpu, top), natives,
                top(nativeTop, natives, top));
    }

    private interface StackSink {
        void accept(List<String> stack);
    }

    private static long read(Path recording, String event, StackSink sink) {
        ProcessBuilder builder = new ProcessBuilder(ProcessRunner.javaTool("jfr"), "print", "--events", event,
                "--stack-depth", "40", recording.toString());
        builder.redirectErrorStream(true);
        long count = 0;
        try {
            Process process = builder.start();
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                List<String> stack = null;
                String line;
                while ((line = reader.readLine()) != null) {
                    String trimmed = line.trim();
                    if (trimmed.startsWith("stackTrace = [")) {
                        stack = new ArrayList<>();
                    } else if (stack != null && trimmed.equals("]")) {
                        if (!stack.isEmpty()) {
                            sink.accept(stack);
                            count++;
                        }
                        stack = null;
                    } else if (stack != null && !trimmed.equals("...")) {
                        stack.add(trimmed.replaceAll("\\s+line: \\d+.*$", "").replaceAll("\\(.*\\)$", "()"));
                    }
                }
            }
            process.waitFor();
        } catch (IOException e) {
            return count;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return count;
    }

    private static List<Frame> top(Map<String, Long> counts, long total, int top) {
        return counts.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .limit(top)
                .map(e -> new Frame(e.getKey(), e.getValue(), total == 0 ? 0 : (double) e.getValue() / total))
                .toList();
    }
}
