package io.strata.exporting;

import io.strata.engine.PastPageListener;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.HostInfo;
import io.strata.engine.meta.MetadataStore;
import io.strata.engine.page.StorageNumber;
import io.strata.engine.registry.MetricRegistry;
import io.strata.exporting.config.DataSource;
import io.strata.exporting.config.TargetConfig;
import io.strata.exporting.position.FillJournal;
import io.strata.exporting.position.PositionStore;
import io.strata.exporting.remotewrite.LabelSet;
import io.strata.exporting.remotewrite.NetdataNames;
import io.strata.exporting.remotewrite.RemoteWriteClient;
import io.strata.exporting.remotewrite.RetryPolicy;
import io.strata.exporting.remotewrite.WriteRequestEncoder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.LongSupplier;
import java.util.Locale;
import io.strata.engine.thread.StrataThreads;

/**
 * Exports to one target, on a thread of its own: per host this node exports ({@link HostOwnership}),
 * reads the engine's tier 0 from the host's position (the last second the target acknowledged,
 * {@link PositionStore}) up to the host's frontier (the newest second every live metric of the host has
 * reached), folds it into samples of {@code update every} seconds, sends them in requests of at most
 * {@code max samples per request}, retries what may be retried, and moves the position only after the
 * target acknowledged. So a target outage, a node restart or a kill -9 resumes where the target stopped:
 * no gap, and no duplicate beyond the one request that may have been acknowledged just before a kill.
 *
 * <p>Catching up after an outage is bounded by {@code max samples per second}; hosts take turns, one
 * request each, so that one host's backlog does not hold the others' live data back.
 */
final class TargetExporter implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(TargetExporter.class);

    /** A metric this far behind its host's newest one is no longer collected: it does not hold the frontier. */
    static final long STALE_SECONDS = 120;
    /** The host list and each host's series are read again this often. */
    static final long REFRESH_MILLIS = 5_000;
    /** After a host becomes ours, its stream settles (replication requests start) before export resumes. */
    static final long SETTLE_MILLIS = 3_000;
    /**
     * Slots of past pages waiting to be sent at most (16 MiB of copies, a target outage long); pages
     * beyond are counted and logged, not queued.
     */
    static final int MAX_QUEUED_FILL_SLOTS = 4 << 20;
    /** Rate of failure warnings while a target keeps failing. */
    static final long WARN_EVERY_MILLIS = 10_000;

    private final TargetConfig cfg;
    private final StorageEngine engine;
    private final UUID localHost;
    private final HostOwnership ownership;
    private final PositionStore positions;
    private final RemoteWriteClient client;
    private final RetryPolicy retry;
    private final ExportMeters meters;
    private final LongSupplier clockMillis;
    private final WriteRequestEncoder encoder = new WriteRequestEncoder();
    private final Map<UUID, HostState> hosts = new LinkedHashMap<>();
    /**
     * Pages stored behind metrics' newest points, waiting for the exporter's thread (bounded in slots),
     * kept in {@code <target>.fills} beside the positions so that a restart still sends them.
     */
    private final FillJournal fills;
    private final AtomicInteger queuedFills = new AtomicInteger();
    private final AtomicLong droppedFills = new AtomicLong();
    private final PastPageListener pastListener = this::pastPageStored;
    private final long tickMillis;
    private final long settleMillis;
    private final Thread thread;
    private volatile boolean closed;
    private long hostsRefreshedAt = Long.MIN_VALUE / 2;
    private long nextSendAllowedNanos;

    // failure reporting
    private long failingSinceMillis;
    private long failedAttempts;
    private long lastWarnMillis;
    private long lastErrorLogMillis = Long.MIN_VALUE / 2;

    // per-batch scratch, grown as needed
    private long[] times = new long[0];
    private double[] values = new double[0];
    private double[] sums = new double[0];
    private int[] counts = new int[0];

    TargetExporter(TargetConfig cfg, StorageEngine engine, UUID localHost, HostOwnership ownership,
                   PositionStore positions, RemoteWriteClient client, RetryPolicy retry, ExportMeters meters,
                   LongSupplier clockMillis, long settleMillis) {
        this.cfg = cfg;
        this.settleMillis = settleMillis;
        this.engine = engine;
        this.localHost = localHost;
        this.ownership = ownership;
        this.positions = positions;
        this.client = client;
        this.retry = retry;
        this.meters = meters;
        this.clockMillis = clockMillis;
        this.tickMillis = Math.min(1000, cfg.updateEvery() * 500L);
        this.thread = StrataThreads.newThread(this::run, "strata-export-" + cfg.name());
        this.thread.setDaemon(true);
        Path dir = positions.file().getParent();
        FillJournal j;
        try {
            j = FillJournal.open(dir, cfg.name());
        } catch (IOException e) {
            LOG.warn("exporting to {}: the fill journal in {} cannot be opened ({}); holes filled behind the position"
                    + " are queued in memory only, and lost at a restart", cfg.section(), dir, e.toString());
            j = FillJournal.inMemory(dir, cfg.name());
        }
        this.fills = j;
        int recovered = (int) j.queuedSlots();
        if (recovered > 0 || j.damaged() > 0) {
            LOG.info("exporting to {}: {} slots of holes filled before the restart to send ({} damaged records"
                    + " skipped)", cfg.section(), recovered, j.damaged());
        }
        queuedFills.addAndGet(recovered);
        engine.addPastPageListener(pastListener);
    }

    void start() {
        thread.start();
    }

    TargetConfig config() {
        return cfg;
    }

    private void run() {
        LOG.info("exporting to {} ({}): {} every {} s, positions in {}", cfg.section(),
                client.destination(), cfg.dataSource().name().toLowerCase(Locale.ROOT), cfg.updateEvery(),
                positions.file());
        while (!closed) {
            try {
                boolean more = cycle();
                if (!more) {
                    Thread.sleep(tickMillis);
                }
            } catch (InterruptedException e) {
                break;
            } catch (IOException | RuntimeException e) {
                if (closed) {
                    break;
                }
                // a position that cannot be written (a full disk): once, then every 10 s while it lasts
                long now = clockMillis.getAsLong();
                if (now - lastErrorLogMillis >= WARN_EVERY_MILLIS) {
                    lastErrorLogMillis = now;
                    LOG.warn("exporting to {}: {} (retrying each second)", cfg.section(), e.toString());
                }
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException ie) {
                    break;
                }
            }
        }
    }

    /**
     * One turn: every host sends at most one request. Returns true when some host has more to send now.
     * Package-private so that tests drive it without the thread.
     */
    boolean cycle() throws IOException, InterruptedException {
        long now = clockMillis.getAsLong();
        if (now - hostsRefreshedAt >= REFRESH_MILLIS || now < hostsRefreshedAt) {
            refreshHosts(now);
            hostsRefreshedAt = now;
        }
        boolean more = sendFills();
        long oldest = Long.MAX_VALUE;
        long pending = 0;
        int exported = 0;
        for (HostState h : hosts.values()) {
            if (closed) {
                return false;
            }
            more |= step(h, now);
            if (h.owned && h.position >= 0) {
                exported++;
                oldest = Math.min(oldest, h.position);
                pending += Math.max(0, h.end - h.position) / cfg.updateEvery() * h.series.size();
            }
        }
        meters.hosts.set(exported);
        meters.pendingSamples.set(pending);
        meters.positionSeconds.set(oldest == Long.MAX_VALUE ? 0 : oldest);
        meters.lagSeconds.set(oldest == Long.MAX_VALUE ? 0 : Math.max(0, now / 1000 - oldest));
        return more;
    }

    private void refreshHosts(long now) {
        MetadataStore md = engine.metadata();
        for (HostInfo info : md.hosts()) {
            UUID guid = info.machineGuid();
            boolean local = guid.equals(localHost);
            String matchName = local ? "localhost" : info.hostname();
            if (!cfg.hosts().matches(matchName) && !(local && cfg.hosts().matches(info.hostname()))) {
                hosts.remove(guid);
                continue;
            }
            HostState h = hosts.computeIfAbsent(guid, g -> new HostState(g, local));
            int hostId = md.hostId(guid);
            long signature = signature(md, hostId, info);
            if (signature != h.signature || h.series.isEmpty()) {
                // labels are built (and serialized) only when the host's charts, dimensions or labels changed
                h.series = series(md, hostId, info, local);
                h.signature = signature;
            }
        }
    }

    /** Changes when a chart, a dimension or a label of the host does. */
    private static long signature(MetadataStore md, int hostId, HostInfo host) {
        if (hostId < 0) {
            return 0;
        }
        long sig = host.hashCode();
        for (int chartId : md.charts(hostId)) {
            ChartInfo c = md.chart(chartId);
            sig = sig * 31 + (c == null ? 0 : c.hashCode());
            for (int metric : md.metrics(chartId)) {
                DimensionInfo d = md.dimension(metric);
                sig = sig * 31 + metric * 7L + (d == null ? 0 : d.hashCode());
            }
        }
        return sig;
    }

    /** The exported series of a host: one per dimension of each chart that matches, labels built once. */
    private List<Series> series(MetadataStore md, int hostId, HostInfo host, boolean local) {
        List<Series> out = new ArrayList<>();
        if (hostId < 0) {
            return out;
        }
        String instance = NetdataNames.labelValue(local ? cfg.hostname() : host.hostname());
        Map<String, String> hostLabels = selectedLabels(host.labels());
        for (int chartId : md.charts(hostId)) {
            ChartInfo c = md.chart(chartId);
            if (c == null || !(cfg.charts().matches(c.id()) || cfg.charts().matches(c.name()))) {
                continue;
            }
            String context = c.context().isEmpty() ? c.id() : c.context();
            String name = NetdataNames.metricName(cfg.prefix(), context, c.units(), cfg.dataSource());
            String chart = NetdataNames.labelValue(cfg.sendNames() ? c.name() : c.id());
            String family = NetdataNames.labelValue(c.family());
            Map<String, String> chartLabels = selectedLabels(c.labels());
            for (int metric : md.metrics(chartId)) {
                DimensionInfo d = md.dimension(metric);
                if (d == null) {
                    continue;
                }
                LabelSet.Builder b = new LabelSet.Builder().add("__name__", name).add("chart", chart)
                        .add("family", family)
                        .add("dimension", NetdataNames.labelValue(cfg.sendNames() ? d.name() : d.id()))
                        .add("instance", instance);
                b.addAll(hostLabels).addAll(chartLabels);
                out.add(new Series(metric, b.build()));
            }
        }
        return out;
    }

    /** Netdata's label selection: configured labels do not start with {@code _}, automatic ones do. */
    private Map<String, String> selectedLabels(Map<String, String> labels) {
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : labels.entrySet()) {
            boolean automatic = e.getKey().startsWith("_");
            if (automatic ? cfg.sendAutomaticLabels() : cfg.sendConfiguredLabels()) {
                out.put(e.getKey(), e.getValue());
            }
        }
        return out;
    }

    /** One host's turn: ownership changes, then at most one request. True when it has more to send now. */
    private boolean step(HostState h, long now) throws IOException, InterruptedException {
        if (h.series.isEmpty()) {
            return false;
        }
        int ue = cfg.updateEvery();
        boolean owns = ownership.exports(h.guid);
        long frontier = frontier(h);
        if (owns && !h.owned) {
            takeOver(h, frontier, now);
        } else if (!owns && h.owned && h.releaseAt < 0) {
            // the host streams to another parent now (or not at all): send what came directly, then let go
            h.releaseAt = frontier < 0 ? h.position : Math.max(h.position, align(frontier));
            LOG.info("exporting to {}: host '{}' is no longer received directly; sending up to {} and releasing it",
                    cfg.section(), h.name(), h.releaseAt);
        } else if (owns && h.releaseAt >= 0) {
            h.releaseAt = -1;
        }
        if (!h.owned || now < h.settledAt || frontier < 0) {
            return false;
        }
        if (ownership.filling(h.guid)) {
            return false;
        }
        long end = align(frontier);
        if (h.releaseAt >= 0) {
            end = Math.min(end, h.releaseAt);
        }
        h.end = end;
        if (h.position >= end) {
            if (h.releaseAt >= 0) {
                positions.release(h.guid, h.position);
                h.owned = false;
                h.releaseAt = -1;
                LOG.info("exporting to {}: host '{}' released at {}", cfg.section(), h.name(), h.position);
            }
            return false;
        }
        skipRotatedOut(h);
        if (h.position >= end) {
            return false;
        }
        int windows = (int) Math.max(1, Math.min((end - h.position) / ue,
                cfg.maxSamplesPerRequest() / Math.max(1, h.series.size())));
        long batchEnd = h.position + (long) windows * ue;
        send(h, h.position, batchEnd, windows);
        return batchEnd < end;
    }

    private void takeOver(HostState h, long frontier, long now) throws IOException {
        h.owned = true;
        h.releaseAt = -1;
        h.settledAt = now + (h.local ? 0 : settleMillis);
        long persisted = positions.position(h.guid);
        if (!positions.released(h.guid)) {
            // this node exported the host last: resume exactly there (a restart, a kill -9, a reconnection)
            h.position = persisted;
            h.resumed = true;
            LOG.info("exporting to {}: host '{}' resumes after {}", cfg.section(), h.name(), persisted);
            return;
        }
        if (frontier < 0) {
            h.owned = false;
            return;
        }
        // taken over from another parent, or new: from what this node holds now, with an overlap that covers
        // what the previous exporter may not have had acknowledged yet (docs/exporting.md)
        long overlap = 3L * cfg.updateEvery() + 10;
        long start = align(Math.max(0, frontier - overlap));
        h.position = Math.max(persisted, start);
        h.resumed = false;
        positions.commit(h.guid, h.position);
        LOG.info("exporting to {}: host '{}' taken over at {}{}", cfg.section(), h.name(), h.position,
                persisted >= 0 ? " (released before at " + persisted + ")" : "");
    }

    /**
     * The host's frontier: the newest second every metric still being collected has reached (a metric
     * {@link #STALE_SECONDS} behind the newest has stopped and does not hold it); -1 when nothing is stored.
     */
    long frontier(HostState h) {
        MetricRegistry reg = engine.registry();
        long newest = MetricRegistry.NO_TIME;
        for (Series s : h.series) {
            newest = Math.max(newest, reg.lastTime(s.metric, 0));
        }
        if (newest == MetricRegistry.NO_TIME) {
            return -1;
        }
        long min = newest;
        for (Series s : h.series) {
            long last = reg.lastTime(s.metric, 0);
            if (last != MetricRegistry.NO_TIME && last >= newest - STALE_SECONDS) {
                min = Math.min(min, last);
            }
        }
        return min;
    }

    /** Moves past seconds that rotated out of tier 0 before they were sent, counting and logging them. */
    private void skipRotatedOut(HostState h) throws IOException {
        MetricRegistry reg = engine.registry();
        long first = Long.MAX_VALUE;
        for (Series s : h.series) {
            long f = reg.firstTime(s.metric, 0);
            if (f != MetricRegistry.NO_TIME) {
                first = Math.min(first, f);
            }
        }
        if (first == Long.MAX_VALUE || first <= h.position + 1) {
            return;
        }
        long to = align(first - 1);
        if (to <= h.position) {
            return;
        }
        if (h.resumed) {
            long lost = (to - h.position) / cfg.updateEvery() * h.series.size();
            meters.samplesRotatedOut.increment(lost);
            LOG.warn("exporting to {}: host '{}': seconds {}..{} rotated out of the engine before they were sent;"
                    + " about {} samples lost", cfg.section(), h.name(), h.position + 1, to, lost);
        }
        h.position = to;
        positions.commit(h.guid, to);
    }

    /** Reads (from, to] of every series of the host, sends it, and moves the position when acknowledged. */
    private void send(HostState h, long from, long to, int windows) throws IOException, InterruptedException {
        int ue = cfg.updateEvery();
        ensure(windows);
        encoder.reset();
        boolean average = cfg.dataSource() == DataSource.AVERAGE;
        for (Series s : h.series) {
            fold(s.metric, from, to, windows);
            int n = 0;
            for (int w = 0; w < windows; w++) {
                if (counts[w] > 0) {
                    times[n] = (from + (long) (w + 1) * ue) * 1000L;
                    values[n] = average ? sums[w] / counts[w] : sums[w];
                    n++;
                }
            }
            encoder.addSeries(s.labels, times, values, n);
        }
        long samples = encoder.samples();
        if (samples == 0) {
            // nothing stored in these seconds (a gap): nothing to send, the position moves on
            h.position = to;
            positions.commit(h.guid, to);
            return;
        }
        encoder.finish();
        throttle(samples);
        if (deliver(h, samples)) {
            meters.samplesSent.increment(samples);
            meters.bytesSent.increment(encoder.bodyLength());
            meters.uncompressedBytes.increment(encoder.uncompressedLength());
            meters.requests.increment();
        }
        h.position = to;
        positions.commit(h.guid, to);
        h.resumed = true;
    }

    /**
     * Sums and counts the stored values of {@code metric} in each window {@code (from + w × ue, from + (w + 1) × ue]},
     * {@code w < windows}, into {@link #sums} and {@link #counts}.
     */
    private void fold(int metric, long from, long to, int windows) throws IOException {
        int ue = cfg.updateEvery();
        Arrays.fill(sums, 0, windows, 0);
        Arrays.fill(counts, 0, windows, 0);
        engine.queryTier0Runs(metric, from + 1, to, (sns, a, b, firstTime, step) -> {
            for (int i = a; i < b; i++) {
                int sn = sns[i];
                if (sn == StorageNumber.SN_EMPTY_SLOT) {
                    continue;
                }
                long t = firstTime + (long) (i - a) * step;
                if (t <= from || t > to) {
                    continue;
                }
                double v = StorageNumber.unpack(sn);
                if (Double.isNaN(v) || Double.isInfinite(v)) {
                    continue;
                }
                int w = (int) ((t - from + ue - 1) / ue) - 1;
                sums[w] += v;
                counts[w]++;
            }
        });
    }

    /**
     * Sends what the engine stored behind a host's position since the last turn (holes filled by
     * {@link StorageEngine#storePast}, {@link PastPageListener}): per series, every window at or before
     * the position whose values all came with those pages — a window that held a value before was sent
     * then and is not sent again with another value. Windows after the position are the normal path's.
     * The position does not move. Returns false when nothing waited.
     */
    private boolean sendFills() throws IOException, InterruptedException {
        fills.sync();
        List<FillJournal.Page> taken = fills.takeAll();
        if (taken.isEmpty()) {
            return false;
        }
        try {
            List<FillJournal.Page> keep = sendFills(taken);
            fills.settle(keep, keep.size() < taken.size());
            return keep.size() < taken.size();
        } catch (IOException | InterruptedException | RuntimeException e) {
            // sent again at the next turn (or after a restart: they are still in the file)
            fills.restore(taken);
            throw e;
        }
    }

    /** Sends the windows of {@code taken}; returns the pages of hosts this node resumes later, which wait. */
    private List<FillJournal.Page> sendFills(List<FillJournal.Page> taken) throws IOException, InterruptedException {
        int ue = cfg.updateEvery();
        MetricRegistry reg = engine.registry();
        // per exported metric: window end -> values the drained pages put in it
        Map<Integer, TreeMap<Long, Integer>> filled = new HashMap<>();
        Map<Integer, HostState> hostOf = new HashMap<>();
        List<FillJournal.Page> keep = new ArrayList<>();
        for (FillJournal.Page f : taken) {
            int metric = reg.lookup(f.uuidMsb(), f.uuidLsb());
            if (metric < 0) {
                continue;
            }
            HostState h = hostOf.get(metric);
            if (h == null) {
                h = hostExporting(metric);
                if (h == null) {
                    if (resumesLater(metric)) {
                        // a host this node exported before the restart and resumes at its position once
                        // it takes it again: the hole lies behind that position, only this page sends it
                        keep.add(f);
                    }
                    // else not exported here: the take-over or the normal path covers it
                    continue;
                }
                hostOf.put(metric, h);
            }
            TreeMap<Long, Integer> windows = filled.computeIfAbsent(metric, m -> new TreeMap<>());
            for (int i = 0; i < f.count(); i++) {
                long t = f.firstTime() + (long) i * f.updateEvery();
                if (f.filled(i) && t <= h.position) {
                    windows.merge((t + ue - 1) / ue * ue, 1, Integer::sum);
                }
            }
        }
        long droppedNow = droppedFills.getAndSet(0);
        if (droppedNow > 0) {
            meters.fillPagesDropped.increment(droppedNow);
            LOG.warn("exporting to {}: {} pages stored behind the export position came faster than they could be"
                    + " sent; their points are not exported", cfg.section(), droppedNow);
        }
        for (HostState h : hosts.values()) {
            encoder.reset();
            for (Series s : h.series) {
                TreeMap<Long, Integer> windows = filled.get(s.metric);
                if (windows == null || windows.isEmpty() || hostOf.get(s.metric) != h) {
                    continue;
                }
                int n = 0;
                ensure(windows.size());
                for (Map.Entry<Long, Integer> w : windows.entrySet()) {
                    long end = w.getKey();
                    fold(s.metric, end - ue, end, 1);
                    if (counts[0] > 0 && counts[0] == w.getValue()) {
                        times[n] = end * 1000L;
                        values[n] = cfg.dataSource() == DataSource.AVERAGE ? sums[0] / counts[0] : sums[0];
                        n++;
                    } else if (counts[0] > w.getValue()) {
                        meters.filledWindowsNotResent.increment();
                    }
                }
                // fold() used the scratch from index 0 only: times/values hold this series' samples
                encoder.addSeries(s.labels, times, values, n);
                if (encoder.samples() >= cfg.maxSamplesPerRequest()) {
                    sendFilled(h);
                    encoder.reset();
                }
            }
            if (encoder.samples() > 0) {
                sendFilled(h);
            }
        }
        // the slots of the pages done with leave the bound (only now: a failed send restores them all)
        long done = 0;
        for (FillJournal.Page f : taken) {
            done += f.count();
        }
        for (FillJournal.Page f : keep) {
            done -= f.count();
        }
        queuedFills.addAndGet((int) -done);
        return keep;
    }

    /**
     * Whether {@code metric} is a series of a host this node does not export now but will resume at its
     * persisted position (it exported the host last and did not release it: a restart before its
     * stream came back).
     */
    private boolean resumesLater(int metric) {
        for (HostState h : hosts.values()) {
            if (h.owned) {
                continue;
            }
            for (Series s : h.series) {
                if (s.metric == metric) {
                    return positions.position(h.guid) >= 0 && !positions.released(h.guid);
                }
            }
        }
        return false;
    }

    private void sendFilled(HostState h) throws IOException, InterruptedException {
        long samples = encoder.samples();
        encoder.finish();
        throttle(samples);
        if (deliver(h, samples)) {
            meters.samplesSent.increment(samples);
            meters.filledSamplesSent.increment(samples);
            meters.bytesSent.increment(encoder.bodyLength());
            meters.uncompressedBytes.increment(encoder.uncompressedLength());
            meters.requests.increment();
        }
    }

    /** The host whose exported series {@code metric} is, when this node exports it from a position. */
    private HostState hostExporting(int metric) {
        for (HostState h : hosts.values()) {
            if (h.owned && h.position >= 0) {
                for (Series s : h.series) {
                    if (s.metric == metric) {
                        return h;
                    }
                }
            }
        }
        return null;
    }

    /**
     * Engine callback (the thread that stored the page): queues which slots the page filled for the
     * exporter's thread, appended to the fill journal (a write to the page cache, no fsync).
     */
    private void pastPageStored(int metric, long firstTime, int updateEvery, int[] sns, int count) {
        MetricRegistry reg = engine.registry();
        for (int off = 0; off < count; off += FillJournal.MAX_SLOTS) {
            int n = Math.min(FillJournal.MAX_SLOTS, count - off);
            long[] bits = new long[FillJournal.MAX_SLOTS / 64];
            int values = 0;
            for (int i = 0; i < n; i++) {
                if (sns[off + i] != StorageNumber.SN_EMPTY_SLOT) {
                    bits[i >>> 6] |= 1L << i;
                    values++;
                }
            }
            if (values == 0) {
                continue;
            }
            if (queuedFills.addAndGet(n) > MAX_QUEUED_FILL_SLOTS) {
                queuedFills.addAndGet(-n);
                droppedFills.incrementAndGet();
                continue;
            }
            if (!fills.add(new FillJournal.Page(reg.uuidMsb(metric), reg.uuidLsb(metric),
                    firstTime + (long) off * updateEvery, updateEvery, n, bits), clockMillis.getAsLong())) {
                queuedFills.addAndGet(-n);
                droppedFills.incrementAndGet();
            }
        }
    }

    /** Keeps the catch-up under {@code max samples per second}. */
    private void throttle(long samples) throws InterruptedException {
        long now = System.nanoTime();
        if (nextSendAllowedNanos - now > 0) {
            long wait = nextSendAllowedNanos - now;
            Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
            now = System.nanoTime();
        }
        nextSendAllowedNanos = Math.max(now, nextSendAllowedNanos) + samples * 1_000_000_000L / cfg.maxSamplesPerSecond();
    }

    /**
     * Sends the encoded request until the target takes it (true) or refuses it for good (false: counted,
     * logged with the target's reason). Retries 5xx, 429 and no answer with back-off, for as long as it takes:
     * the data stays in the engine meanwhile.
     */
    private boolean deliver(HostState h, long samples) throws InterruptedException {
        for (int attempt = 1; ; attempt++) {
            if (closed) {
                throw new InterruptedException("closing");
            }
            RemoteWriteClient.Response r = client.post(encoder.body(), encoder.bodyLength());
            long now = clockMillis.getAsLong();
            switch (RetryPolicy.classify(r.status())) {
                case ACCEPTED:
                    if (failingSinceMillis != 0) {
                        LOG.info("exporting to {}: {} accepts again after {} failed attempts in {} s", cfg.section(),
                                r.destination(), failedAttempts, Math.max(0, (now - failingSinceMillis) / 1000));
                        failingSinceMillis = 0;
                        failedAttempts = 0;
                    }
                    return true;
                case REJECTED:
                    meters.failure(r.status());
                    meters.samplesRejected.increment(samples);
                    LOG.warn("exporting to {}: {} refused {} samples of host '{}' with HTTP {} (not retried): {}",
                            cfg.section(), r.destination(), samples, h.name(), r.status(), r.reason());
                    return false;
                default:
                    meters.failure(r.status());
                    failedAttempts++;
                    if (failingSinceMillis == 0) {
                        failingSinceMillis = now;
                        lastWarnMillis = now;
                        LOG.warn("exporting to {}: {} {}; retrying with back-off, the data waits in the engine",
                                cfg.section(), r.destination(), describe(r));
                    } else if (now - lastWarnMillis >= WARN_EVERY_MILLIS) {
                        lastWarnMillis = now;
                        LOG.warn("exporting to {}: still failing for {} s ({} attempts), last: {} {}", cfg.section(),
                                (now - failingSinceMillis) / 1000, failedAttempts, r.destination(), describe(r));
                    }
                    Thread.sleep(retry.backoffMillis(attempt, r.retryAfter()));
            }
        }
    }

    private static String describe(RemoteWriteClient.Response r) {
        return r.status() == RetryPolicy.NO_RESPONSE ? "did not answer: " + r.reason()
                : "answered HTTP " + r.status() + (r.reason().isEmpty() ? "" : ": " + r.reason());
    }

    private long align(long second) {
        return second / cfg.updateEvery() * cfg.updateEvery();
    }

    private void ensure(int windows) {
        if (times.length < windows) {
            times = new long[windows];
            values = new double[windows];
            sums = new double[windows];
            counts = new int[windows];
        }
    }

    /** Positions of the hosts this exporter knows, for tests and status. */
    Map<UUID, Long> positions() {
        Map<UUID, Long> out = new LinkedHashMap<>();
        for (HostState h : hosts.values()) {
            out.put(h.guid, h.position);
        }
        return out;
    }

    @Override
    public void close() {
        closed = true;
        engine.removePastPageListener(pastListener);
        thread.interrupt();
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            fills.close();
        } catch (IOException e) {
            LOG.warn("exporting to {}: closing {}: {}", cfg.section(), fills.file(), e.toString());
        }
    }

    /** A dimension exported as one series. */
    record Series(int metric, LabelSet labels) {
    }

    /** What the exporter knows of one host. */
    final class HostState {
        final UUID guid;
        final boolean local;
        List<Series> series = List.of();
        long signature;
        boolean owned;
        boolean resumed;
        long position = -1;
        long end = -1;
        long releaseAt = -1;
        long settledAt;

        HostState(UUID guid, boolean local) {
            this.guid = guid;
            this.local = local;
        }

        String name() {
            HostInfo info = engine.metadata().host(engine.metadata().hostId(guid));
            return info == null ? guid.toString() : info.hostname();
        }
    }
}
