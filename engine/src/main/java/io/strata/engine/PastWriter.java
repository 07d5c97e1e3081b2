package io.strata.engine;

import io.strata.engine.page.DirtyPage;
import io.strata.engine.page.HotAggregateTable;
import io.strata.engine.page.PageCodecTier0;
import io.strata.engine.page.PageCodecTier1;
import io.strata.engine.page.StorageNumber;
import io.strata.engine.registry.MetricRegistry;

import java.io.IOException;
import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;

/**
 * Stores tier-0 points behind a metric's newest one (a hole filled later: a replication answer
 * from a peer or a child for seconds before the newest stored one) and rebuilds the windows of
 * the higher tiers that cover them.
 *
 * <p><b>What wins.</b> A past run is stored only where the metric holds no value: before its page
 * is built, the range is read as the readers see it, and every slot where they deliver a value
 * (count 1) is blanked to a gap in the new page. Readers merge overlapping pages point by point
 * and take, at one time, the point of the larger count ({@link TierReader}: tier 0, a value beats
 * a gap; equal counts, the page first by start time, then disk before memory). So a past page
 * fills the slots the metric held nothing at, or held a gap at, and can never replace a stored
 * value, also after a restart (the rule reads the points, not the order pages were written in).
 *
 * <p><b>Higher tiers.</b> A tier-{@code t} window (end {@code E}, a multiple of its step) that
 * covers a filled slot is recomputed from tier {@code t-1} as the readers now see it, and written
 * as a replacement page: a window that aggregated more points has the larger count and wins over
 * the point written before; a window whose count did not grow keeps its old point (equal counts:
 * the earlier page). Windows before the tier's open window are final (written, or skipped for
 * good when the live data jumped) and rebuilt at once; the open window, and those after it that
 * the late aggregation has not reached, are aggregated live from the hot pages, which lack the
 * run: they are queued and rebuilt once the tier has moved past them ({@link #drainPending}, called by
 * past stores at most once a second, by the past-writer thread while idle, and by {@link StorageEngine#flush}). Every past page
 * is recorded in the {@link PendingRebuildJournal} before the flusher has it, and its record stays
 * until its windows are rebuilt and on disk; at start, {@link #recover} rebuilds every recorded
 * page again, so a restart or a crash before a queued window was rebuilt no longer leaves it as it
 * was aggregated live.
 *
 * <p>Pages go to the flusher like every sealed page (dirty, then an extent, journal v1, journal
 * v2), so they survive a crash as other pages do. Primitive: one page array, one encoded copy and
 * one {@link DirtyPage} per page, never an object per point. One writer per metric at a time (the
 * thread that stores the metric's points).
 */
final class PastWriter {

    private final MetricRegistry registry;
    private final EngineConfig cfg;
    private final TierReader reader;
    private final Flusher flusher;
    /** The live tiers 1..N-1 (index 0 unused), for their open windows. */
    private final HotAggregateTable[] hotN;
    private final LongAdder pointsSealed;
    private final LongAdder pointsStored = new LongAdder();
    private final LongAdder pointsHeld = new LongAdder();
    private final LongAdder windowsRebuilt = new LongAdder();
    /** Windows to rebuild once the tier wrote them; an object per past run and tier, not per point. */
    private final ConcurrentLinkedQueue<Pending> pending = new ConcurrentLinkedQueue<>();

    /** The windows of {@code tier} covering {@code [from, to]} (seconds) of a metric collected every {@code updateEvery}. */
    private record Pending(int metric, int updateEvery, int tier, long from, long to,
                           PendingRebuildJournal.Entry entry) {
    }

    /** The past pages whose windows may still need a rebuild, on disk; null with a single tier. */
    private final PendingRebuildJournal journal;

    /** Told of every page stored here, once readers see it. */
    private final CopyOnWriteArrayList<PastPageListener> listeners = new CopyOnWriteArrayList<>();

    private static final long DRAIN_EVERY_NANOS = 1_000_000_000L;
    private volatile long lastDrainNanos;

    private static final class Scratch {
        final int[] page = new int[DiskFormat.pagePoints(0)];
        final byte[] bytes = new byte[PageCodecTier0.maxEncodedLength(DiskFormat.pagePoints(0))];
    }

    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    PastWriter(MetricRegistry registry, EngineConfig cfg, TierReader reader, Flusher flusher, HotAggregateTable[] hotN,
               LongAdder pointsSealed, PendingRebuildJournal journal) {
        this.journal = journal;
        this.hotN = hotN;
        this.registry = registry;
        this.cfg = cfg;
        this.reader = reader;
        this.flusher = flusher;
        this.pointsSealed = pointsSealed;
    }

    /** See {@link StorageEngine#storePast}. */
    int store(int metric, long firstTime, int updateEvery, int[] sns, int from, int count) throws IOException {
        check(metric, firstTime, updateEvery, sns, from, count);
        long now = cfg.nanoClock().getAsLong();
        if (now - lastDrainNanos >= DRAIN_EVERY_NANOS) {
            // not on every call: a replay of many metrics queues a window each, and draining the
            // whole queue per run would cost the square of their number
            lastDrainNanos = now;
            drainPending();
        }
        long last0 = registry.lastTime(metric, 0);
        if (last0 == MetricRegistry.NO_TIME || count == 0) {
            return 0;
        }
        int stored = 0;
        int pagePoints = DiskFormat.pagePoints(0);
        Scratch sc = SCRATCH.get();
        for (int off = 0; off < count; off += pagePoints) {
            long t0 = firstTime + (long) off * updateEvery;
            if (t0 > last0) {
                break; // not behind the newest point: for the normal store
            }
            int len = (int) Math.min(Math.min(pagePoints, count - off), (last0 - t0) / updateEvery + 1);
            stored += storeRun(metric, t0, updateEvery, sns, from + off, len, sc);
        }
        return stored;
    }

    void addListener(PastPageListener l) {
        listeners.add(l);
    }

    void removeListener(PastPageListener l) {
        listeners.remove(l);
    }

    /** The metric's newest tier-0 second, {@link MetricRegistry#NO_TIME} when it has none. */
    long newest(int metric) {
        return registry.lastTime(metric, 0);
    }

    /** @throws IllegalArgumentException for a run that no page can hold */
    static void check(int metric, long firstTime, int updateEvery, int[] sns, int from, int count) {
        if (updateEvery <= 0 || firstTime <= 0 || firstTime > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("metric " + metric + ": update_every " + updateEvery + " and time "
                    + firstTime + " must be positive, the time below 2^32");
        }
        if (count < 0 || from < 0 || from > sns.length - count) {
            throw new IllegalArgumentException("a run of " + count + " points from " + from + " of " + sns.length);
        }
    }

    private int storeRun(int metric, long t0, int ue, int[] sns, int from, int len, Scratch sc) throws IOException {
        int[] page = sc.page;
        System.arraycopy(sns, from, page, 0, len);
        long tLast = t0 + (long) (len - 1) * ue;
        // What the metric holds wins: blank every slot where the readers deliver a value.
        int[] held = {0};
        reader.read(0, metric, t0, tLast, t0 - 1, (TierReader.StorageNumberSink) (time, step, sn) -> {
            long d = time - t0;
            if (sn != StorageNumber.SN_EMPTY_SLOT && d % ue == 0) {
                int i = (int) (d / ue);
                if (page[i] != StorageNumber.SN_EMPTY_SLOT) {
                    page[i] = StorageNumber.SN_EMPTY_SLOT;
                    held[0]++;
                }
            }
        });
        pointsHeld.add(held[0]);
        int a = 0;
        while (a < len && page[a] == StorageNumber.SN_EMPTY_SLOT) {
            a++;
        }
        if (a == len) {
            return 0;
        }
        int b = len - 1;
        while (page[b] == StorageNumber.SN_EMPTY_SLOT) {
            b--;
        }
        int n = b - a + 1;
        int values = 0;
        for (int i = a; i <= b; i++) {
            if (page[i] != StorageNumber.SN_EMPTY_SLOT) {
                values++;
            }
        }
        System.arraycopy(page, a, page, 0, n);
        long start = t0 + (long) a * ue;
        long end = start + (long) (n - 1) * ue;
        int bytes = PageCodecTier0.encode(page, n, sc.bytes, 0);
        // Recorded before the flusher has the page: no extent holding it is durable without the
        // record (the flusher forces the journal before each batch of extents).
        PendingRebuildJournal.Entry entry = journal == null ? null
                : journal.append(metric, registry.uuidMsb(metric), registry.uuidLsb(metric), ue, start, end,
                cfg.nanoClock().getAsLong());
        flusher.accept(new DirtyPage(metric, registry.chartId(metric), 0, registry.uuidMsb(metric),
                registry.uuidLsb(metric), start, ue, n, DiskFormat.PAGE_TYPE_TIER0, Arrays.copyOf(sc.bytes, bytes),
                cfg.nanoClock().getAsLong()));
        registry.extend(metric, 0, start, end);
        pointsSealed.add(n);
        pointsStored.add(values);
        for (PastPageListener l : listeners) {
            l.pastPageStored(metric, start, ue, page, n);
        }
        if (registry.tiers() > 1) {
            rebuildHolding(metric, ue, start, end, entry);
        }
        return values;
    }

    /**
     * Rebuilds tiers 1+ over a past page, then lets go of the hold its journal entry was created with
     * (until then no compaction drops it).
     */
    private void rebuildHolding(int metric, int ue, long from, long to, PendingRebuildJournal.Entry entry)
            throws IOException {
        rebuild(metric, ue, 1, from, to, entry);
        // not when the rebuild failed: the entry then stays in the journal until a restart
        if (entry != null) {
            entry.outstanding.decrementAndGet();
        }
    }

    /**
     * Rebuilds, at start, the tier windows of every past page the journal kept: those the tiers
     * have passed now, the others once they pass them (queued as after a fill).
     */
    void recover() throws IOException {
        if (journal == null) {
            return;
        }
        for (PendingRebuildJournal.Entry e : journal.entries()) {
            rebuildHolding(e.metric, e.updateEvery, e.from, e.to, e);
        }
    }

    /**
     * Whether a journal entry can go: every window over it rebuilt, and no page of tiers 1+ of its
     * metric over its range still waiting for the disk (a rebuilt window is durable).
     */
    private boolean settled(PendingRebuildJournal.Entry e) {
        if (!e.rebuilt()) {
            return false;
        }
        for (int t = 1; t < registry.tiers(); t++) {
            DirtyPage[] d = flusher.dirtyPages(t, e.metric);
            if (d == null) {
                continue;
            }
            long step = cfg.tierStep(t, e.updateEvery);
            long from = ceilTo(e.from, step);
            long to = ceilTo(e.to, step);
            for (DirtyPage p : d) {
                long last = p.startTime + (long) (p.entries - 1) * p.updateEvery;
                if (p.startTime <= to && last >= from) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * Drops the journal entries whose rebuilds are done and durable; with {@code always} (after a
     * flush, when every page is on disk) even when they are few.
     */
    void compactJournal(boolean always) throws IOException {
        if (journal != null) {
            journal.compact(this::settled, always);
        }
    }

    /**
     * Rebuilds the windows of {@code tier} (and, through them, of the tiers above) that cover
     * {@code [from, to]}: those already written now, the others queued.
     */
    private void rebuild(int metric, int ue, int tier, long from, long to, PendingRebuildJournal.Entry entry)
            throws IOException {
        if (tier >= registry.tiers()) {
            return;
        }
        long step = cfg.tierStep(tier, ue);
        if (step > HotAggregateTable.MAX_STEP) {
            return;
        }
        long e1 = ceilTo(from, step);
        long e2 = ceilTo(to, step);
        // Final windows are rebuilt now: those before the tier's open window (written, or skipped
        // for good by a jump of the live data); the open one and those after it will be
        // aggregated live from the hot pages, which lack the run, so they wait until written.
        long open = hotN[tier].openWindowEnd(metric);
        long finalTo;
        if (open != 0) {
            finalTo = (open - 1) / step * step;
        } else {
            long written = registry.lastTime(metric, tier);
            finalTo = written == MetricRegistry.NO_TIME ? 0 : written / step * step;
        }
        long doneTo = Math.min(e2, finalTo);
        if (e1 <= doneTo) {
            rebuildWindows(metric, ue, tier, step, e1, doneTo);
            rebuild(metric, ue, tier + 1, e1 - step + 1, doneTo, entry);
        }
        if (e2 > doneTo) {
            if (entry != null) {
                entry.outstanding.incrementAndGet();
            }
            pending.add(new Pending(metric, ue, tier, Math.max(e1, doneTo + step) - step + 1, to, entry));
        }
    }

    private static long ceilTo(long t, long step) {
        return (t + step - 1) / step * step;
    }

    /** Recomputes the windows of {@code tier} ending at {@code e1, e1 + step, ... e2} from the tier below. */
    private void rebuildWindows(int metric, int ue, int tier, long step, long e1, long e2) throws IOException {
        int perPage = DiskFormat.pagePoints(tier);
        for (long first = e1; first <= e2; first += perPage * step) {
            int nw = (int) Math.min(perPage, (e2 - first) / step + 1);
            double[] sum = new double[nw];
            float[] min = new float[nw];
            float[] max = new float[nw];
            long[] count = new long[nw];
            long[] anomalies = new long[nw];
            long base = Math.floorDiv(first - 1, step);
            reader.read(tier - 1, metric, first - step + 1, first + (nw - 1) * step, first - step,
                    (time, srcStep, s, mn, mx, c, an) -> {
                        if (c == 0) {
                            return;
                        }
                        long w = Math.floorDiv(time - 1, step) - base;
                        if (w < 0 || w >= nw) {
                            return;
                        }
                        int i = (int) w;
                        if (count[i] == 0) {
                            sum[i] = s;
                            min[i] = (float) mn;
                            max[i] = (float) mx;
                        } else {
                            sum[i] += s;
                            min[i] = Math.min(min[i], (float) mn);
                            max[i] = Math.max(max[i], (float) mx);
                        }
                        count[i] += c;
                        anomalies[i] += an;
                    });
            int[] pts = new int[4 * nw];
            for (int i = 0; i < nw; i++) {
                if (count[i] == 0) {
                    continue; // a gap point: all zeros
                }
                double s = sum[i];
                long c = count[i];
                long an = anomalies[i];
                if (c > HotAggregateTable.MAX_STORED_COUNT) {
                    // as HotAggregateTable.closeWindow: the count capped, sum and anomalies scaled alike
                    double scale = (double) HotAggregateTable.MAX_STORED_COUNT / c;
                    s *= scale;
                    an = Math.min(HotAggregateTable.MAX_STORED_COUNT, Math.round(an * scale));
                    c = HotAggregateTable.MAX_STORED_COUNT;
                }
                pts[4 * i] = Float.floatToRawIntBits((float) s);
                pts[4 * i + 1] = Float.floatToRawIntBits(min[i]);
                pts[4 * i + 2] = Float.floatToRawIntBits(max[i]);
                pts[4 * i + 3] = (int) c | ((int) Math.min(an, HotAggregateTable.MAX_STORED_COUNT) << 16);
            }
            byte[] buf = new byte[PageCodecTier1.maxEncodedLength(nw)];
            int len = PageCodecTier1.encode(pts, nw, buf, 0);
            flusher.accept(new DirtyPage(metric, registry.chartId(metric), tier, registry.uuidMsb(metric),
                    registry.uuidLsb(metric), first, (int) step, nw, DiskFormat.PAGE_TYPE_TIER1,
                    Arrays.copyOf(buf, len), cfg.nanoClock().getAsLong()));
            registry.extend(metric, tier, first, first + (nw - 1) * step);
            windowsRebuilt.add(nw);
        }
    }

    /**
     * Rebuilds the queued windows that their tier has written since; the others stay queued. Any
     * thread may call it (readers and the flusher are thread-safe; a window rebuilt twice gives the
     * same point twice, of which readers deliver one).
     */
    void drainPending() throws IOException {
        for (int n = pending.size(); n > 0; n--) {
            Pending p = pending.poll();
            if (p == null) {
                break;
            }
            rebuild(p.metric(), p.updateEvery(), p.tier(), p.from(), p.to(), p.entry());
            // not when the rebuild failed: the entry then stays in the journal until a restart
            if (p.entry() != null) {
                p.entry().outstanding.decrementAndGet();
            }
        }
        compactJournal(false);
    }

    /** Windows waiting until their tier has written them. */
    int pendingRebuilds() {
        return pending.size();
    }

    long pointsStored() {
        return pointsStored.sum();
    }

    long pointsHeld() {
        return pointsHeld.sum();
    }

    long windowsRebuilt() {
        return windowsRebuilt.sum();
    }
}
