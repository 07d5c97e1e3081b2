package io.strata.it.engine;

import io.strata.engine.EngineConfig;
import io.strata.engine.EngineTestSupport;
import io.strata.engine.FsyncPolicy;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.recovery.RecoveryReport;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * kill -9 of a writing process at random moments, several times over the same directory: the
 * database always opens, never returns a wrong value, keeps every point of every completed
 * {@link StorageEngine#flush()} (a process kill leaves the page cache, so nothing written is lost),
 * and after one open a second open finds nothing left to repair.
 *
 * <p>Points still in the writer's memory at the kill are gone; that is expected and not checked.
 * The seed of the kill delays is printed; rerun with {@code -Dstrata.it.seed=<seed>}.
 */
class WriterKilledBySigkillIT {

    static final int ROUNDS = 5;
    static final int MIN_DELAY_MS = 300;
    static final int MAX_DELAY_MS = 3000;
    /** No new round starts after this much time in one invocation (the whole test stays < 90 s). */
    static final long ROUND_BUDGET_MS = 55_000;
    static final long QUERY_END = CrashWriter.T0 + CrashWriter.MAX_SECONDS + 1_000_000L;

    @ParameterizedTest(name = "fsync {0}")
    @ValueSource(strings = {"never", "per-extent"})
    void killedWriterLeavesEveryFlushedPointAndNothingWrong(String fsync, @TempDir Path tmp) throws Exception {
        long seed = Long.getLong("strata.it.seed", System.nanoTime());
        System.out.printf("[sigkill fsync=%s] seed %d (rerun with -Dstrata.it.seed=%d)%n", fsync, seed, seed);
        Random rnd = new Random(seed);
        FsyncPolicy policy = FsyncPolicy.parse(fsync);
        Path db = tmp.resolve("db");
        EngineConfig cfg = CrashWriter.config(db, policy);
        long started = System.nanoTime();
        long durableUpTo = CrashWriter.T0 - 1;   // every second <= this was flushed in some round
        int rounds = 0;
        for (int round = 1; round <= ROUNDS; round++) {
            long elapsed = (System.nanoTime() - started) / 1_000_000;
            if (round > 2 && elapsed > ROUND_BUDGET_MS) {
                System.out.printf("[sigkill fsync=%s] time budget used after %d round(s) (%d ms)%n", fsync, rounds, elapsed);
                break;
            }
            int delay = MIN_DELAY_MS + rnd.nextInt(MAX_DELAY_MS - MIN_DELAY_MS + 1);
            Path log = tmp.resolve("writer-" + round + ".stderr");
            KilledRun run = runAndKill(db, fsync, delay, log);
            if (run.lastFlushed >= 0) {
                durableUpTo = Math.max(durableUpTo, run.lastFlushed);
            }
            rounds++;

            // (1) it opens; (2) no wrong value; (3) everything flushed is there; (4) the rest is reported or unwritten
            RoundResult r;
            RecoveryReport report;
            try (StorageEngine e = StorageEngine.open(cfg)) {
                report = e.recoveryReport();
                r = check(e, durableUpTo);
                assertEquals(0, e.readErrors(), "damaged extents met by queries after recovery");
            }
            System.out.printf("[sigkill fsync=%s] round %d: started at %d, kill after %d ms (%d s of data written, "
                            + "exit %d), last FLUSHED %s, durable up to %d, points recovered %d, newest second %d, "
                            + "findings %d, lost ranges %d, notes %d, unreported holes after FLUSHED %d%n",
                    fsync, round, run.firstSecond, delay, run.lastFlushed < 0 ? 0 : run.lastFlushed - run.firstSecond + 1,
                    run.exitValue, run.lastFlushed < 0 ? "none" : Long.toString(run.lastFlushed), durableUpTo,
                    r.points, r.newest, report.findings().size(), report.lostRanges().size(), report.notes().size(),
                    r.unreportedHolesAfterFlushed);
            for (RecoveryReport.Finding f : report.findings()) {
                System.out.printf("[sigkill fsync=%s]   finding: %s%n", fsync, f);
            }
            for (String n : report.notes()) {
                System.out.printf("[sigkill fsync=%s]   note: %s%n", fsync, n);
            }
            if (!r.failures.isEmpty()) {
                fail("round " + round + " (seed " + seed + ", fsync " + fsync + ", kill after " + delay + " ms, last FLUSHED "
                        + run.lastFlushed + "): " + r.failures.size() + " problem(s):\n  "
                        + String.join("\n  ", r.failures.subList(0, Math.min(30, r.failures.size()))));
            }

            // (5) the first open repaired everything: a second open finds an intact database
            final int thisRound = round;
            try (StorageEngine e = StorageEngine.open(cfg)) {
                RecoveryReport again = e.recoveryReport();
                assertTrue(again.lostRanges().isEmpty(), () -> "round " + thisRound + ": second open still reports lost ranges: "
                        + again.findings());
                assertTrue(again.findings().isEmpty(), () -> "round " + thisRound + ": second open still finds damage: "
                        + again.findings());
            }
        }
        assertTrue(rounds >= 3, "at least three kill rounds ran");
        System.out.printf("[sigkill fsync=%s] %d round(s) in %d ms%n", fsync, rounds, (System.nanoTime() - started) / 1_000_000);
    }

    /** What one writer process did before it was killed. */
    record KilledRun(long firstSecond, long lastFlushed, int exitValue) {
    }

    private static KilledRun runAndKill(Path db, String fsync, int delayMs, Path stderr) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(javaExecutable());
        for (String f : System.getProperty("strata.jvm.flags", "").trim().split("\\s+")) {
            if (!f.isEmpty()) {
                cmd.add(f);
            }
        }
        cmd.add("-Xmx512m");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(CrashWriter.class.getName());
        cmd.add(db.toString());
        cmd.add(fsync);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(stderr.toFile());
        Process p = pb.start();
        long pid = p.pid();
        StdoutReader reader = new StdoutReader(p);
        Thread rt = new Thread(reader, "crash-writer-stdout-" + pid);
        rt.setDaemon(true);
        rt.start();
        try {
            if (!reader.ready.await(60, TimeUnit.SECONDS) || reader.firstSecond < 0) {
                fail("writer did not become READY (alive " + p.isAlive() + "); stdout " + reader.tail() + "; stderr:\n" + tail(stderr));
            }
            Thread.sleep(delayMs);
            assertTrue(p.isAlive(), () -> "writer died before it was killed; stdout " + reader.tail() + "; stderr:\n" + tail(stderr));
            p.destroyForcibly();
            assertTrue(p.waitFor(20, TimeUnit.SECONDS), "killed writer did not exit");
            Optional<ProcessHandle> h = ProcessHandle.of(pid);
            assertFalse(h.isPresent() && h.get().isAlive(), "writer process " + pid + " is still alive");
            if (System.getProperty("os.name", "").toLowerCase().contains("linux")) {
                assertEquals(128 + 9, p.exitValue(), "exit value of a process killed by SIGKILL");
            }
            rt.join(10_000);
            assertFalse(reader.lines().contains("DONE"), "writer ended on its own before the kill");
            return new KilledRun(reader.firstSecond, reader.lastFlushed, p.exitValue());
        } finally {
            if (p.isAlive()) {
                p.destroyForcibly();
                p.waitFor(20, TimeUnit.SECONDS);
            }
        }
    }

    private static String javaExecutable() {
        Path j = Path.of(System.getProperty("java.home"), "bin", "java");
        if (Files.isExecutable(j)) {
            return j.toString();
        }
        return ProcessHandle.current().info().command().orElse("java");
    }

    private static String tail(Path p) {
        try {
            if (!Files.exists(p)) {
                return "(none)";
            }
            List<String> all = Files.readAllLines(p, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - 40), all.size()));
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    /** Reads the writer's stdout: READY, FLUSHED lines. */
    private static final class StdoutReader implements Runnable {
        final Process p;
        final CountDownLatch ready = new CountDownLatch(1);
        volatile long firstSecond = -1;
        volatile long lastFlushed = -1;
        private final Deque<String> last = new ArrayDeque<>();

        StdoutReader(Process p) {
            this.p = p;
        }

        @Override
        public void run() {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    synchronized (last) {
                        last.addLast(line);
                        if (last.size() > 10) {
                            last.removeFirst();
                        }
                    }
                    if (line.startsWith("READY ")) {
                        firstSecond = Long.parseLong(line.substring(6).trim());
                        ready.countDown();
                    } else if (line.startsWith("FLUSHED ")) {
                        lastFlushed = Long.parseLong(line.substring(8).trim());
                    }
                }
            } catch (IOException | RuntimeException ignored) {
                // the process was killed
            } finally {
                ready.countDown();
            }
        }

        List<String> lines() {
            synchronized (last) {
                return List.copyOf(last);
            }
        }

        String tail() {
            return lines().toString();
        }
    }

    record RoundResult(long points, long newest, int unreportedHolesAfterFlushed, List<String> failures) {
    }

    /**
     * Reads every metric back: each value must be the written one, every second up to
     * {@code durableUpTo} must be there; a hole after it must be reported lost or was never written
     * (counted, not a failure: it is indistinguishable from points that were still in memory).
     */
    private static RoundResult check(StorageEngine e, long durableUpTo) throws IOException {
        List<String> failures = new ArrayList<>();
        List<RecoveryReport.LostRange> lost = e.recoveryReport().lostRanges();
        long total = 0;
        long newest = 0;
        int holesAfter = 0;
        int n = CrashWriter.CHARTS * CrashWriter.DIMS;
        for (int k = 0; k < n; k++) {
            String chart = "test.chart" + (k / CrashWriter.DIMS);
            String dim = "dim" + (k % CrashWriter.DIMS);
            UUID uuid = DimensionInfo.metricUuid(EngineTestSupport.HOST, chart, dim);
            int id = e.registry().lookup(uuid);
            if (id < 0) {
                if (durableUpTo >= CrashWriter.T0) {
                    failures.add("metric " + k + " (" + chart + "." + dim + ") is unknown after open");
                }
                continue;
            }
            final int key = k;
            long[] next = {CrashWriter.T0};
            long[] count = {0};
            int[] wrong = {0};
            List<long[]> holes = new ArrayList<>();
            e.queryTier0(id, CrashWriter.T0, QUERY_END, (t, sn) -> {
                count[0]++;
                int want = EngineTestSupport.sn(key, t);
                if (sn != want && wrong[0]++ < 3) {
                    failures.add("metric " + key + " second " + t + ": read " + Integer.toHexString(sn) + ", wrote "
                            + Integer.toHexString(want));
                }
                if (t > next[0]) {
                    holes.add(new long[]{next[0], t - 1});
                }
                next[0] = Math.max(next[0], t + 1);
            });
            if (wrong[0] > 3) {
                failures.add("metric " + k + ": " + wrong[0] + " wrong values in all");
            }
            total += count[0];
            newest = Math.max(newest, next[0] - 1);
            for (long[] h : holes) {
                if (h[0] <= durableUpTo) {
                    failures.add("metric " + k + " misses flushed seconds [" + h[0] + ", " + Math.min(h[1], durableUpTo)
                            + "]" + (covered(lost, uuid, h[0], Math.min(h[1], durableUpTo)) ? " (reported lost)" : " (not reported)"));
                }
                if (h[1] > durableUpTo && !covered(lost, uuid, Math.max(h[0], durableUpTo + 1), h[1])) {
                    holesAfter++;
                }
            }
            if (next[0] <= durableUpTo) {
                failures.add("metric " + k + " ends at " + (next[0] - 1) + ", before the last flushed second " + durableUpTo
                        + (covered(lost, uuid, next[0], durableUpTo) ? " (reported lost)" : " (not reported)"));
            }
        }
        return new RoundResult(total, newest, holesAfter, failures);
    }

    private static boolean covered(List<RecoveryReport.LostRange> lost, UUID metric, long from, long to) {
        // every second of [from, to] inside some lost range of this metric
        long[][] rs = lost.stream().filter(r -> r.metric().equals(metric) && r.tier() == 0)
                .map(r -> new long[]{r.firstTime(), r.lastTime()}).sorted((a, b) -> Long.compare(a[0], b[0]))
                .toArray(long[][]::new);
        long at = from;
        for (long[] r : rs) {
            if (r[0] > at) {
                break;
            }
            at = Math.max(at, r[1] + 1);
            if (at > to) {
                return true;
            }
        }
        return at > to;
    }
}
