package io.strata.node.runtime;

import io.strata.engine.StorageEngine;
import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.MetadataStore;
import io.strata.engine.page.StorageNumber;
import io.strata.node.config.NodeConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Under a disk that crawls until its parent has paused reading for 20 s, a parent loses nothing its
 * children still hold.
 *
 * <p>A parent in this JVM whose engine writes through a {@link CrawlingFileIo} receives 20 children
 * (full child nodes in this JVM, each with its own engine in a temporary directory, collecting
 * synthetic charts every second). The parent's main cache is bounded small, so that the pages
 * waiting for the crawling disk pass the bound within the stall: the parent keeps them
 * ({@code DirtyPagePolicy.KEEP}) and stops reading from its receivers; the children buffer, and
 * those whose send buffer (small for half of them) overflows reconnect and are filled by
 * replication once the parent reads again. After the disk recovers and the parent caught up,
 * every second of every dimension each child's own engine holds is in the parent's engine, with
 * the same stored value.
 *
 * <p>The stall ends on what it is there to cause, not after a fixed time: once the parent has kept
 * its receivers paused for {@code strata.slowdisk.pausedSeconds} (20) in all, or once reading has
 * paused and the disk has crawled {@code strata.slowdisk.stallSeconds} (60), or after {@code
 * strata.slowdisk.stallLimitSeconds} (180) if reading never paused (the test then fails: it proved
 * nothing). On a quiet machine reading pauses about 5 s into the stall, so the disk crawls about
 * 25 s; a loaded machine, whose children fill fewer pages, crawls longer, never longer than it did
 * with a fixed minute. A minute's pause proved nothing more: no child's send buffer overflowed in
 * it on a quiet machine either.
 *
 * <p>System properties: {@code strata.slowdisk.children}
 * (20), {@code strata.slowdisk.charts} and {@code strata.slowdisk.dimensions} per child (60, 20),
 * {@code strata.slowdisk.boundBytes} (the parent's main cache, 16 KiB), {@code
 * strata.slowdisk.crawlBytesPerSecond} (1 KiB/s), and {@code strata.slowdisk.backPressure}
 * ({@code true}; {@code false} drops the pages past the bound and never pauses, which this test
 * must catch).
 */
class SlowDiskParentKeepsEverySampleTest {

    private static final String API_KEY = "5c1d1a4e-5b0f-4d6e-9a51-3f0f5e0f7d21";

    private static long prop(String name, long def) {
        return Long.getLong("strata.slowdisk." + name, def);
    }

    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void aParentUnderAStalledDiskHoldsEverySampleItsChildrenHold(@TempDir Path tmp) throws Exception {
        long pausedWanted = TimeUnit.SECONDS.toNanos(prop("pausedSeconds", 20));
        long stallSeconds = prop("stallSeconds", 60);
        long stallLimitSeconds = prop("stallLimitSeconds", 180);
        int childCount = (int) prop("children", 20);
        int charts = (int) prop("charts", 60);
        int dimensions = (int) prop("dimensions", 20);
        long bound = prop("boundBytes", 16 << 10);
        long crawlRate = prop("crawlBytesPerSecond", 1 << 10);
        boolean backPressure = Boolean.parseBoolean(System.getProperty("strata.slowdisk.backPressure", "true"));

        CrawlingFileIo[] disk = new CrawlingFileIo[1];
        Path parentDir = tmp.resolve("parent");
        Files.createDirectories(parentDir);
        Files.writeString(parentDir.resolve("netdata.conf"), "[global]\n\thostname = slow-disk-parent\n"
                + "[db]\n\tmode = dbengine\n\tdbengine multihost disk space MB = 64\n"
                + "[web]\n\tbind to = 127.0.0.1:0\n");
        Files.writeString(parentDir.resolve("stream.conf"), "[stream]\n\tenabled = no\n\n[" + API_KEY + "]\n"
                + "\tenabled = yes\n\tallow from = *\n");
        NodeConfig parentConfig = NodeConfig.load(parentDir);
        List<StrataNode> children = new ArrayList<>();
        long started = System.nanoTime();
        try (StrataNode parent = StrataNode.start(parentConfig, null, ec -> {
            disk[0] = new CrawlingFileIo(ec.io(), crawlRate);
            return ec.withIo(disk[0]).withCacheBytes(bound);
        })) {
            StorageEngine pe = parent.engine();
            if (!backPressure) {
                // what a parent did before it pushed back: shed the oldest pages past the bound
                pe.setDirtyPagePolicy(StorageEngine.DirtyPagePolicy.DROP_OLDEST);
                pe.setDiskBacklogListener((high, waiting, b) -> { });
            }
            int port = parent.listening().get(0).getPort();
            try {
                for (int i = 0; i < childCount; i++) {
                    children.add(NodeRoles.start(childConfig(tmp, i, port, charts, dimensions), null));
                }
                waitUntil("every child streams into the parent", 60, () -> parent.receivers().connected() == childCount,
                        () -> parent.receivers().connected() + " of " + childCount + " connected");
                long windowStart = CollectionClock.nowMicros() / 1_000_000L - 5;

                // the disk crawls; the pages waiting for it pass the bound; the parent stops reading
                disk[0].stall();
                long stallStart = System.nanoTime();
                // a machine so loaded that the children fill fewer pages needs longer to pass the
                // bound: the stall lasts until reading has been paused long enough, whenever it began
                long stallEnd = stallStart + TimeUnit.SECONDS.toNanos(stallSeconds);
                long stallLimit = stallStart + TimeUnit.SECONDS.toNanos(stallLimitSeconds);
                long maxDirty = 0;
                long pausedNanos = 0;
                long pausedSince = 0;
                long firstPauseAt = -1;
                while (System.nanoTime() < stallLimit
                        && pausedNanos + (pausedSince == 0 ? 0 : System.nanoTime() - pausedSince) < pausedWanted
                        && (firstPauseAt < 0 || System.nanoTime() < stallEnd)) {
                    maxDirty = Math.max(maxDirty, pe.dirtyBytes());
                    boolean paused = parent.receivers().readingPaused();
                    long now = System.nanoTime();
                    if (paused && pausedSince == 0) {
                        pausedSince = now;
                        if (firstPauseAt < 0) {
                            firstPauseAt = now - stallStart;
                        }
                    } else if (!paused && pausedSince != 0) {
                        pausedNanos += now - pausedSince;
                        pausedSince = 0;
                    }
                    Thread.sleep(100);
                }
                long stalledSeconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - stallStart);
                long connectionsBeforeRecovery = parent.stats().connectionsAccepted.sum();
                long replayedBeforeRecovery = parent.stats().samplesReplayed.sum();
                disk[0].recover();
                long recovered = System.nanoTime();
                long recoveredAtSeconds = CollectionClock.nowMicros() / 1_000_000L;
                // the parent reads again once the backlog is under 3/4 of the bound
                long resumedAfter = -1;
                long catchUpDeadline = recovered + TimeUnit.SECONDS.toNanos(120);
                while (System.nanoTime() < catchUpDeadline) {
                    maxDirty = Math.max(maxDirty, pe.dirtyBytes());
                    if (!parent.receivers().readingPaused()) {
                        if (pausedSince != 0) {
                            pausedNanos += System.nanoTime() - pausedSince;
                            pausedSince = 0;
                        }
                        resumedAfter = System.nanoTime() - recovered;
                        break;
                    }
                    Thread.sleep(50);
                }
                // every second up to a little after the recovery, in every child's own engine
                long windowEnd = recoveredAtSeconds + 5;
                waitUntil("the children collected past the window", 30,
                        () -> CollectionClock.nowMicros() / 1_000_000L > windowEnd + 2, () -> "");
                String[] mismatch = {""};
                long[] checked = {0};
                long[] exact = {0};
                boolean caughtUp = false;
                long caughtUpAfter = -1;
                while (System.nanoTime() < catchUpDeadline) {
                    checked[0] = 0;
                    exact[0] = 0;
                    mismatch[0] = compareAll(parent, children, windowStart, windowEnd, checked, exact);
                    if (mismatch[0] == null) {
                        caughtUp = true;
                        caughtUpAfter = System.nanoTime() - recovered;
                        break;
                    }
                    Thread.sleep(1_000);
                }
                long connections = parent.stats().connectionsAccepted.sum();
                long replayed = parent.stats().samplesReplayed.sum();
                System.out.printf("[slow-disk] %d children x %d charts x %d dimensions; disk crawled %d s at %d B/s"
                        + " (%d calls slowed, %d bytes); bound %d bytes%n", childCount, charts, dimensions,
                        stalledSeconds, crawlRate, disk[0].slowedCalls.get(), disk[0].slowedBytes.get(), bound);
                System.out.printf("[slow-disk] max dirty bytes %d (%.1f x the bound); reading paused %.1f s in all,"
                        + " first %.1f s into the stall; resumed %.1f s after recovery; caught up %.1f s after"
                        + " recovery%n", maxDirty, maxDirty / (double) bound, pausedNanos / 1e9,
                        firstPauseAt / 1e9, resumedAfter / 1e9, caughtUpAfter / 1e9);
                System.out.printf("[slow-disk] %d samples checked in (%d, %d] (%d with the very same storage"
                        + " number); %d connections accepted (%d before recovery); %d samples replayed (%d before"
                        + " recovery); parent dropped %d pages%n", checked[0], windowStart, windowEnd, exact[0],
                        connections, connectionsBeforeRecovery, replayed, replayedBeforeRecovery, pe.pagesDropped());
                assertTrue(caughtUp, "the parent did not catch up within 120 s of the disk's recovery: "
                        + mismatch[0]);
                assertEquals(0, pe.pagesDropped(), "the parent dropped dirty pages");
                assertTrue(firstPauseAt >= 0, "the pages waiting for the disk never passed the bound ("
                        + maxDirty + " of " + bound + " bytes at most): the test proved nothing; raise the charts");
                assertTrue(maxDirty > bound, maxDirty + " <= " + bound);
                assertTrue(resumedAfter >= 0, "the parent never read again after the disk recovered");
                long perChild = (windowEnd - windowStart - 10) * charts * dimensions;
                assertTrue(checked[0] >= perChild * childCount, "only " + checked[0] + " samples checked, expected"
                        + " at least " + perChild * childCount);
                if (connections > childCount) {
                    // children that overflowed and reconnected: replication filled their gaps (checked above)
                    assertTrue(replayed > replayedBeforeRecovery, "children reconnected (" + connections
                            + " connections) but nothing was replayed after the recovery");
                }
            } finally {
                disk[0].recover();
                IOException closing = null;
                for (int i = children.size() - 1; i >= 0; i--) {
                    try {
                        children.get(i).close();
                    } catch (IOException | RuntimeException e) {
                        if (closing == null) {
                            closing = new IOException("closing the children", e);
                        } else {
                            closing.addSuppressed(e);
                        }
                    }
                }
                if (closing != null) {
                    throw closing;
                }
            }
        }
        System.out.printf("[slow-disk] test took %.1f s%n", (System.nanoTime() - started) / 1e9);
    }

    private static NodeConfig childConfig(Path tmp, int i, int parentPort, int charts, int dimensions)
            throws IOException, NodeConfig.ConfigException {
        Path dir = tmp.resolve("child-" + i);
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("netdata.conf"), "[global]\n\thostname = slow-disk-child-" + i + "\n"
                + "[db]\n\tmode = dbengine\n\tstorage tiers = 1\n\tdbengine multihost disk space MB = 16\n"
                + "[web]\n\tbind to = 127.0.0.1:0\n[plugins]\n\tproc = no\n"
                + "[strata]\n\tsynthetic charts = " + charts + "\n\tsynthetic dimensions per chart = " + dimensions
                + "\n");
        // half of the children have a small send buffer: it overflows while the parent does not
        // read, they reconnect, and replication fills what they sent meanwhile
        String buffer = i % 2 == 0 ? "\tbuffer size bytes = 98304\n" : "";
        Files.writeString(dir.resolve("stream.conf"), "[stream]\n\tenabled = yes\n\tdestination = 127.0.0.1:"
                + parentPort + "\n\tapi key = " + API_KEY + "\n\treconnect delay seconds = 1\n" + buffer);
        return NodeConfig.load(dir);
    }

    /**
     * Null when the parent holds every sample of {@code (from, until]} each child holds, with the
     * same value; otherwise what is missing first. Adds the samples compared to {@code checked}, and
     * those whose storage number is the very same to {@code exact}.
     */
    private static String compareAll(StrataNode parent, List<StrataNode> children, long from, long until,
                                     long[] checked, long[] exact) throws IOException {
        MetadataStore pm = parent.engine().metadata();
        for (StrataNode child : children) {
            UUID host = child.machineGuid();
            MetadataStore cm = child.engine().metadata();
            int hostId = cm.hostId(host);
            for (int chartId : cm.charts(hostId)) {
                ChartInfo chart = cm.chart(chartId);
                int parentChart = pm.chartId(host, chart.id());
                if (parentChart < 0) {
                    return child.config().hostname() + " " + chart.id() + ": not on the parent";
                }
                Map<String, Integer> parentMetrics = new HashMap<>();
                for (int m : pm.metrics(parentChart)) {
                    DimensionInfo d = pm.dimension(m);
                    if (d != null) {
                        parentMetrics.put(d.id(), m);
                    }
                }
                for (int m : cm.metrics(chartId)) {
                    String dim = cm.dimension(m).id();
                    Integer pmetric = parentMetrics.get(dim);
                    if (pmetric == null) {
                        return child.config().hostname() + " " + chart.id() + "." + dim + ": not on the parent";
                    }
                    Map<Long, Integer> got = new HashMap<>();
                    parent.engine().queryTier0(pmetric, from + 1, until, (t, sn) -> {
                        if (sn != StorageNumber.SN_EMPTY_SLOT) {
                            got.put(t, sn);
                        }
                    });
                    String[] wrong = {null};
                    long[] n = {0};
                    long[] missing = {0, Long.MAX_VALUE, Long.MIN_VALUE};
                    child.engine().queryTier0(m, from + 1, until, (t, sn) -> {
                        if (sn == StorageNumber.SN_EMPTY_SLOT) {
                            return;
                        }
                        if (wrong[0] != null) {
                            if (!got.containsKey(t)) {
                                missing[0]++;
                                missing[1] = Math.min(missing[1], t);
                                missing[2] = Math.max(missing[2], t);
                            }
                            return;
                        }
                        Integer p = got.get(t);
                        if (p != null && p == sn) {
                            exact[0]++;
                        }
                        if (p == null || !same(StorageNumber.unpack(sn), StorageNumber.unpack(p))) {
                            wrong[0] = child.config().hostname() + " " + chart.id() + "." + dim + " at " + t
                                    + ": the child holds " + StorageNumber.unpack(sn) + ", the parent "
                                    + (p == null ? "nothing" : String.valueOf(StorageNumber.unpack(p)));
                        }
                        n[0]++;
                    });
                    if (wrong[0] != null) {
                        return wrong[0] + (missing[0] == 0 ? "" : "; " + missing[0] + " more seconds of it missing"
                                + " between " + missing[1] + " and " + missing[2]) + "; the parent holds it from "
                                + got.keySet().stream().mapToLong(Long::longValue).min().orElse(-1) + " to "
                                + got.keySet().stream().mapToLong(Long::longValue).max().orElse(-1);
                    }
                    checked[0] += n[0];
                }
            }
        }
        return null;
    }

    /**
     * The cluster tests' equality: a value a parent received by replication was printed as text by
     * the child ({@code RSET}) and packed again, so its last digit may round the other way.
     */
    private static boolean same(double child, double parent) {
        return Math.abs(child - parent) <= Math.max(1e-9, Math.abs(child) * 1e-6);
    }

    @FunctionalInterface
    private interface Condition {
        boolean holds() throws Exception;
    }

    @FunctionalInterface
    private interface Detail {
        String text() throws Exception;
    }

    private static void waitUntil(String what, int seconds, Condition c, Detail detail) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            if (c.holds()) {
                return;
            }
            Thread.sleep(200);
        }
        fail("not within " + seconds + " s: " + what + " (" + detail.text() + ")");
    }
}
