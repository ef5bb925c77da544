package dev.onejob.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** What the run ran on and with: cores, memory, CPU model, OS, JVM; PostgreSQL, Kafka and onejob versions. */
final class Machine {
    private Machine() {
    }

    static void describe(Map<String, String> machine, Map<String, String> versions, BenchDatabase database,
                         Path root) {
        machine.put("cores", Integer.toString(Runtime.getRuntime().availableProcessors()));
        machine.put("memory", memInfo("MemTotal"));
        machine.put("CPU", cpuInfo("model name"));
        machine.put("OS", osRelease() + ", Linux " + System.getProperty("os.version"));
        machine.put("JVM", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version")
                + " (" + System.getProperty("java.vendor") + ")");
        versions.put("PostgreSQL", database.text("SHOW server_version") + " (synchronous_commit="
                + database.text("SHOW synchronous_commit") + ", shared_buffers=" + database.text("SHOW shared_buffers")
                + ")");
        versions.put("Apache Kafka", BenchKafka.version());
        versions.put("onejob", "0.1.0-SNAPSHOT" + gitCommit(root));
    }

    private static String memInfo(String key) {
        for (String line : lines(Path.of("/proc/meminfo"))) {
            if (line.startsWith(key + ":")) {
                long kib = Long.parseLong(line.replaceAll("[^0-9]", ""));
                return String.format("%.1f GiB", kib / 1024.0 / 1024.0);
            }
        }
        return "unknown";
    }

    private static String cpuInfo(String key) {
        for (String line : lines(Path.of("/proc/cpuinfo"))) {
            if (line.startsWith(key)) {
                return line.substring(line.indexOf(':') + 1).trim();
            }
        }
        return "unknown";
    }

    private static String osRelease() {
        for (String line : lines(Path.of("/etc/os-release"))) {
            if (line.startsWith("PRETTY_NAME=")) {
                return line.substring("PRETTY_NAME=".length()).replace("\"", "");
            }
        }
        return System.getProperty("os.name");
    }

    /** " (commit abc1234)" read from .git without running git, or "" when it cannot be read. */
    private static String gitCommit(Path root) {
        try {
            String head = Files.readString(root.resolve(".git/HEAD")).trim();
            String commit = head;
            if (head.startsWith("ref: ")) {
                Path ref = root.resolve(".git").resolve(head.substring(5));
                commit = Files.exists(ref) ? Files.readString(ref).trim() : packedRef(root, head.substring(5));
            }
            return commit == null ? "" : " (commit " + commit.substring(0, Math.min(12, commit.length())) + ")";
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    private static String packedRef(Path root, String ref) throws IOException {
        for (String line : Files.readAllLines(root.resolve(".git/packed-refs"))) {
            if (line.endsWith(" " + ref)) {
                return line.substring(0, line.indexOf(' '));
            }
        }
        return null;
    }

    private static List<String> lines(Path path) {
        try {
            return Files.readAllLines(path);
        } catch (IOException e) {
            return List.of();
        }
    }
}
