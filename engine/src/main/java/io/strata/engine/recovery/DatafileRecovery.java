package io.strata.engine.recovery;

import io.strata.engine.CorruptionException;
import io.strata.engine.DiskFormat;
import io.strata.engine.datafile.DataFile;
import io.strata.engine.datafile.OpenPageIndex;
import io.strata.engine.extent.ExtentReader;
import io.strata.engine.extent.ExtentTable;
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
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

/**
 * Rebuilds the page index of a datafile that has no trustworthy journal v2: walks the datafile
 * from its superblock to its end, extent by extent, taking each extent's length from its journal
 * v1 transaction where that is intact and from the extent's own table where not. Every extent
 * whose checksums hold is indexed (including extents written before a crash cut off their
 * journal transaction); every damaged one is reported with the metrics and times it held, as
 * far as its transaction or table still says. Where the chain of extents breaks, the walk looks
 * for the next intact extent; only a tail with no intact extent in it is cut. Journal v1 is
 * rewritten when it did not match the datafile.
 *
 * <p>Pages name their metric by its number in the datafile's metric table; the numbers are
 * resolved once the whole datafile and journal are read, from every intact extent and journal
 * transaction that defines them. A page whose number nothing intact defines is reported lost
 * under the nil UUID (its metric is unknown), with its times.
 */
public final class DatafileRecovery {

    private DatafileRecovery() {
    }

    private record Tx(long offset, int length, ExtentTable table) {
    }

    private record Found(long offset, int length, ExtentTable table) {
    }

    /** A damaged place whose lost pages are resolved to metrics at the end of the walk. */
    private record Pending(String file, long offset, String problem, String action, List<ExtentTable> tables,
                           boolean trusted) {
    }

    /** What recovery built: the index, and whether the datafile is intact. */
    public record Outcome(OpenPageIndex index, long validEnd, int extents, int recoveredUnjournaled,
                          int damagedExtents, boolean journalRewritten) {
    }

    /** Metric number to UUID, from intact tables only. */
    private static final class Definitions {
        long[] msb = new long[256];
        long[] lsb = new long[256];
        boolean[] known = new boolean[256];

        void addAll(ExtentTable t) {
            for (int i = 0; i < t.definitionCount; i++) {
                int n = t.definitionNumber[i];
                if (n >= known.length) {
                    int size = Math.max(n + 1, known.length * 2);
                    msb = Arrays.copyOf(msb, size);
                    lsb = Arrays.copyOf(lsb, size);
                    known = Arrays.copyOf(known, size);
                }
                msb[n] = t.definitionMsb[i];
                lsb[n] = t.definitionLsb[i];
                known[n] = true;
            }
        }

        boolean resolve(int n, PageDescriptor d) {
            if (n >= 0 && n < known.length && known[n]) {
                d.uuidMsb = msb[n];
                d.uuidLsb = lsb[n];
                return true;
            }
            d.uuidMsb = 0;
            d.uuidLsb = 0;
            return false;
        }
    }

    public static Outcome rebuild(FileIo io, DataFile df, Path journalV1, MetricRegistry registry,
                                  RecoveryReport report, boolean repair) throws IOException {
        String dfName = df.path().toString();
        int tier = df.tier();
        int fileno = df.fileno();
        List<Tx> txs = new ArrayList<>();
        Definitions defs = new Definitions();
        boolean journalOk = false;
        if (io.exists(journalV1)) {
            try {
                JournalV1Reader.Result r = JournalV1Reader.replay(io, journalV1, tier, fileno,
                        (seq, type, off, len, table) -> {
                            defs.addAll(table);
                            if (type == DiskFormat.JOURNAL_V1_TX_EXTENT_STORED) {
                                txs.add(new Tx(off, len, table.copy()));
                            }
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

        List<Found> found = new ArrayList<>();
        List<Pending> pending = new ArrayList<>();
        ExtentReader reader = new ExtentReader();
        long size = df.size();
        long pos = DiskFormat.DATAFILE_SUPERBLOCK_SIZE;
        int txi = 0;
        int unjournaled = 0;
        int damaged = 0;
        boolean consistent = journalOk;
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
                len = lengthAt(df, pos, size, reader, dfName);
            }
            if (len > 0 && pos + len <= size) {
                ByteBuffer ext = df.read(pos, len);
                try {
                    reader.open(ext, dfName, pos);
                    ExtentTable t = reader.table().copy();
                    defs.addAll(t);
                    found.add(new Found(pos, len, t));
                    if (tx == null) {
                        unjournaled++;
                    }
                    pos += len;
                    continue;
                } catch (CorruptionException e) {
                    damaged++;
                    consistent = false;
                    long next = pos + len;
                    if (tx == null) {
                        // The length came from the damaged extent itself: do not trust it, find
                        // where the next intact extent really starts.
                        long at = resync(df, pos + 1, size, reader, dfName);
                        next = at > 0 ? at : size;
                    }
                    boolean tail = next >= size && tx == null;
                    String action = tail ? (repair ? "no intact extent follows: cut the datafile at offset " + pos
                            : "no intact extent follows (left as is, read-only)")
                            : "skipped " + (next - pos) + " bytes" + (tx != null ? " (the journaled extent)"
                            : " up to the next intact extent") + ", kept the rest of the file";
                    pending.add(lost(dfName, pos, e.problem(), action, tx, ext));
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
            // an extent with valid checksums begins, so that nothing intact after a damaged
            // region is dropped. Only a tail with no intact extent in it is cut.
            consistent = false;
            long at = resync(df, pos + 1, size, reader, dfName);
            if (at > 0) {
                damaged++;
                pending.add(lost(dfName, pos, "unreadable bytes before the next intact extent",
                        "skipped " + (at - pos) + " bytes", tx, tx != null ? null : readHeaderBytes(df, pos, at)));
                pos = at;
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
                pending.add(lost(dfName, pos, "unreadable bytes before the next journaled extent",
                        "skipped " + (next.offset - pos) + " bytes", tx, null));
                pos = next.offset;
                continue;
            }
            List<ExtentTable> tables = new ArrayList<>();
            for (int i = txi; i < txs.size(); i++) {
                tables.add(txs.get(i).table);
            }
            if (tx != null) {
                tables.add(tx.table);
            }
            boolean trusted = !tables.isEmpty();
            if (tables.isEmpty()) {
                ExtentTable salvaged = salvage(readHeaderBytes(df, pos, size));
                if (salvaged != null) {
                    tables.add(salvaged);
                }
            }
            damaged++;
            pending.add(new Pending(dfName, pos, (tx != null ? "journaled extent runs past the end of the file"
                    : "incomplete extent at the end of the file") + " (" + (size - pos) + " bytes)",
                    repair ? "cut the datafile at offset " + pos : "left as is (read-only)", tables, trusted));
            if (repair) {
                df.truncate(pos);
            }
            size = pos;
            break;
        }
        if (txi < txs.size()) {
            List<ExtentTable> tables = new ArrayList<>();
            for (int i = txi; i < txs.size(); i++) {
                tables.add(txs.get(i).table);
            }
            consistent = false;
            pending.add(new Pending(journalV1.toString(), txs.get(txi).offset,
                    (txs.size() - txi) + " journaled extent(s) lie beyond the end of the datafile",
                    "their transactions are dropped", tables, true));
        }

        // Every definition is known now: resolve the pages of the intact extents.
        OpenPageIndex index = new OpenPageIndex(registry);
        boolean[] definedByIntact = new boolean[defs.known.length];
        for (Found f : found) {
            for (int i = 0; i < f.table.definitionCount; i++) {
                definedByIntact[f.table.definitionNumber[i]] = true;
            }
        }
        List<Integer> orphans = new ArrayList<>();
        for (Found f : found) {
            ExtentTable t = f.table;
            List<RecoveryReport.LostRange> unknown = new ArrayList<>();
            for (int i = 0; i < t.pageCount; i++) {
                PageDescriptor d = t.pages[i];
                if (!defs.resolve(d.metric, d)) {
                    unknown.add(new RecoveryReport.LostRange(new UUID(0, 0), tier, d.startTime, d.endTime()));
                } else if (!definedByIntact[d.metric]) {
                    definedByIntact[d.metric] = true;
                    orphans.add(d.metric);
                }
            }
            index.addExtent(f.offset, f.length, t.pages, t.pageCount);
            if (!unknown.isEmpty()) {
                damaged++;
                consistent = false;
                report.add(new RecoveryReport.Finding(dfName, f.offset, unknown.size() + " page(s) of an intact extent "
                        + "name metrics whose definition was in damaged extents and transactions only",
                        "their points are kept out of the index (their metric is unknown)", unknown));
            }
        }
        for (Pending p : pending) {
            List<RecoveryReport.LostRange> lost = new ArrayList<>();
            long[] uuid = new long[2];
            for (ExtentTable t : p.tables) {
                for (int i = 0; i < t.pageCount; i++) {
                    PageDescriptor d = t.pages[i];
                    UUID u;
                    if (defs.resolve(d.metric, d)) {
                        u = new UUID(d.uuidMsb, d.uuidLsb);
                    } else if (t.definition(d.metric, uuid)) {
                        // only the damaged table itself names it: the best there is to report
                        u = new UUID(uuid[0], uuid[1]);
                    } else {
                        u = new UUID(0, 0);
                    }
                    lost.add(new RecoveryReport.LostRange(u, tier, d.startTime, d.endTime()));
                }
            }
            report.add(new RecoveryReport.Finding(p.file, p.offset, p.problem, p.action, lost));
        }
        boolean rewritten = false;
        if (repair && (!consistent || unjournaled > 0 || !orphans.isEmpty())) {
            ExtentTable orphanDefs = new ExtentTable();
            orphans.sort(null);
            for (int n : orphans) {
                orphanDefs.define(n, defs.msb[n], defs.lsb[n]);
            }
            rewriteJournal(io, journalV1, tier, fileno, df, index, orphanDefs);
            rewritten = true;
            report.note(journalV1 + ": rewritten from the " + found.size() + " intact extent(s) of "
                    + df.path().getFileName());
        }
        return new Outcome(index, pos, found.size(), unjournaled, damaged, rewritten);
    }

    /** The total length of the extent whose table starts at {@code pos}, or -1 when it cannot be read. */
    private static int lengthAt(DataFile df, long pos, long size, ExtentReader reader, String name) throws IOException {
        int n = (int) Math.min(size - pos, DiskFormat.EXTENT_MAX_HEADER);
        if (n < DiskFormat.EXTENT_PREFIX_SIZE) {
            return -1;
        }
        try {
            return reader.readTable(df.read(pos, n), name, pos);
        } catch (CorruptionException e) {
            return -1;
        }
    }

    private static Pending lost(String file, long offset, String problem, String action, Tx tx, ByteBuffer ext) {
        List<ExtentTable> tables = new ArrayList<>();
        if (tx != null) {
            tables.add(tx.table);
        } else {
            ExtentTable t = salvage(ext);
            if (t != null) {
                tables.add(t);
            }
        }
        return new Pending(file, offset, problem, action, tables, tx != null);
    }

    private static ExtentTable salvage(ByteBuffer ext) {
        return ext == null ? null : ExtentReader.salvageTable(ext);
    }

    /**
     * The offset of the first extent at or after {@code from} whose magic, table and checksums
     * hold, or -1. Reads the file in windows; runs only over damaged regions.
     */
    private static long resync(DataFile df, long from, long size, ExtentReader reader, String name) throws IOException {
        int window = 1 << 20;
        for (long base = from; base < size - DiskFormat.EXTENT_PREFIX_SIZE; base += window - 3) {
            int n = (int) Math.min(window, size - base);
            ByteBuffer w = df.read(base, n);
            for (int i = 0; i + 4 <= n; i++) {
                if (w.getInt(i) != DiskFormat.EXTENT_MAGIC) {
                    continue;
                }
                long at = base + i;
                int len = lengthAt(df, at, size, reader, name);
                if (len <= 0 || at + len > size) {
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

    private static ByteBuffer readHeaderBytes(DataFile df, long pos, long end) throws IOException {
        int n = (int) Math.min(end - pos, DiskFormat.EXTENT_MAX_HEADER);
        return n <= 0 ? null : df.read(pos, n).order(ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * Writes a fresh journal v1 for the intact extents (each transaction carries the extent's own
     * table, re-read from the datafile), preceded by the definitions that no intact extent carries
     * any more, then replaces the old one.
     */
    private static void rewriteJournal(FileIo io, Path journalV1, int tier, int fileno, DataFile df,
                                       OpenPageIndex index, ExtentTable orphanDefs) throws IOException {
        Path dir = journalV1.getParent();
        Path tmpDir = dir.resolve(".rebuild-" + tier + "-" + fileno);
        io.createDirectories(tmpDir);
        ExtentReader reader = new ExtentReader();
        try (JournalV1Writer w = JournalV1Writer.create(io, tmpDir, tier, fileno)) {
            ExtentTable part = new ExtentTable();
            for (int i = 0; i < orphanDefs.definitionCount; i++) {
                part.define(orphanDefs.definitionNumber[i], orphanDefs.definitionMsb[i], orphanDefs.definitionLsb[i]);
                if (part.definitionCount == 1024 || i == orphanDefs.definitionCount - 1) {
                    w.appendDefinitions(part);
                    part.clearDefinitions();
                }
            }
            for (int e = 0; e < index.extentCount(); e++) {
                long off = index.extentOffset(e);
                int len = index.extentLength(e);
                ByteBuffer ext = df.read(off, len);
                try {
                    reader.open(ext, df.path().toString(), off);
                } catch (CorruptionException ex) {
                    throw new IOException("extent changed under recovery: " + ex.getMessage(), ex);
                }
                ext.position(0);
                w.append(off, ext);
            }
            w.sync();
        }
        io.rename(tmpDir.resolve(DiskFormat.journalV1Name(tier, fileno)), journalV1);
        io.delete(tmpDir);
        io.syncDirectory(dir);
    }
}
