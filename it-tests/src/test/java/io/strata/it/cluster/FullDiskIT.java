package io.strata.it.cluster;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A parent whose data directory fills up while it runs. The parent's {@code [directories] cache}
 * is a small tmpfs mounted in a mount namespace of its own ({@code unshare -m}: nothing of it is
 * seen outside, and it goes with the process). Children stream into it (a synthetic child, and
 * {@code strata load}, whose accelerated time fills pages fast enough to be written during the
 * test); the test fills the tmpfs through {@code /proc/PID/root}; the parent logs "disk full"
 * naming the directory, goes on answering its API and receiving; the test frees the space and the
 * parent's retry writes what it kept in memory.
 */
class FullDiskIT {

    private static final String MOUNT_THEN_EXEC = "mount -t tmpfs -o size=16m strata-full-disk-it \"$0\" && exec \"$@\"";

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void aParentWhoseDiskFillsKeepsReceivingSaysSoAndWritesWhenSpaceReturns() throws Exception {
        Path tmp = ClusterLayout.runDirectory("FullDiskIT");
        String why = unavailable(tmp);
        if (why != null) {
            System.out.println("[FullDiskIT] SKIPPED: " + why);
        }
        Assumptions.assumeTrue(why == null, why);

        int pp = ClusterLayout.freePort();
        NodeProcess parent = ClusterLayout.parent(tmp, "parent", "127.0.0.1", pp, List.of(), 0);
        Path cache = parent.dir.resolve("cache");
        Files.createDirectories(cache);
        parent.wrappedIn(List.of("unshare", "-m", "--propagation", "private", "sh", "-c", MOUNT_THEN_EXEC,
                cache.toString()));
        NodeProcess child = ClusterLayout.child(tmp, "child-1", ClusterLayout.freePort(), List.of(pp), 4, 4);
        try (parent; child) {
            parent.start();
            child.start();
            ClusterChecks.waitForHosts(parent, List.of("child-1"), Duration.ofSeconds(60));
            // the parent's view of its cache directory: the tmpfs
            Path seen = Path.of("/proc/" + parent.pid() + "/root").resolve(cache.toString().substring(1));
            assertFalse(Files.exists(cache.resolve("dbengine")), "the tmpfs is visible outside the parent's namespace");
            assertTrue(Files.isDirectory(seen.resolve("dbengine")), "no dbengine in the parent's " + seen);

            // pages on disk before the disk fills: accelerated children fill them quickly
            load(pp, 4, 1);
            long before = waitForBytes(seen.resolve("dbengine"), 1, Duration.ofSeconds(30));
            System.out.println("[FullDiskIT] " + before + " bytes of datafiles on the tmpfs before it fills");

            int logFrom = parent.log().length();
            Path filler = seen.resolve("filler");
            long filled = fill(filler);
            System.out.println("[FullDiskIT] filled the tmpfs with " + filled + " bytes");
            // Other children (another seed: other machine GUIDs), so that their pages are new: the
            // first load's children ran 8 000 accelerated seconds ahead of the clock, and the same
            // children again would only send seconds the parent refuses as past; the test then
            // depended on the first load's last pages being written only after the fill.
            load(pp, 4, 2);
            // The flusher's ERROR names a tier's directory, or dbengine itself when the metadata it
            // writes before the extents is what failed; the housekeeping's metadata sync may say
            // "disk full" first, as a WARN.
            int at = parent.waitForLog("Flusher - disk full: cannot write to " + cache.resolve("dbengine"), logFrom,
                    Duration.ofSeconds(60));
            assertTrue(at >= 0, "no flusher's 'disk full' naming " + cache.resolve("dbengine")
                    + " in the log:\n" + parent.tail(40));
            String line = lineAt(parent.log(), at);
            System.out.println("[FullDiskIT] " + line);
            assertTrue(line.contains(" ERROR "), line);

            // still answering and receiving: the child's newest second keeps moving, from memory
            assertTrue(ClusterApi.get(parent, "/api/v1/info").has("mirrored_hosts"));
            long newest = newestSecond(parent, "child-1");
            Thread.sleep(4_000);
            long later = newestSecond(parent, "child-1");
            assertTrue(later >= newest + 3, "the parent stopped receiving while its disk is full: " + newest + " then "
                    + later);
            assertTrue(parent.alive());
            long whileFull = bytes(seen.resolve("dbengine"));

            Files.delete(filler);
            int ok = parent.waitForLog("writes succeed again after", at, Duration.ofSeconds(60));
            assertTrue(ok >= 0, "no retry succeeded after the space came back:\n" + parent.tail(40));
            System.out.println("[FullDiskIT] " + lineAt(parent.log(), ok));
            long after = waitForBytes(seen.resolve("dbengine"), whileFull + 1, Duration.ofSeconds(30));
            System.out.println("[FullDiskIT] datafiles: " + before + " bytes before, " + whileFull
                    + " while full, " + after + " after the space came back");
            String sinceFull = parent.log().substring(at);
            long errors = sinceFull.lines().filter(l -> l.contains(" ERROR ") && l.contains("disk full")).count();
            assertTrue(errors <= 1 + 60 / 10, "the full disk is logged at most every 10 s: " + errors + " lines");

            parent.stop();
            assertFalse(parent.log().contains("could not be written"), "pages lost at the stop:\n" + parent.tail(30));
        }
    }

    /** Why this machine cannot run the test, or null. */
    private static String unavailable(Path tmp) {
        if (!"root".equals(System.getProperty("user.name"))) {
            return "mounting a tmpfs needs root (running as " + System.getProperty("user.name") + ")";
        }
        Path probe = tmp.resolve("probe");
        try {
            Files.createDirectories(probe);
            NetnsLab.run("unshare", "-m", "--propagation", "private", "sh", "-c", MOUNT_THEN_EXEC, probe.toString(),
                    "true");
            return null;
        } catch (IOException e) {
            return "cannot mount a tmpfs in a mount namespace of its own: " + e.getMessage();
        }
    }

    /**
     * {@code strata load}: 2 synthetic children of 100 metrics, each collecting 2000 (accelerated)
     * seconds a second: pages fill in a second, and a run of a few seconds stays well within the tmpfs.
     */
    private static void load(int port, int seconds, long seed) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (a.startsWith("--add-") || a.startsWith("--enable-native-access") || a.startsWith("-Dchronicle.")) {
                cmd.add(a);
            }
        }
        cmd.addAll(List.of("-Xmx128m", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                "io.strata.node.cli.StrataMain", "load", "--parent", "127.0.0.1:" + port, "--children", "2",
                "--metrics-per-child", "100", "--rate", "2000", "--seconds", String.valueOf(seconds),
                "--seed", String.valueOf(seed)));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "strata load did not end");
        assertEquals(0, p.exitValue(), "strata load: " + out);
    }

    /** Writes {@code file} until the file system refuses; returns the bytes written. */
    private static long fill(Path file) throws IOException {
        byte[] chunk = new byte[64 * 1024];
        long n = 0;
        try (OutputStream out = Files.newOutputStream(file)) {
            while (true) {
                out.write(chunk);
                n += chunk.length;
            }
        } catch (IOException e) {
            assertTrue(e.getMessage() != null && e.getMessage().contains("No space left"), e.toString());
            return n;
        }
    }

    private static long bytes(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).filter(f -> f.getFileName().toString().endsWith(".ndf"))
                    .mapToLong(f -> f.toFile().length()).sum();
        }
    }

    private static long waitForBytes(Path dir, long atLeast, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        long b = bytes(dir);
        while (b < atLeast && System.nanoTime() < deadline) {
            Thread.sleep(200);
            b = bytes(dir);
        }
        assertTrue(b >= atLeast, "datafiles in " + dir + " hold " + b + " bytes, not " + atLeast);
        return b;
    }

    private static long newestSecond(NodeProcess parent, String host) throws Exception {
        String chart = ClusterApi.charts(parent, host).get(0);
        var rows = ClusterApi.get(parent, "/host/" + host + "/api/v1/data?chart=" + chart
                + "&after=-30&points=30&group=average&format=json&options=seconds").get("data");
        long newest = -1;
        for (var row : rows) {
            if (row.size() > 1 && !row.get(1).isNull()) {
                newest = Math.max(newest, row.get(0).asLong());
            }
        }
        return newest;
    }

    private static String lineAt(String log, int at) {
        int start = log.lastIndexOf('\n', at) + 1;
        int end = log.indexOf('\n', at);
        return log.substring(start, end < 0 ? log.length() : end);
    }
}
