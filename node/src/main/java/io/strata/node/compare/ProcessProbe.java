package io.strata.node.compare;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * What Linux says about one process: CPU ticks ({@code /proc/PID/stat}, utime + stime in USER_HZ
 * = 1/100 s), the same per thread ({@code /proc/PID/task/TID/stat}), {@code VmRSS} and
 * {@code Threads} of {@code /proc/PID/status}.
 */
public final class ProcessProbe {

    /** Linux reports process times in USER_HZ, 100 on every architecture Linux supports today. */
    static final double TICKS_PER_SECOND = 100.0;

    /** One reading of a process. */
    public record Snapshot(long nanoTime, long cpuTicks, long rssBytes, int threads, Map<Long, ThreadTicks> byThread) {
    }

    /** A thread's name ({@code comm}, at most 15 characters) and CPU ticks. */
    public record ThreadTicks(String name, long ticks) {
    }

    private ProcessProbe() {
    }

    public static Snapshot read(long pid) throws IOException {
        long ticks = ticksOf(Files.readString(Path.of("/proc/" + pid + "/stat")));
        long rss = 0;
        int threads = 0;
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS:")) {
                rss = Long.parseLong(line.substring(6).trim().split("\\s+")[0]) * 1024;
            } else if (line.startsWith("Threads:")) {
                threads = Integer.parseInt(line.substring(8).trim());
            }
        }
        Map<Long, ThreadTicks> byThread = new HashMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/" + pid + "/task"))) {
            for (Path t : tasks) {
                try {
                    String stat = Files.readString(t.resolve("stat"));
                    String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                    byThread.put(Long.parseLong(t.getFileName().toString()), new ThreadTicks(name, ticksOf(stat)));
                } catch (IOException | RuntimeException threadEnded) {
                    // a thread that ended between the listing and the read has no ticks to add
                }
            }
        }
        return new Snapshot(System.nanoTime(), ticks, rss, threads, byThread);
    }

    /** utime + stime of a {@code stat} line (fields 14 and 15; the name in parentheses may hold spaces). */
    static long ticksOf(String stat) {
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }

    /**
     * CPU seconds between two readings per thread family: the thread's name with its digits and
     * brackets' contents dropped ({@code RRDPUSH[load-child-17]} and {@code strata-ingest-3} count
     * as one family each), threads that started after {@code from} counted from zero.
     */
    public static Map<String, Double> cpuByThreadFamily(Snapshot from, Snapshot to) {
        Map<String, Double> out = new HashMap<>();
        for (Map.Entry<Long, ThreadTicks> e : to.byThread().entrySet()) {
            ThreadTicks before = from.byThread().get(e.getKey());
            long ticks = e.getValue().ticks() - (before == null ? 0 : before.ticks());
            if (ticks > 0) {
                out.merge(family(e.getValue().name()), ticks / TICKS_PER_SECOND, Double::sum);
            }
        }
        return out;
    }

    static String family(String threadName) {
        String s = threadName.replaceAll("\\[[^\\]]*\\]?", "[]").replaceAll("[0-9]+", "N");
        return s.isEmpty() ? "?" : s;
    }
}
