package io.strata.engine.meta;

import io.strata.engine.DiskFormat;
import io.strata.engine.io.FileHandle;
import io.strata.engine.io.FileIo;
import io.strata.engine.recovery.RecoveryReport;
import io.strata.engine.registry.MetricRegistry;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.zip.CRC32C;
import java.util.Arrays;
import org.slf4j.LoggerFactory;

/**
 * Hosts, charts and dimensions, persisted beside the data in an append-only log of checksummed
 * records ({@code docs/format/metadata.md}) and reloaded on start. A record is appended only when
 * a definition changes. On open the log is replayed; a damaged tail is reported and cut off, damage
 * in the middle is skipped to the next valid record (the log kept aside first), and a log with
 * many superseded records is rewritten (to a temporary file, then renamed).
 *
 * <p>Hosts and charts get dense int ids; a dimension's id is its metric's id in the
 * {@link MetricRegistry}. Thread-safe; definitions change rarely, so one lock serves.
 */
public final class MetadataStore implements Closeable {

    private static final int HEADER_SIZE = 16;

    private final FileIo io;
    private final Path path;
    private final MetricRegistry registry;
    private FileHandle log;
    private long logEnd;
    private int recordsInLog;
    private boolean unsynced;
    private boolean needsRewrite;
    /** Held by {@link #sync()} around its file I/O, which runs outside the monitor; taken before the monitor. */
    private final Object syncLock = new Object();
    /**
     * Records queued for the next sync, back to back as they go to the log: their exact bytes
     * only (an encoded record sits in a 4 KiB buffer, and a parent defines 100 000 dimensions
     * between two syncs), and one write for the lot.
     */
    private byte[] pending = new byte[4096];
    private int pendingBytes;
    private int pendingRecords;

    private final List<HostInfo> hosts = new ArrayList<>();
    private final Map<UUID, Integer> hostByGuid = new HashMap<>();
    private final List<ChartInfo> charts = new ArrayList<>();
    private final List<Integer> chartHost = new ArrayList<>();
    private final Map<String, Integer> chartByKey = new HashMap<>();
    /**
     * Dimensions as parallel arrays indexed by metric id (a parent holds very many, and a
     * dimension no longer collected should cost little): id (null for a metric known only from
     * datafiles), name (null when it equals the id), algorithm (index into {@link #algorithms}),
     * multiplier, divisor, flags. {@link #dimension} builds the record on demand.
     */
    private String[] dimId = new String[0];
    private String[] dimName = new String[0];
    private byte[] dimAlg = new byte[0];
    private long[] dimMul = new long[0];
    private long[] dimDiv = new long[0];
    private int[] dimFlags = new int[0];
    private final List<String> algorithms = new ArrayList<>();
    private final Map<String, String> strings = new HashMap<>();
    private int dimensionCount;
    /** Indexed by chart id: the chart's metric ids, first {@code chartMetricCount} used. */
    private final ArrayList<int[]> metricsByChart = new ArrayList<>();
    private final ArrayList<Integer> chartMetricCount = new ArrayList<>();
    /** By host id: its charts and dimensions (what the receiver's per-host totals count). */
    private int[] hostCharts = new int[16];
    private int[] hostDimensions = new int[16];
    /** Host ids whose host was removed ({@link #removeHost}): their slots stay, empty, so ids stay put. */
    private final BitSet removedHosts = new BitSet();
    private int removals;

    private MetadataStore(FileIo io, Path path, MetricRegistry registry) {
        this.io = io;
        this.path = path;
        this.registry = registry;
    }

    /** Opens (creating when missing) the metadata log in {@code dir}, replaying what it holds. */
    public static MetadataStore open(FileIo io, Path dir, MetricRegistry registry, RecoveryReport report)
            throws IOException {
        io.createDirectories(dir);
        // a compaction interrupted before its rename: the log itself is intact
        io.delete(dir.resolve(DiskFormat.METADATA_FILE + ".tmp"));
        MetadataStore store = new MetadataStore(io, dir.resolve(DiskFormat.METADATA_FILE), registry);
        store.load(report);
        return store;
    }

    private void load(RecoveryReport report) throws IOException {
        if (!io.exists(path) || io.size(path) < HEADER_SIZE) {
            if (io.exists(path)) {
                report.add(path.toString(), 0, "metadata log shorter than its header", "started a new log");
            }
            createNew(path);
            log = io.open(path, FileIo.OpenMode.READ_WRITE);
            logEnd = HEADER_SIZE;
            return;
        }
        log = io.open(path, FileIo.OpenMode.READ_WRITE);
        ByteBuffer hdr = ByteBuffer.allocate(HEADER_SIZE).order(ByteOrder.LITTLE_ENDIAN);
        log.readFully(hdr, 0);
        if (hdr.getLong(0) != DiskFormat.METADATA_MAGIC || hdr.getInt(8) != DiskFormat.METADATA_VERSION) {
            // Never destroy what we cannot read: keep it aside and start a new log.
            log.close();
            Path aside = path.resolveSibling(DiskFormat.METADATA_FILE + ".unreadable-" + System.nanoTime());
            io.rename(path, aside);
            report.add(path.toString(), 0, "metadata log has a bad magic or version",
                    "kept aside as " + aside.getFileName() + ", started a new log");
            createNew(path);
            log = io.open(path, FileIo.OpenMode.READ_WRITE);
            logEnd = HEADER_SIZE;
            return;
        }
        long size = log.size();
        long pos = HEADER_SIZE;
        Path aside = null;
        ByteBuffer lenBuf = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
        while (pos < size) {
            String problem = null;
            if (size - pos < 9) {
                problem = "truncated record header";
            } else {
                lenBuf.clear();
                log.readFully(lenBuf, pos);
                int len = lenBuf.getInt(0);
                if (len < 1 || len > MetadataCodec.MAX_RECORD || pos + 4 + len + 4 > size) {
                    problem = "record length " + Integer.toUnsignedString(len) + " runs past the end of the log";
                } else {
                    ByteBuffer rec = ByteBuffer.allocate(4 + len + 4).order(ByteOrder.LITTLE_ENDIAN);
                    log.readFully(rec, pos);
                    CRC32C crc = new CRC32C();
                    crc.update(rec.array(), 0, 4 + len);
                    if ((int) crc.getValue() != rec.getInt(4 + len)) {
                        problem = "record checksum mismatch";
                    } else {
                        int type = rec.get(4);
                        ByteBuffer payload = ByteBuffer.wrap(rec.array(), 5, len - 1).slice().order(ByteOrder.LITTLE_ENDIAN);
                        try {
                            apply(MetadataCodec.decode(type, payload));
                            recordsInLog++;
                            pos += 4 + len + 4;
                            continue;
                        } catch (MetadataCodec.BadRecordException e) {
                            problem = e.getMessage();
                        } catch (IllegalArgumentException e) {
                            // a record that decodes but that memory refuses (a 256th distinct algorithm):
                            // lost like a damaged one, never a start that fails
                            problem = "record refused: " + e.getMessage();
                        }
                    }
                }
            }
            long next = nextValidRecord(pos + 1, size);
            if (next < 0) {
                // a damaged tail (an append cut by a crash): nothing valid follows
                report.add(path.toString(), pos, "metadata log: " + problem,
                        "cut the log at offset " + pos + " (" + (size - pos) + " bytes dropped); "
                                + "metrics found in datafiles but not described here stay readable by UUID");
                log.truncate(pos);
                size = pos;
                continue;
            }
            // Damage in the middle (a bit flip, a lost sector): keep the file as it was, then
            // skip to the next record whose length, checksum and payload hold, as datafile
            // recovery resynchronises on the next valid extent. Only the damaged bytes are lost.
            if (aside == null) {
                aside = copyAside();
            }
            report.add(path.toString(), pos, "metadata log: " + problem,
                    "skipped " + (next - pos) + " bytes to the next valid record at offset " + next
                            + "; the log as it was is kept as " + aside.getFileName()
                            + " and rewritten without the damaged bytes");
            pos = next;
        }
        logEnd = pos;
        int live = hosts.size() + charts.size() + dimensionCount;
        if (aside != null || (recordsInLog > 1024 && recordsInLog > 2 * live)) {
            compact();
        }
    }

    /**
     * The offset of the first record at or after {@code from} whose length fits, whose checksum
     * matches and whose payload decodes, or -1.
     */
    private long nextValidRecord(long from, long size) throws IOException {
        if (size - from < 9 || size - from > Integer.MAX_VALUE - 16) {
            return -1;
        }
        ByteBuffer all = ByteBuffer.allocate((int) (size - from)).order(ByteOrder.LITTLE_ENDIAN);
        log.readFully(all, from);
        byte[] b = all.array();
        int n = b.length;
        for (int q = 0; q + 9 <= n; q++) {
            int len = all.getInt(q);
            if (len < 1 || len > MetadataCodec.MAX_RECORD || (long) q + 8 + len > n) {
                continue;
            }
            CRC32C crc = new CRC32C();
            crc.update(b, q, 4 + len);
            if ((int) crc.getValue() != all.getInt(q + 4 + len)) {
                continue;
            }
            try {
                MetadataCodec.decode(b[q + 4], ByteBuffer.wrap(b, q + 5, len - 1).slice().order(ByteOrder.LITTLE_ENDIAN));
                return from + q;
            } catch (MetadataCodec.BadRecordException | RuntimeException e) {
                // a checksum that matches by chance over garbage: keep looking
            }
        }
        return -1;
    }

    /** Copies the log as it is to {@code metadata.log.damaged-<nanos>} (never deleted). */
    private Path copyAside() throws IOException {
        Path aside = path.resolveSibling(DiskFormat.METADATA_FILE + ".damaged-" + System.nanoTime());
        long size = log.size();
        try (FileHandle h = io.open(aside, FileIo.OpenMode.CREATE_NEW)) {
            // no bigger than the log: a 1 MiB array per recovery of a small log is a humongous
            // allocation for G1 (a region of the heap, and a concurrent cycle, each time)
            ByteBuffer buf = ByteBuffer.allocate((int) Math.min(size, 1 << 20));
            for (long at = 0; at < size; ) {
                buf.clear();
                if (size - at < buf.capacity()) {
                    buf.limit((int) (size - at));
                }
                log.readFully(buf, at);
                buf.flip();
                h.writeFully(buf, at);
                at += buf.limit();
            }
            h.sync();
        }
        io.syncDirectory(path.getParent());
        return aside;
    }

    private void createNew(Path p) throws IOException {
        io.delete(p);
        try (FileHandle h = io.open(p, FileIo.OpenMode.CREATE_NEW)) {
            ByteBuffer hdr = ByteBuffer.allocate(HEADER_SIZE).order(ByteOrder.LITTLE_ENDIAN);
            hdr.putLong(DiskFormat.METADATA_MAGIC).putInt(DiskFormat.METADATA_VERSION).putInt(0).flip();
            h.writeFully(hdr, 0);
            h.sync();
        }
        io.syncDirectory(p.getParent());
    }

    /** Rewrites the log with only the live records, atomically. */
    private void compact() throws IOException {
        Path tmp = path.resolveSibling(DiskFormat.METADATA_FILE + ".tmp");
        createNew(tmp);
        long pos = HEADER_SIZE;
        int n = 0;
        try (FileHandle h = io.open(tmp, FileIo.OpenMode.READ_WRITE)) {
            for (Object rec : liveRecords()) {
                ByteBuffer b = MetadataCodec.encode(rec);
                int len = b.remaining();
                h.writeFully(b, pos);
                pos += len;
                n++;
            }
            h.sync();
        }
        log.close();
        io.rename(tmp, path);
        io.syncDirectory(path.getParent());
        log = io.open(path, FileIo.OpenMode.READ_WRITE);
        logEnd = pos;
        recordsInLog = n;
    }

    private List<Object> liveRecords() {
        List<Object> out = new ArrayList<>(hosts.size() + charts.size() + dimensionCount);
        for (int h = 0; h < hosts.size(); h++) {
            if (!removedHosts.get(h)) {
                out.add(hosts.get(h));
            }
        }
        for (int c = 0; c < charts.size(); c++) {
            if (chartHost.get(c) >= 0) {
                out.add(charts.get(c));
            }
        }
        for (int m = 0; m < dimId.length; m++) {
            if (dimId[m] != null) {
                out.add(dimension(m));
            }
        }
        return out;
    }

    /**
     * Appends a record after it was applied in memory. A failed append does not lose the
     * definition: the log is marked for a rewrite of every live record at the next
     * {@link #sync()}, and whatever partial record reached the file is cut at the next open.
     */
    /**
     * Queues a record; {@link #sync()} writes the queue. Definitions change on stream receivers'
     * event loops, which must not do file I/O: the node syncs every second, so a process crash
     * loses at most that second of definitions (a reconnecting child sends them all again).
     */
    private void append(Object rec) {
        if (needsRewrite) {
            return;
        }
        ByteBuffer b = MetadataCodec.encode(rec);
        int len = b.remaining();
        if (pending.length - pendingBytes < len) {
            pending = Arrays.copyOf(pending, Math.max(pending.length * 2, pendingBytes + len));
        }
        b.get(pending, pendingBytes, len);
        pendingBytes += len;
        pendingRecords++;
        unsynced = true;
    }

    private int apply(Object rec) {
        if (rec instanceof HostInfo h) {
            Integer id = hostByGuid.get(h.machineGuid());
            if (id == null) {
                id = newHost(h);
            } else {
                hosts.set(id, h);
            }
            return id;
        }
        if (rec instanceof ChartInfo c) {
            Integer known = hostByGuid.get(c.hostGuid());
            int hostId = known != null ? known
                    : newHost(new HostInfo(c.hostGuid(), c.hostGuid().toString(), "", "", c.updateEvery(), Map.of()));
            String key = chartKey(c.hostGuid(), c.id());
            Integer id = chartByKey.get(key);
            if (id == null) {
                id = charts.size();
                charts.add(c);
                chartHost.add(hostId);
                chartByKey.put(key, id);
                metricsByChart.add(new int[0]);
                chartMetricCount.add(0);
                hostCharts[hostId]++;
            } else {
                charts.set(id, c);
            }
            return id;
        }
        if (rec instanceof MetadataCodec.HostRemoved r) {
            Integer id = hostByGuid.get(r.machineGuid());
            if (id != null) {
                forget(id);
            }
            return id == null ? -1 : id;
        }
        DimensionInfo d = (DimensionInfo) rec;
        // first, so that a refused algorithm changes nothing
        int algorithm = algorithmIndex(d.algorithm());
        Integer chartId = chartByKey.get(chartKey(d.hostGuid(), d.chartId()));
        if (chartId == null) {
            chartId = apply(ChartInfo.of(d.hostGuid(), d.chartId(), 1));
        }
        int metric = registry.register(d.metricUuid(), chartId);
        if (metric >= dimId.length) {
            int n = Math.max(metric + 1, dimId.length + (dimId.length >> 1) + 16);
            dimId = Arrays.copyOf(dimId, n);
            dimName = Arrays.copyOf(dimName, n);
            dimAlg = Arrays.copyOf(dimAlg, n);
            dimMul = Arrays.copyOf(dimMul, n);
            dimDiv = Arrays.copyOf(dimDiv, n);
            dimFlags = Arrays.copyOf(dimFlags, n);
        }
        boolean isNew = dimId[metric] == null;
        // Dimension ids and names repeat across charts and hosts ("user", "in", "reads"...).
        dimId[metric] = strings.computeIfAbsent(d.id(), k -> k);
        dimName[metric] = d.name().equals(d.id()) ? null : strings.computeIfAbsent(d.name(), k -> k);
        dimAlg[metric] = (byte) algorithm;
        dimMul[metric] = d.multiplier();
        dimDiv[metric] = d.divisor();
        dimFlags[metric] = d.flags();
        if (isNew) {
            dimensionCount++;
            hostDimensions[chartHost.get(chartId)]++;
            int n = chartMetricCount.get(chartId);
            int[] ms = metricsByChart.get(chartId);
            if (n == ms.length) {
                ms = Arrays.copyOf(ms, Math.max(4, n * 2));
                metricsByChart.set(chartId, ms);
            }
            ms[n] = metric;
            chartMetricCount.set(chartId, n + 1);
        }
        return metric;
    }

    private int newHost(HostInfo h) {
        int id = hosts.size();
        hosts.add(h);
        hostByGuid.put(h.machineGuid(), id);
        if (id >= hostCharts.length) {
            hostCharts = Arrays.copyOf(hostCharts, id * 2);
            hostDimensions = Arrays.copyOf(hostDimensions, id * 2);
        }
        return id;
    }

    /**
     * Drops a host and every chart and dimension it defined from memory. Ids are not reused: the
     * host's slot and its charts' slots stay, empty (a chart's host becomes -1), so that ids held
     * elsewhere (a catalog snapshot, a receiver) never name another host's definitions. The metrics
     * stay in the registry (their pages are in datafiles until rotation) but no dimension describes
     * them: no query reaches them.
     */
    private void forget(int hostId) {
        hostByGuid.remove(hosts.get(hostId).machineGuid());
        removedHosts.set(hostId);
        for (int c = 0; c < charts.size(); c++) {
            if (chartHost.get(c) != hostId) {
                continue;
            }
            ChartInfo chart = charts.get(c);
            chartByKey.remove(chartKey(chart.hostGuid(), chart.id()));
            chartHost.set(c, -1);
            int[] ms = metricsByChart.get(c);
            int n = chartMetricCount.get(c);
            for (int i = 0; i < n; i++) {
                int m = ms[i];
                if (dimId[m] != null) {
                    dimId[m] = null;
                    dimName[m] = null;
                    dimensionCount--;
                }
            }
            metricsByChart.set(c, new int[0]);
            chartMetricCount.set(c, 0);
        }
        hostCharts[hostId] = 0;
        hostDimensions[hostId] = 0;
        removals++;
    }

    private int algorithmIndex(String alg) {
        int i = algorithms.indexOf(alg);
        if (i < 0) {
            if (algorithms.size() >= 255) {
                throw new IllegalArgumentException("more than 255 distinct dimension algorithms; refusing '" + alg + "'");
            }
            algorithms.add(alg);
            i = algorithms.size() - 1;
        }
        return i;
    }

    private static String chartKey(UUID host, String chartId) {
        return host + "/" + chartId;
    }

    /** Defines or updates a host; returns its id. */
    public synchronized int upsertHost(HostInfo host) {
        Integer id = hostByGuid.get(host.machineGuid());
        if (id != null && hosts.get(id).equals(host)) {
            return id;
        }
        int newId = apply(host);
        append(host);
        return newId;
    }

    /** Defines or updates a chart (its host is created bare when unknown); returns its id. */
    public synchronized int upsertChart(ChartInfo chart) {
        Integer id = chartByKey.get(chartKey(chart.hostGuid(), chart.id()));
        if (id != null && charts.get(id).equals(chart)) {
            return id;
        }
        int newId = apply(chart);
        append(chart);
        return newId;
    }

    /** Defines or updates a dimension; returns its metric id in the registry. */
    public synchronized int upsertDimension(DimensionInfo dim) {
        Integer chartId = chartByKey.get(chartKey(dim.hostGuid(), dim.chartId()));
        if (chartId != null) {
            int metric = registry.lookup(dim.metricUuid());
            if (metric >= 0 && Objects.equals(dimension(metric), dim)) {
                return metric;
            }
        }
        int id = apply(dim);
        append(dim);
        return id;
    }

    /**
     * Removes a host with its charts and dimensions (a {@code host removed} record in the log, so
     * that a restart does not bring it back). Its stored points stay in the datafiles until
     * rotation, unreachable (no definition names them); the host streaming again starts afresh,
     * with its old points readable again under the same metric UUIDs while they last.
     *
     * @return false when no host has this machine GUID
     */
    public synchronized boolean removeHost(UUID guid) {
        Integer id = hostByGuid.get(guid);
        if (id == null) {
            return false;
        }
        forget(id);
        append(new MetadataCodec.HostRemoved(guid));
        return true;
    }

    /** Charts a host defined (0 for an unknown or removed host id). */
    public synchronized int chartsOfHost(int hostId) {
        return hostId >= 0 && hostId < hosts.size() ? hostCharts[hostId] : 0;
    }

    /** Dimensions of a host's charts (0 for an unknown or removed host id). */
    public synchronized int dimensionsOfHost(int hostId) {
        return hostId >= 0 && hostId < hosts.size() ? hostDimensions[hostId] : 0;
    }

    /** Whether this dimension (by its host, chart and id) is defined, whatever its other fields. */
    public synchronized boolean hasDimension(DimensionInfo dim) {
        int metric = registry.lookup(dim.metricUuid());
        return metric >= 0 && metric < dimId.length && dimId[metric] != null;
    }

    /** Hosts removed since this store was opened (a change that no count shows). */
    public synchronized int removals() {
        return removals;
    }

    /**
     * Every host slot by host id, null where the host was removed (what the ids of
     * {@link #chartHost} index).
     */
    public synchronized HostInfo[] hostsById() {
        HostInfo[] out = hosts.toArray(new HostInfo[0]);
        for (int h = removedHosts.nextSetBit(0); h >= 0; h = removedHosts.nextSetBit(h + 1)) {
            out[h] = null;
        }
        return out;
    }

    /**
     * Makes appended records durable. The file write and the force run outside this store's monitor
     * (under {@link #syncLock} only): the receivers' event loops take that monitor for every
     * definition and handshake, and a force on a busy disk takes from milliseconds to seconds, which
     * they would otherwise wait out. The queued bytes are taken, and their place in the log reserved,
     * under the monitor; a failure brings the monitor back for the rewrite from memory.
     */
    public void sync() throws IOException {
        synchronized (syncLock) {
            FileHandle h;
            byte[] bytes;
            int count;
            long at;
            boolean force;
            synchronized (this) {
                if (log == null) {
                    return; // closed
                }
                if (needsRewrite) {
                    rewrite();
                    return;
                }
                h = log;
                bytes = pending;
                count = pendingBytes;
                at = logEnd;
                logEnd += count;
                recordsInLog += pendingRecords;
                force = unsynced;
                unsynced = false;
                if (count > 0) {
                    // the queue goes on in a new array while this one is written; a burst of
                    // definitions (a parent's first minute) leaves no large buffer behind
                    pending = new byte[Math.min(bytes.length, 64 << 10)];
                }
                pendingBytes = 0;
                pendingRecords = 0;
            }
            if (count > 0) {
                try {
                    h.writeFully(ByteBuffer.wrap(bytes, 0, count), at);
                } catch (IOException e) {
                    LoggerFactory.getLogger(MetadataStore.class).warn(
                            "could not append to {} ({}); the log is rewritten from memory", path, e.getMessage());
                    synchronized (this) {
                        needsRewrite = true;
                        rewrite();
                    }
                    return;
                }
            }
            if (force) {
                try {
                    h.sync();
                } catch (ClosedChannelException e) {
                    // A thread interrupted inside the force closed the channel for everyone (the JDK
                    // closes a FileChannel on an interrupt): the next sync rewrites the log from memory
                    // and reopens it, instead of failing on the closed channel for good.
                    synchronized (this) {
                        needsRewrite = true;
                    }
                    throw e;
                } catch (IOException e) {
                    synchronized (this) {
                        unsynced = true; // forced again by the next sync
                    }
                    throw e;
                }
            }
        }
    }

    /** The log written anew from memory (after a failed write or a closed channel); under the monitor. */
    private void rewrite() throws IOException {
        // records queued meanwhile are in memory, so in the new log: drop their queued copies
        pendingBytes = 0;
        pendingRecords = 0;
        compact();
        needsRewrite = false;
        unsynced = false;
    }

    /** The hosts, removed ones left out, in definition order (not indexed by host id: see {@link #hostsById}). */
    public synchronized List<HostInfo> hosts() {
        if (removedHosts.isEmpty()) {
            return List.copyOf(hosts);
        }
        List<HostInfo> out = new ArrayList<>(hosts.size());
        for (int h = 0; h < hosts.size(); h++) {
            if (!removedHosts.get(h)) {
                out.add(hosts.get(h));
            }
        }
        return out;
    }

    /** Hosts defined, removed ones left out. */
    public synchronized int hostCount() {
        return hosts.size() - removedHosts.cardinality();
    }

    public synchronized int hostId(UUID guid) {
        Integer id = hostByGuid.get(guid);
        return id == null ? -1 : id;
    }

    public synchronized HostInfo host(int hostId) {
        return hosts.get(hostId);
    }

    public synchronized int chartCount() {
        return charts.size();
    }

    public synchronized ChartInfo chart(int chartId) {
        return charts.get(chartId);
    }

    public synchronized int chartHost(int chartId) {
        return chartHost.get(chartId);
    }

    public synchronized int chartId(UUID host, String chartId) {
        Integer id = chartByKey.get(chartKey(host, chartId));
        return id == null ? -1 : id;
    }

    /** Chart ids of a host, in definition order. */
    public synchronized List<Integer> charts(int hostId) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < charts.size(); i++) {
            if (chartHost.get(i) == hostId) {
                out.add(i);
            }
        }
        return out;
    }

    /** Metric ids of a chart's dimensions, in definition order. */
    public synchronized List<Integer> metrics(int chartId) {
        if (chartId < 0 || chartId >= metricsByChart.size()) {
            return List.of();
        }
        int[] ms = metricsByChart.get(chartId);
        int n = chartMetricCount.get(chartId);
        List<Integer> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(ms[i]);
        }
        return out;
    }

    /** The dimension of a metric, or null for a metric known only from datafiles. */
    public synchronized DimensionInfo dimension(int metricId) {
        if (metricId < 0 || metricId >= dimId.length || dimId[metricId] == null) {
            return null;
        }
        ChartInfo chart = charts.get(registry.chartId(metricId));
        String id = dimId[metricId];
        return new DimensionInfo(chart.hostGuid(), chart.id(), id, dimName[metricId] == null ? id : dimName[metricId],
                algorithms.get(Byte.toUnsignedInt(dimAlg[metricId])), dimMul[metricId], dimDiv[metricId], dimFlags[metricId]);
    }

    public synchronized int dimensionCount() {
        return dimensionCount;
    }

    @Override
    public void close() throws IOException {
        // the order of sync(): its lock, then the monitor
        synchronized (syncLock) {
            synchronized (this) {
                if (log != null) {
                    try {
                        sync();
                    } finally {
                        log.close();
                        log = null;
                    }
                }
            }
        }
    }
}
