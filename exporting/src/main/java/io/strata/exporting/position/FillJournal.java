package io.strata.exporting.position;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A target's queue of pages stored behind the export position (holes filled later), kept in
 * {@code <dir>/<target>.fills} beside its positions so that a restart or a kill before they were
 * sent still sends them (format: {@code docs/format/exporting-fills.md}). Per page, the metric's
 * UUID, its first second, update_every and which slots it filled (a bitmap): exactly what the
 * exporter needs to find the windows to send, whose values it reads from the engine.
 *
 * <p>A page is appended when the engine tells of it (one write to the page cache, no fsync, on the
 * storing thread); {@link #sync} forces the appends on the exporter's thread each turn. The
 * exporter {@link #takeAll takes} the queue, sends it, and {@link #settle settles}: the file is
 * replaced (a new file, forced, renamed over it) by the pages still queued. A kill while the taken
 * pages are being sent leaves them in the file: they are sent again after the restart (the same
 * timestamps and values). Bounded: at most {@link #MAX_RECORDS} pages ({@link #add} refuses more).
 * A damaged record is logged and skipped; a file that is not a fill journal of this version is kept
 * aside as {@code <target>.fills.damaged}. Thread-safe.
 */
public final class FillJournal implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(FillJournal.class);

    public static final int VERSION = 1;
    static final byte[] MAGIC = "STRFILLS".getBytes(StandardCharsets.US_ASCII);
    /** Magic (8), version u32, record size u32. */
    public static final int HEADER_BYTES = 16;
    /** The most slots a page holds (a tier-0 page). */
    public static final int MAX_SLOTS = 1024;
    /** UUID msb u64, lsb u64, first second u64, update_every u32, slots u32, bitmap 128 bytes, CRC32C u32. */
    public static final int RECORD_BYTES = 8 + 8 + 8 + 4 + 4 + MAX_SLOTS / 8 + 4;
    public static final int MAX_RECORDS = 65_536;
    private static final long WARN_EVERY_MILLIS = 60_000;

    /** A page stored behind the position: bit {@code i} of {@code filled} set when slot {@code i} got a value. */
    public record Page(long uuidMsb, long uuidLsb, long firstTime, int updateEvery, int count, long[] filled) {

        public boolean filled(int slot) {
            return (filled[slot >>> 6] & (1L << slot)) != 0;
        }
    }

    private final Path file;
    private final Path tmp;
    /** Whether the queue lives in memory only (the file could not be opened). */
    private final boolean memoryOnly;
    private final List<Page> queued = new ArrayList<>();
    private FileChannel channel;
    private long end;
    private boolean unsynced;
    private long damaged;
    private long lastWarnMillis = Long.MIN_VALUE / 2;

    private FillJournal(Path file, boolean memoryOnly) {
        this.file = file;
        this.memoryOnly = memoryOnly;
        this.tmp = file.resolveSibling(file.getFileName() + ".tmp");
    }

    /**
     * Opens {@code <dir>/<target>.fills} (created when missing), with the pages it holds queued.
     * Damaged records are skipped, a foreign file kept aside; fails only when the file cannot be
     * written.
     */
    public static FillJournal open(Path dir, String target) throws IOException {
        Files.createDirectories(dir);
        FillJournal j = new FillJournal(dir.resolve(target + ".fills"), false);
        Files.deleteIfExists(j.tmp);
        if (Files.exists(j.file)) {
            j.read();
        }
        j.rewrite();
        return j;
    }

    /** A queue kept in memory only, for a node whose file could not be opened (lost at a restart). */
    public static FillJournal inMemory(Path dir, String target) {
        return new FillJournal(dir.resolve(target + ".fills"), true);
    }

    public Path file() {
        return file;
    }

    private void read() throws IOException {
        long size = Files.size(file);
        long max = HEADER_BYTES + (long) RECORD_BYTES * MAX_RECORDS;
        byte[] bytes;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer b = ByteBuffer.allocate((int) Math.min(size, max));
            while (b.hasRemaining() && ch.read(b) > 0) {
                // until full or the end of the file
            }
            bytes = new byte[b.position()];
            b.flip();
            b.get(bytes);
        }
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        if (bytes.length < HEADER_BYTES || !ByteBuffer.wrap(bytes, 0, MAGIC.length).equals(ByteBuffer.wrap(MAGIC))
                || b.getInt(8) != VERSION || b.getInt(12) != RECORD_BYTES) {
            Path aside = file.resolveSibling(file.getFileName() + ".damaged");
            Files.move(file, aside, StandardCopyOption.REPLACE_EXISTING);
            damaged++;
            LOG.warn("{}: not a fill journal of version {} ({} bytes); kept as {}. Holes filled behind the export"
                    + " position before the stop are not sent; every stored point is kept", file, VERSION,
                    bytes.length, aside);
            return;
        }
        CRC32C crc = new CRC32C();
        int n = (bytes.length - HEADER_BYTES) / RECORD_BYTES;
        for (int i = 0; i < n; i++) {
            int at = HEADER_BYTES + i * RECORD_BYTES;
            crc.reset();
            crc.update(bytes, at, RECORD_BYTES - 4);
            long first = b.getLong(at + 16);
            int ue = b.getInt(at + 24);
            int count = b.getInt(at + 28);
            if ((int) crc.getValue() != b.getInt(at + RECORD_BYTES - 4) || first <= 0 || ue <= 0 || count <= 0
                    || count > MAX_SLOTS) {
                damaged++;
                LOG.warn("{}: record {} (offset {}) damaged, skipped: the seconds it filled are not sent", file, i, at);
                continue;
            }
            long[] bits = new long[MAX_SLOTS / 64];
            for (int w = 0; w < bits.length; w++) {
                bits[w] = b.getLong(at + 32 + w * 8);
            }
            queued.add(new Page(b.getLong(at), b.getLong(at + 8), first, ue, count, bits));
        }
        int tail = (bytes.length - HEADER_BYTES) % RECORD_BYTES;
        if (tail != 0) {
            LOG.info("{}: a torn record of {} bytes at the end (a stop while it was written) ignored", file, tail);
        }
        if (size > max) {
            LOG.warn("{}: {} bytes, more than {} records; the rest is ignored", file, size, MAX_RECORDS);
        }
    }

    /**
     * Queues a page and appends it to the file; false (nothing queued) when {@link #MAX_RECORDS}
     * pages wait already. A write that fails keeps the page in memory (WARN at most once a minute).
     */
    public synchronized boolean add(Page p, long nowMillis) {
        if (queued.size() >= MAX_RECORDS) {
            return false;
        }
        queued.add(p);
        if (channel != null) {
            try {
                ByteBuffer b = encode(p);
                while (b.hasRemaining()) {
                    end += channel.write(b, end);
                }
                unsynced = true;
            } catch (IOException e) {
                if (nowMillis - lastWarnMillis >= WARN_EVERY_MILLIS) {
                    lastWarnMillis = nowMillis;
                    LOG.warn("{}: a page filled behind the export position could not be recorded ({}); it is sent"
                            + " unless the node stops first", file, e.toString());
                }
                // the file is replaced whole at the next settle; until then a torn record may end it
                end = HEADER_BYTES + (end - HEADER_BYTES) / RECORD_BYTES * RECORD_BYTES;
            }
        }
        return true;
    }

    /** Forces what was appended since the last call (the exporter's thread, once a turn). */
    public synchronized void sync() throws IOException {
        if (unsynced && channel != null) {
            channel.force(false);
            unsynced = false;
        }
    }

    /** Takes every queued page; they stay in the file until {@link #settle}. */
    public synchronized List<Page> takeAll() {
        List<Page> out = new ArrayList<>(queued);
        queued.clear();
        return out;
    }

    /**
     * After the taken pages were sent (or given up): {@code keep} (taken pages that must wait)
     * goes back in front of what came since, and, when some taken page is done with
     * ({@code consumed}), the file is replaced by the queue.
     */
    public synchronized void settle(List<Page> keep, boolean consumed) throws IOException {
        if (!keep.isEmpty()) {
            List<Page> since = new ArrayList<>(queued);
            queued.clear();
            queued.addAll(keep);
            queued.addAll(since);
        }
        if (consumed) {
            rewrite();
        }
    }

    /** Puts taken pages back in front of the queue (their sending failed); the file still holds them. */
    public synchronized void restore(List<Page> taken) {
        List<Page> since = new ArrayList<>(queued);
        queued.clear();
        queued.addAll(taken);
        queued.addAll(since);
    }

    /** Slots of the pages queued now. */
    public synchronized long queuedSlots() {
        long n = 0;
        for (Page p : queued) {
            n += p.count();
        }
        return n;
    }

    /** Pages queued now. */
    public synchronized int size() {
        return queued.size();
    }

    /** Records (or a whole file) found damaged at open. */
    public synchronized long damaged() {
        return damaged;
    }

    private void rewrite() throws IOException {
        if (memoryOnly) {
            return;
        }
        if (channel != null) {
            channel.close();
            channel = null;
        }
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer h = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
            h.put(MAGIC).putInt(VERSION).putInt(RECORD_BYTES).flip();
            long pos = 0;
            while (h.hasRemaining()) {
                pos += ch.write(h, pos);
            }
            for (Page p : queued) {
                ByteBuffer b = encode(p);
                while (b.hasRemaining()) {
                    pos += ch.write(b, pos);
                }
            }
            ch.force(true);
            end = pos;
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        channel = FileChannel.open(file, StandardOpenOption.WRITE);
        unsynced = false;
    }

    static ByteBuffer encode(Page p) {
        ByteBuffer b = ByteBuffer.allocate(RECORD_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(p.uuidMsb()).putLong(p.uuidLsb()).putLong(p.firstTime()).putInt(p.updateEvery()).putInt(p.count());
        for (int w = 0; w < MAX_SLOTS / 64; w++) {
            b.putLong(w < p.filled().length ? p.filled()[w] : 0);
        }
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, RECORD_BYTES - 4);
        b.putInt((int) crc.getValue());
        b.flip();
        return b;
    }

    @Override
    public synchronized void close() throws IOException {
        if (channel != null) {
            if (unsynced) {
                channel.force(false);
            }
            channel.close();
            channel = null;
        }
    }
}
