package io.strata.engine;

import io.strata.engine.io.FileHandle;
import io.strata.engine.io.FileIo;
import io.strata.engine.registry.MetricRegistry;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.zip.CRC32C;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The past pages whose tier 1+ windows may still need a rebuild, kept in {@code past-rebuilds}
 * in the engine directory so that a restart or a crash does not leave those windows with the
 * aggregate of before the fill (format and the order of writes: {@code docs/format/past-rebuilds.md}).
 *
 * <p>A record (metric UUID, update_every, first and last second of the past page) is appended
 * <b>before</b> the past page is handed to the flusher, and the flusher forces this file before
 * every batch of extents ({@link #sync}), so no extent holding a past page is durable without its
 * record. A record is dropped (the file rewritten without it, {@link #compact}) only once every
 * window over its range was rebuilt and no page of tiers 1+ of the metric over that range is
 * still waiting for the disk. At start, every record is rebuilt again ({@link PastWriter#recover}):
 * windows the tier has passed at once, the others once it passes them. A rebuild done twice writes
 * the same points twice, of which readers deliver one.
 *
 * <p>Bounded: at most {@link #MAX_RECORDS} records; a page past that is not recorded (counted in
 * {@link #notRecorded()}, a WARN at most once a minute) and its windows are rebuilt as long as the
 * process runs, as before. Thread-safe (every method synchronized: appends are one per past page).
 */
final class PendingRebuildJournal implements Closeable {

    private static final Logger log = LoggerFactory.getLogger(PendingRebuildJournal.class);

    static final String FILE_NAME = "past-rebuilds";
    static final int VERSION = 1;
    static final byte[] MAGIC = "STRPRBLD".getBytes(StandardCharsets.US_ASCII);
    /** Magic (8), version u32, record size u32. */
    static final int HEADER_BYTES = 16;
    /** UUID msb u64, lsb u64, update_every u32, reserved u32, from u64, to u64, CRC32C u32. */
    static final int RECORD_BYTES = 44;
    static final int MAX_RECORDS = 65_536;
    private static final long WARN_EVERY_NANOS = 60_000_000_000L;

    /** A past page whose tier windows are (or may be) still to rebuild. */
    static final class Entry {
        final int metric;
        final long uuidMsb;
        final long uuidLsb;
        final int updateEvery;
        final long from;
        final long to;
        /**
         * Rebuilds of this page not yet done: queued windows, plus one from the record's creation until
         * its first pass is done (so that a compaction on another thread never drops it before).
         */
        final AtomicInteger outstanding = new AtomicInteger(1);

        Entry(int metric, long uuidMsb, long uuidLsb, int updateEvery, long from, long to) {
            this.metric = metric;
            this.uuidMsb = uuidMsb;
            this.uuidLsb = uuidLsb;
            this.updateEvery = updateEvery;
            this.from = from;
            this.to = to;
        }

        boolean rebuilt() {
            return outstanding.get() == 0;
        }
    }

    private final FileIo io;
    private final Path file;
    private final Path tmp;
    private final boolean force;
    private final List<Entry> entries = new ArrayList<>();
    private FileHandle handle;
    private long end;
    private boolean unsynced;
    private long notRecorded;
    private long lastWarnNanos = Long.MIN_VALUE / 2;
    private final long damaged;

    private PendingRebuildJournal(FileIo io, Path dir, boolean force, long damaged) {
        this.io = io;
        this.file = dir.resolve(FILE_NAME);
        this.tmp = dir.resolve(FILE_NAME + ".tmp");
        this.force = force;
        this.damaged = damaged;
    }

    /**
     * Reads the file of {@code dir} (when there is one) and returns the journal with the records
     * whose metric the registry knows, the file rewritten with exactly those. A damaged record is
     * logged and skipped; a file that is not a journal of this version is kept aside as
     * {@code past-rebuilds.damaged} and a new one started. Only a file that cannot be written
     * at all fails.
     */
    static PendingRebuildJournal open(FileIo io, Path dir, boolean force, MetricRegistry registry) throws IOException {
        Path file = dir.resolve(FILE_NAME);
        io.delete(dir.resolve(FILE_NAME + ".tmp"));
        List<Entry> found = new ArrayList<>();
        long damaged = 0;
        if (io.exists(file)) {
            damaged = read(io, file, registry, found);
        }
        PendingRebuildJournal j = new PendingRebuildJournal(io, dir, force, damaged);
        j.entries.addAll(found);
        if (io.exists(file)) {
            j.rewrite();
        }
        return j;
    }

    private static long read(FileIo io, Path file, MetricRegistry registry, List<Entry> out) throws IOException {
        byte[] bytes;
        try (FileHandle h = io.open(file, FileIo.OpenMode.READ)) {
            long size = h.size();
            if (size > HEADER_BYTES + (long) RECORD_BYTES * (MAX_RECORDS + 1)) {
                size = HEADER_BYTES + (long) RECORD_BYTES * (MAX_RECORDS + 1);
            }
            ByteBuffer b = ByteBuffer.allocate((int) size);
            while (b.hasRemaining() && h.read(b, b.position()) > 0) {
                // until full or the end of the file
            }
            bytes = new byte[b.position()];
            b.flip();
            b.get(bytes);
        }
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        if (bytes.length < HEADER_BYTES || !magicMatches(bytes) || b.getInt(8) != VERSION
                || b.getInt(12) != RECORD_BYTES) {
            Path aside = file.resolveSibling(FILE_NAME + ".damaged");
            io.rename(file, aside);
            log.warn("{}: not a pending tier-rebuild journal of version {} ({} bytes); kept as {}, a new one is"
                    + " started. Tier 1+ windows over holes filled shortly before the stop may keep the aggregate"
                    + " of before the fill; every stored point is kept", file, VERSION, bytes.length, aside);
            return 1;
        }
        long damaged = 0;
        long unknown = 0;
        CRC32C crc = new CRC32C();
        int n = (bytes.length - HEADER_BYTES) / RECORD_BYTES;
        for (int i = 0; i < n; i++) {
            int at = HEADER_BYTES + i * RECORD_BYTES;
            crc.reset();
            crc.update(bytes, at, RECORD_BYTES - 4);
            int ue = b.getInt(at + 16);
            long from = b.getLong(at + 24);
            long to = b.getLong(at + 32);
            if ((int) crc.getValue() != b.getInt(at + RECORD_BYTES - 4) || ue <= 0 || from <= 0 || to < from
                    || b.getInt(at + 20) != 0) {
                damaged++;
                log.warn("{}: record {} (offset {}) damaged, skipped: the tier 1+ windows over its range may keep"
                        + " the aggregate of before the fill", file, i, at);
                continue;
            }
            long msb = b.getLong(at);
            long lsb = b.getLong(at + 8);
            int metric = registry.lookup(msb, lsb);
            if (metric < 0) {
                unknown++;
                continue;
            }
            out.add(new Entry(metric, msb, lsb, ue, from, to));
        }
        int tail = (bytes.length - HEADER_BYTES) % RECORD_BYTES;
        if (tail != 0 || unknown > 0) {
            log.info("{}: {} pending tier rebuild(s) read; {} of metrics no longer defined dropped; a torn record of"
                    + " {} bytes at the end (a stop while it was written) ignored", file, out.size(), unknown, tail);
        }
        return damaged;
    }

    private static boolean magicMatches(byte[] bytes) {
        for (int i = 0; i < MAGIC.length; i++) {
            if (bytes[i] != MAGIC[i]) {
                return false;
            }
        }
        return true;
    }

    /** The records read at open (the pages to rebuild again), in file order. */
    synchronized List<Entry> entries() {
        return new ArrayList<>(entries);
    }

    /**
     * Records a past page before it is handed to the flusher; null when the journal is full (the
     * page's windows are then rebuilt only while the process runs).
     */
    synchronized Entry append(int metric, long msb, long lsb, int updateEvery, long from, long to,
                              long nowNanos) {
        if (entries.size() >= MAX_RECORDS) {
            notRecorded++;
            if (nowNanos - lastWarnNanos >= WARN_EVERY_NANOS) {
                lastWarnNanos = nowNanos;
                log.warn("{}: {} pending tier rebuilds recorded already; {} past page(s) not recorded: a restart before"
                        + " their windows are rebuilt leaves those windows with the aggregate of before the fill",
                        file, MAX_RECORDS, notRecorded);
            }
            return null;
        }
        Entry e = new Entry(metric, msb, lsb, updateEvery, from, to);
        try {
            if (handle == null) {
                openForAppend();
            }
            handle.writeFully(encode(e), end);
        } catch (IOException x) {
            // the past page is stored all the same: its windows are rebuilt while the process runs
            notRecorded++;
            if (nowNanos - lastWarnNanos >= WARN_EVERY_NANOS) {
                lastWarnNanos = nowNanos;
                log.warn("{}: a pending tier rebuild could not be recorded ({}); {} past page(s) not recorded: a"
                        + " restart before their windows are rebuilt leaves those windows with the aggregate of"
                        + " before the fill", file, x.toString(), notRecorded);
            }
            return null;
        }
        end += RECORD_BYTES;
        unsynced = true;
        entries.add(e);
        return e;
    }

    /** Forces the appended records to the disk (the flusher calls it before writing extents). */
    synchronized void sync() throws IOException {
        if (force && unsynced && handle != null) {
            handle.sync();
            unsynced = false;
        }
    }

    /**
     * Rewrites the file without the records that {@code settled} accepts (rebuilt, and their
     * pages on disk), once they are at least half of it (or all of it), so rewrites stay rare.
     * Returns how many were dropped.
     */
    synchronized int compact(Predicate<Entry> settled, boolean always) throws IOException {
        int n = 0;
        for (Entry e : entries) {
            if (settled.test(e)) {
                n++;
            }
        }
        if (n == 0 || (!always && n < entries.size() && n * 2 < entries.size())) {
            return 0;
        }
        entries.removeIf(settled);
        rewrite();
        return n;
    }

    /** Replaces the file by one holding {@link #entries}: a new file, forced, then renamed over it. */
    private void rewrite() throws IOException {
        if (handle != null) {
            handle.close();
            handle = null;
        }
        io.delete(tmp);
        try (FileHandle h = io.open(tmp, FileIo.OpenMode.CREATE_NEW)) {
            ByteBuffer b = ByteBuffer.allocate(HEADER_BYTES + entries.size() * RECORD_BYTES).order(ByteOrder.LITTLE_ENDIAN);
            header(b);
            for (Entry e : entries) {
                b.put(encode(e));
            }
            b.flip();
            h.writeFully(b, 0);
            if (force) {
                h.sync();
            }
        }
        io.rename(tmp, file);
        unsynced = false;
        openForAppend();
    }

    private void openForAppend() throws IOException {
        boolean fresh = !io.exists(file);
        handle = io.open(file, FileIo.OpenMode.READ_WRITE);
        if (fresh || handle.size() < HEADER_BYTES) {
            ByteBuffer b = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
            header(b);
            b.flip();
            handle.writeFully(b, 0);
            handle.truncate(HEADER_BYTES);
            end = HEADER_BYTES;
        } else {
            end = HEADER_BYTES + (handle.size() - HEADER_BYTES) / RECORD_BYTES * RECORD_BYTES;
        }
    }

    private static void header(ByteBuffer b) {
        b.put(MAGIC).putInt(VERSION).putInt(RECORD_BYTES);
    }

    static ByteBuffer encode(Entry e) {
        ByteBuffer b = ByteBuffer.allocate(RECORD_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(e.uuidMsb).putLong(e.uuidLsb).putInt(e.updateEvery).putInt(0).putLong(e.from).putLong(e.to);
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, RECORD_BYTES - 4);
        b.putInt((int) crc.getValue());
        b.flip();
        return b;
    }

    /** Records in the file now. */
    synchronized int size() {
        return entries.size();
    }

    /** Past pages not recorded since open because the journal was full. */
    synchronized long notRecorded() {
        return notRecorded;
    }

    /** Records (or whole files) found damaged and skipped at open. */
    long damagedAtOpen() {
        return damaged;
    }

    @Override
    public synchronized void close() throws IOException {
        if (handle != null) {
            if (force && unsynced) {
                handle.sync();
            }
            handle.close();
            handle = null;
        }
    }
}
