package dev.onejob.bench.proc;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Reads Linux's {@code /proc}: CPU time of a process (user + system, in clock ticks of 1/100 s), the CPU time of
 * its reaped children, its resident memory now and at its peak ({@code VmRSS}, {@code VmHWM}), and the CPU time of
 * the PostgreSQL server (every {@code postgres} process plus what the postmaster reaped from exited backends).
 */
public final class ProcStats {
    public static final double TICKS_PER_SECOND = 100.0;

    private ProcStats() {
    }

    /** utime + stime of {@code pid}, or -1 when it is gone. */
    public static long cpuTicks(long pid) {
        long[] fields = statFields(pid);
        return fields == null ? -1 : fields[11] + fields[12];
    }

    /** cutime + cstime of {@code pid}: the CPU time of its children that exited and were waited for. */
    public static long childrenTicks(long pid) {
        long[] fields = statFields(pid);
        return fields == null ? -1 : fields[13] + fields[14];
    }

    /** {@code {VmRSS, VmHWM}} in KiB, or null when the process is gone. */
    public static long[] memoryKib(long pid) {
        try {
            long rss = -1;
            long hwm = -1;
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    rss = kib(line);
                } else if (line.startsWith("VmHWM:")) {
                    hwm = kib(line);
                }
            }
            return new long[] {rss, hwm};
        } catch (IOException e) {
            return null;
        }
    }

    /** CPU ticks of the PostgreSQL server on this machine: live postgres processes plus reaped backends. */
    public static long postgresTicks() {
        Map<Long, Long> parents = new HashMap<>();
        long total = 0;
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path proc : procs) {
                long pid = Long.parseLong(proc.getFileName().toString());
                String comm = readQuietly(proc.resolve("comm"));
                if (comm == null || !comm.trim().equals("postgres")) {
                    continue;
                }
                long[] fields = statFields(pid);
                if (fields != null) {
                    total += fields[11] + fields[12];
                    parents.put(pid, fields[1]);
                }
            }
        } catch (IOException e) {
            return -1;
        }
        for (Map.Entry<Long, Long> entry : parents.entrySet()) {
            if (!parents.containsKey(entry.getValue())) {
                total += childrenTicks(entry.getKey());
            }
        }
        return total;
    }

    /** Busy clock ticks of the whole machine since boot (all of /proc/stat's "cpu" line but idle and iowait). */
    public static long machineBusyTicks() {
        String stat = readQuietly(Path.of("/proc/stat"));
        if (stat == null) {
            return 0;
        }
        String[] cpu = stat.lines().findFirst().orElse("cpu").trim().split("\\s+");
        long busy = 0;
        for (int i = 1; i < cpu.length && i <= 8; i++) {
            if (i != 4 && i != 5) {
                busy += Long.parseLong(cpu[i]);
            }
        }
        return busy;
    }

    /** The fields of /proc/pid/stat after the command name: index 0 is the state, 1 the parent pid, 11 utime. */
    private static long[] statFields(long pid) {
        String stat = readQuietly(Path.of("/proc", Long.toString(pid), "stat"));
        if (stat == null) {
            return null;
        }
        String[] parts = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
        long[] fields = new long[Math.min(parts.length, 20)];
        for (int i = 1; i < fields.length; i++) {
            fields[i] = Long.parseLong(parts[i]);
        }
        return fields;
    }

    private static long kib(String line) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
    }

    private static String readQuietly(Path path) {
        try {
            return Files.readString(path);
        } catch (IOException e) {
            return null;
        }
    }
}
