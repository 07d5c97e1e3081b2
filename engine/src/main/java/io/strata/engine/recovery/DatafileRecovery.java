package io.strata.engine.recovery;

import io.strata.engine.CorruptionException;
import io.strata.engine.DiskFormat;
import io.strata.engine.datafile.DataFile;
import io.strata.engine.datafile.OpenPageIndex;
import io.strata.engine.extent.ExtentReader;
import io.strata.engine.extent.PageDescriptor;
import io.strata.engine.io.FileIo;
import io.strata.engine.journal.JournalV1Reader;
import io.strata.engine.journal.JournalV1Writer;
import io.strata.engine.registry.MetricRegistry;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Rebuilds the page index of a datafile that has no trustworthy journal v2: walks the datafile
 * from its superblock to its end, extent by extent, taking each extent's length from its journal
 * v1 transaction where that is intact and from the extent's own header where not. Every extent
 * whose checksum holds is indexed (including extents written before a crash cut off their
 * journal transaction); every damaged one is reported with the metrics and times it held, as
 * far as its transaction or header still says. A damaged tail is cut off; journal v1 is rewritten
 * when it did not match the datafile. Nothing intact is ever dropped.
 */
public final class DatafileRecovery {

    private DatafileRecovery() {
    }

    private record Tx(long offset, int length, PageDescriptor[] pages) {
    }

    /** What recovery built: the index, and whether the datafile is intact. */
    public record Outcome(OpenPageIndex index, long validEnd, int extents, int recoveredUnjournaled,
                          int damagedExtents, boolean journalRewritten) {
    }

    public static Outcome rebuild(FileIo io, DataFile df, Path journalV1, MetricRegistry registry,
                                  RecoveryReport report, boolean repair) throws IOException {
        String dfName = df.path().toString();
        int tier = df.tier();
        int fileno = df.fileno();
        List<Tx> txs = new ArrayList<>();
        boolean journalOk = false;
        if (io.exists(journalV1)) {
            try {
                JournalV1Reader.Result r = JournalV1Reader.replay(io, journalV1, tier, fileno,
                        (seq, off, len, pages, n) -> {
                            PageDescriptor[] copy = new PageDescriptor[n];
                            for (int i = 0; i < n; i++) {
                                copy[i] = copyOf(pages[i]);
                            }
                            txs.add(new Tx(off, len, copy));
                        });
                journalOk = r.problem() == null;
                if (!journalOk) {
                    report.add(journalV1.toString(), r.end(), "journal v1: " + r.problem(),
                            "transactions after it are ignored; the datafile is scanned for their extents");
                }
            } catch (CorruptionException e) {
                report.add(journalV1.toString(), e.offset(), "journal v1: " + e.problem(),
                        "ignored; the datafile is scanned for its extents");
            }
        } else {
            report.note(journalV1 + ": missing; " + (repair ? "rebuilt" : "at start the engine rebuilds it")
                    + " from the extents of " + df.path().getFileName());
        }

        OpenPageIndex index = new OpenPageIndex(registry);
        ExtentReader reader = new ExtentReader();
        long size = df.size();
        long pos = DiskFormat.DATAFILE_SUPERBLOCK_SIZE;
        int txi = 0;
        int extents = 0;
        int unjournaled = 0;
        int damaged = 0;
        boolean consistent = journalOk;
        ByteBuffer hdr = ByteBuffer.allocate(DiskFormat.EXTENT_HEADER_SIZE).order(ByteOrder.LITTLE_ENDIAN);
        while (pos < size) {
            while (txi < txs.size() && txs.get(txi).offset < pos) {
                // A transaction pointing into the middle of what we already walked cannot be right.
                consistent = false;
                txi++;
            }
            Tx tx = txi < txs.size() && txs.get(txi).offset == pos ? txs.get(txi) : null;
            int len;
            if (tx != null) {
                len = tx.length;
                txi++;
            } else {
                consistent = false;
                len = -1;
                if (size - pos >= DiskFormat.EXTENT_HEADER_SIZE) {
                    hdr.clear();
                    df.read(hdr, pos);
                    hdr.flip();
                    try {
                        len = ExtentReader.totalLength(hdr, dfName, pos);
                    } catch (CorruptionException e) {
                        len = -1;
                    }
                }
            }
            if (len > 0 && pos + len <= size) {
                ByteBuffer ext = df.read(pos, len);
                try {
                    reader.open(ext, dfName, pos);
                    PageDescriptor[] ds = new PageDescriptor[reader.pageCount()];
                    for (int i = 0; i < ds.length; i++) {
                        ds[i] = reader.descriptor(i);
                    }
                    index.addExtent(pos, len, ds, ds.length);
                    extents++;
                    if (tx == null) {
                        unjournaled++;
                    }
                    pos += len;
                    continue;
                } catch (CorruptionException e) {
                    damaged++;
                    consistent = false;
                    List<RecoveryReport.LostRange> lost = lostFrom(tx, ext, tier);
                    long next = pos + len;
                    if (tx == null) {
                        // The length came from the damaged header itself: do not trust it, find
                        // where the next intact extent really starts.
                        long found = resync(df, pos + 1, size, reader, dfName);
                        next = found > 0 ? found : size;
                    }
                    boolean tail = next >= size && tx == null;
                    String action = tail ? (repair ? "no intact extent follows: cut the datafile at offset " + pos
                            : "no intact extent follows (left as is, read-only)")
                            : "skipped " + (next - pos) + " bytes" + (tx != null ? " (the journaled extent)"
                            : " up to the next intact extent") + ", kept the rest of the file";
                    report.add(new RecoveryReport.Finding(dfName, pos, e.problem(), action, lost));
                    if (tail && repair) {
                        df.truncate(pos);
                        size = pos;
                        next = pos;
                    }
                    pos = next;
                    continue;
                }
            }
            // Cannot tell where the next extent starts from here: look for the next place where
            // an extent with a valid checksum begins, so that nothing intact after a damaged
            // region is dropped. Only a tail with no intact extent in it is cut.
            consistent = false;
            long found = resync(df, pos + 1, size, reader, dfName);
            if (found > 0) {
                damaged++;
                List<RecoveryReport.LostRange> lost = lostFrom(tx, null, tier);
                if (lost.isEmpty()) {
                    lost = lostFrom(null, readHeaderBytes(df, pos, found), tier);
                }
                report.add(new RecoveryReport.Finding(dfName, pos, "unreadable bytes before the next intact extent",
                        "skipped " + (found - pos) + " bytes", lost));
                pos = found;
                continue;
            }
            Tx next = null;
            while (txi < txs.size()) {
                if (txs.get(txi).offset > pos) {
                    next = txs.get(txi);
                    break;
                }
                txi++;
            }
            if (next != null && next.offset < size) {
                damaged++;
                report.add(new RecoveryReport.Finding(dfName, pos, "unreadable bytes before the next journaled extent",
                        "skipped " + (next.offset - pos) + " bytes", List.of()));
                pos = next.offset;
                continue;
            }
            List<RecoveryReport.LostRange> lost = new ArrayList<>();
            for (int i = txi; i < txs.size(); i++) {
                lost.addAll(lostFrom(txs.get(i), null, tier));
            }
            if (tx != null) {
                lost.addAll(lostFrom(tx, null, tier));
            }
            if (lost.isEmpty()) {
                lost.addAll(lostFrom(null, readHeaderBytes(df, pos, size), tier));
            }
            damaged++;
            report.add(new RecoveryReport.Finding(dfName, pos, (tx != null ? "journaled extent runs past the end of the file"
                    : "incomplete extent at the end of the file") + " (" + (size - pos) + " bytes)",
                    repair ? "cut the datafile at offset " + pos : "left as is (read-only)", lost));
            if (repair) {
                df.truncate(pos);
            }
            size = pos;
            break;
        }
        if (txi < txs.size()) {
            List<RecoveryReport.LostRange> lost = new ArrayList<>();
            for (int i = txi; i < txs.size(); i++) {
                lost.addAll(lostFrom(txs.get(i), null, tier));
            }
            consistent = false;
            report.add(new RecoveryReport.Finding(journalV1.toString(), txs.get(txi).offset,
                    (txs.size() - txi) + " journaled extent(s) lie beyond the end of the datafile",
                    "their transactions are dropped", lost));
        }
        boolean rewritten = false;
        if (repair && (!consistent || unjournaled > 0)) {
            rewriteJournal(io, journalV1, tier, fileno, df, index);
            rewritten = true;
            report.note(journalV1 + ": rewritten from the " + extents + " intact extent(s) of " + df.path().getFileName());
        }
        return new Outcome(index, pos, extents, unjournaled, damaged, rewritten);
    }

    /**
     * The offset of the first extent at or after {@code from} whose magic, length and checksum
     * hold, or -1. Reads the file in windows; runs only over damaged regions.
     */
    private static long resync(DataFile df, long from, long size, ExtentReader reader, String name) throws IOException {
        int window = 1 << 20;
        ByteBuffer hdr = ByteBuffer.allocate(DiskFormat.EXTENT_HEADER_SIZE).order(ByteOrder.LITTLE_ENDIAN);
        for (long base = from; base < size - DiskFormat.EXTENT_HEADER_SIZE; base += window - 3) {
            int n = (int) Math.min(window, size - base);
            ByteBuffer w = df.read(base, n);
            for (int i = 0; i + 4 <= n; i++) {
                if (w.getInt(i) != DiskFormat.EXTENT_MAGIC) {
                    continue;
                }
                long at = base + i;
                if (size - at < DiskFormat.EXTENT_HEADER_SIZE) {
                    return -1;
                }
                hdr.clear();
                df.read(hdr, at);
                hdr.flip();
                int len;
                try {
                    len = ExtentReader.totalLength(hdr, name, at);
                } catch (CorruptionException e) {
                    continue;
                }
                if (at + len > size) {
                    continue;
                }
                try {
                    reader.open(df.read(at, len), name, at);
                    return at;
                } catch (CorruptionException e) {
                    // a magic inside data, or another damaged extent: keep looking
                }
            }
        }
        return -1;
    }

    private static ByteBuffer readHeaderBytes(DataFile df, long pos, long size) throws IOException {
        int n = (int) Math.min(size - pos, DiskFormat.EXTENT_HEADER_SIZE
                + (long) DiskFormat.EXTENT_MAX_PAGES * DiskFormat.PAGE_DESCRIPTOR_SIZE);
        return n <= 0 ? null : df.read(pos, n);
    }

    /** The metrics and times of a damaged extent, from its transaction or from its own header. */
    private static List<RecoveryReport.LostRange> lostFrom(Tx tx, ByteBuffer ext, int tier) {
        List<RecoveryReport.LostRange> out = new ArrayList<>();
        if (tx != null) {
            for (PageDescriptor d : tx.pages) {
                out.add(new RecoveryReport.LostRange(new UUID(d.uuidMsb, d.uuidLsb), tier, d.startTime, d.endTime()));
            }
            return out;
        }
        if (ext == null || ext.remaining() < DiskFormat.EXTENT_HEADER_SIZE) {
            return out;
        }
        ByteBuffer b = ext.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        if (b.getInt(0) != DiskFormat.EXTENT_MAGIC) {
            return out;
        }
        int n = Short.toUnsignedInt(b.getShort(6));
        PageDescriptor d = new PageDescriptor();
        for (int i = 0; i < n && i < DiskFormat.EXTENT_MAX_PAGES; i++) {
            int at = DiskFormat.EXTENT_HEADER_SIZE + i * DiskFormat.PAGE_DESCRIPTOR_SIZE;
            if (at + DiskFormat.PAGE_DESCRIPTOR_SIZE > b.limit()) {
                break;
            }
            d.read(b, at);
            if (d.validate() == null) {
                out.add(new RecoveryReport.LostRange(new UUID(d.uuidMsb, d.uuidLsb), tier, d.startTime, d.endTime()));
            }
        }
        return out;
    }

    private static PageDescriptor copyOf(PageDescriptor p) {
        PageDescriptor c = new PageDescriptor();
        c.uuidMsb = p.uuidMsb;
        c.uuidLsb = p.uuidLsb;
        c.startTime = p.startTime;
        c.updateEvery = p.updateEvery;
        c.entries = p.entries;
        c.type = p.type;
        c.encodedLength = p.encodedLength;
        return c;
    }

    /** Writes a fresh journal v1 for the intact extents, then replaces the old one. */
    private static void rewriteJournal(FileIo io, Path journalV1, int tier, int fileno, DataFile df,
                                       OpenPageIndex index) throws IOException {
        Path dir = journalV1.getParent();
        Path tmpDir = dir.resolve(".rebuild-" + tier + "-" + fileno);
        io.createDirectories(tmpDir);
        ExtentReader reader = new ExtentReader();
        try (JournalV1Writer w = JournalV1Writer.create(io, tmpDir, tier, fileno)) {
            PageDescriptor[] ds = new PageDescriptor[DiskFormat.EXTENT_MAX_PAGES];
            for (int e = 0; e < index.extentCount(); e++) {
                long off = index.extentOffset(e);
                int len = index.extentLength(e);
                try {
                    reader.open(df.read(off, len), df.path().toString(), off);
                } catch (CorruptionException ex) {
                    throw new IOException("extent changed under recovery: " + ex.getMessage(), ex);
                }
                for (int i = 0; i < reader.pageCount(); i++) {
                    ds[i] = reader.descriptor(i);
                }
                w.append(off, len, ds, reader.pageCount());
            }
            w.sync();
        }
        io.rename(tmpDir.resolve(DiskFormat.journalV1Name(tier, fileno)), journalV1);
        io.delete(tmpDir);
        io.syncDirectory(dir);
    }
}
