package io.strata.engine.verify;

import io.strata.engine.CorruptionException;
import io.strata.engine.DiskFormat;
import io.strata.engine.datafile.DataFile;
import io.strata.engine.datafile.OpenPageIndex;
import io.strata.engine.extent.ExtentReader;
import io.strata.engine.io.FileHandle;
import io.strata.engine.io.FileIo;
import io.strata.engine.io.ForwardingFileHandle;
import io.strata.engine.io.ForwardingFileIo;

import io.strata.engine.journal.JournalV2;
import io.strata.engine.meta.MetadataStore;
import io.strata.engine.page.StorageNumber;
import io.strata.engine.recovery.DatafileRecovery;
import io.strata.engine.recovery.RecoveryReport;
import io.strata.engine.registry.MetricRegistry;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.nio.file.Files;

/**
 * Checks a database directory without changing it: every superblock, journal v1 transaction,
 * journal v2 index, extent checksum and page encoding, and the metadata log. Reports per tier
 * the datafiles, journals, extents, pages, points and bytes on disk, and every inconsistency.
 *
 * <p>Read-only by construction: every file of the database directory is reached through a
 * {@link FileIo} that opens files for reading only and refuses every write, truncation, rename,
 * deletion and directory creation; the metadata log is replayed from a copy in a temporary
 * directory (replaying cuts a damaged tail).
 */
public final class DbVerifier {

    private DbVerifier() {
    }

    /** Totals of one tier. */
    public record TierSummary(int tier, int datafiles, int journalsV1, int journalsV2, long extents, long pages,
                              long points, long gapPoints, long bytesOnDisk, long datafileBytes) {
        /** Bytes on disk (datafiles and journals) per stored point, gaps included. */
        public double bytesPerSample() {
            return points == 0 ? 0 : (double) bytesOnDisk / points;
        }
    }

    /** The whole answer. */
    public record Result(Path dir, List<TierSummary> tiers, List<String> errors, List<String> notes, int hosts,
                         int charts, int dimensions) {
        public boolean intact() {
            return errors.isEmpty();
        }
    }

    public static Result verify(FileIo fileIo, Path dir) throws IOException {
        return verify(fileIo, dir, null);
    }

    /**
     * Verifies the database in {@code dir} whose tier {@code t} lives in {@code tierDirs[t]} when
     * that is not null ({@code [db] dbengine tier N directory}), else in {@code dir/tier<t>}.
     */
    public static Result verify(FileIo fileIo, Path dir, Path[] tierDirs) throws IOException {
        FileIo io = new ReadOnlyIo(fileIo);
        if (!io.exists(dir)) {
            throw new IOException(dir + ": no such directory");
        }
        List<String> errors = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        List<TierSummary> tiers = new ArrayList<>();
        RecoveryReport metaReport = new RecoveryReport();
        int hosts = 0;
        int charts = 0;
        int dims = 0;
        if (io.exists(dir.resolve(DiskFormat.METADATA_FILE))) {
            // Read a copy: opening the store cuts a damaged tail, which verification must not do.
            MetricRegistry reg = new MetricRegistry(5);
            Path tmp = Files.createTempDirectory("strata-verify-");
            try {
                Files.copy(dir.resolve(DiskFormat.METADATA_FILE), tmp.resolve(DiskFormat.METADATA_FILE));
                try (MetadataStore md = MetadataStore.open(fileIo, tmp, reg, metaReport)) {
                    hosts = md.hosts().size();
                    charts = md.chartCount();
                    dims = md.dimensionCount();
                }
            } finally {
                for (Path p : fileIo.list(tmp)) {
                    fileIo.delete(p);
                }
                fileIo.delete(tmp);
            }
            // The store's findings describe what it did to the copy; say what the engine would do.
            for (RecoveryReport.Finding f : metaReport.findings()) {
                errors.add(dir.resolve(DiskFormat.METADATA_FILE) + " @" + f.offset() + ": " + f.problem()
                        + " -> left as is (read-only); at start the engine would: "
                        + f.action().replace(tmp.resolve(DiskFormat.METADATA_FILE).toString(),
                                dir.resolve(DiskFormat.METADATA_FILE).toString()));
            }
        } else {
            notes.add(dir.resolve(DiskFormat.METADATA_FILE) + ": missing");
        }
        for (int t = 0; t < 5; t++) {
            Path tdir = tierDirs != null && t < tierDirs.length && tierDirs[t] != null ? tierDirs[t]
                    : dir.resolve("tier" + t);
            if (!io.exists(tdir)) {
                if (tierDirs != null && t < tierDirs.length && tierDirs[t] != null) {
                    notes.add(tdir + ": tier " + t + "'s directory (configured) does not exist");
                }
                continue;
            }
            tiers.add(verifyTier(io, tdir, t, errors, notes));
        }
        return new Result(dir, tiers, errors, notes, hosts, charts, dims);
    }

    private static TierSummary verifyTier(FileIo io, Path tdir, int tier, List<String> errors, List<String> notes)
            throws IOException {
        int datafiles = 0;
        int v1s = 0;
        int v2s = 0;
        long extents = 0;
        long pages = 0;
        long points = 0;
        long gaps = 0;
        long bytes = 0;
        long dfBytes = 0;
        MetricRegistry reg = new MetricRegistry(5);
        ExtentReader reader = new ExtentReader();
        int[] pts = new int[DiskFormat.pagePoints(0)];
        int[] pts1 = new int[4 * DiskFormat.pagePoints(1)];
        for (Path p : io.list(tdir)) {
            bytes += io.size(p);
            String name = p.getFileName().toString();
            if (name.endsWith(DiskFormat.JOURNAL_V1_SUFFIX)) {
                v1s++;
            } else if (name.endsWith(DiskFormat.JOURNAL_V2_SUFFIX)) {
                v2s++;
            }
            int fileno = DiskFormat.parseDatafileNumber(name, tier);
            if (fileno < 0) {
                continue;
            }
            datafiles++;
            dfBytes += io.size(p);
            RecoveryReport rep = new RecoveryReport();
            DataFile df;
            try {
                df = DataFile.open(io, p, tier, fileno);
            } catch (CorruptionException e) {
                errors.add(e.getMessage());
                df = DataFile.openUnchecked(io, p, tier, fileno);
            }
            try {
                Path v1 = tdir.resolve(DiskFormat.journalV1Name(tier, fileno));
                Path v2 = tdir.resolve(DiskFormat.journalV2Name(tier, fileno));
                DatafileRecovery.Outcome o = DatafileRecovery.rebuild(io, df, v1, reg, rep, false);
                OpenPageIndex idx = o.index();
                if (io.exists(v2)) {
                    try (JournalV2 j2 = JournalV2.open(io, v2, tier, fileno, df.size())) {
                        if (j2.pageCount() != idx.pageCount() || j2.extentCount() != idx.extentCount()) {
                            errors.add(v2 + ": indexes " + j2.extentCount() + " extents / " + j2.pageCount()
                                    + " pages, the datafile holds " + idx.extentCount() + " / " + idx.pageCount());
                        }
                    } catch (CorruptionException e) {
                        errors.add(e.getMessage());
                    }
                } else if (o.extents() > 0) {
                    notes.add(v2 + ": missing (the datafile was open, or its index was not written); "
                            + "the engine rebuilds it from journal v1 at start");
                }
                for (int e = 0; e < idx.extentCount(); e++) {
                    long off = idx.extentOffset(e);
                    int len = idx.extentLength(e);
                    try {
                        reader.open(df.read(off, len), p.toString(), off);
                        extents++;
                        for (int i = 0; i < reader.pageCount(); i++) {
                            pages++;
                            if (reader.descriptor(i).type == DiskFormat.PAGE_TYPE_TIER0) {
                                int n = reader.decodeTier0(i, pts);
                                points += n;
                                for (int k = 0; k < n; k++) {
                                    if (pts[k] == StorageNumber.SN_EMPTY_SLOT) {
                                        gaps++;
                                    }
                                }
                            } else {
                                int n = reader.decodeTier1(i, pts1);
                                points += n;
                                for (int k = 0; k < n; k++) {
                                    if ((pts1[4 * k + 3] & 0xFFFF) == 0) {
                                        gaps++;
                                    }
                                }
                            }
                        }
                    } catch (CorruptionException ex) {
                        errors.add(ex.getMessage());
                    }
                }
            } finally {
                df.close();
            }
            for (RecoveryReport.Finding f : rep.findings()) {
                errors.add(f.toString());
            }
            notes.addAll(rep.notes());
        }
        return new TierSummary(tier, datafiles, v1s, v2s, extents, pages, points, gaps, bytes, dfBytes);
    }

    /** Refused: verification must not change the database. */
    private static IOException refused(String what, Path path) {
        return new IOException("verify is read-only: refused to " + what + " " + path);
    }

    /**
     * Opens every file read-only (whatever mode the caller asks for) and refuses every change, so
     * that no code path of recovery can modify the verified directory, and so that a directory
     * the user may only read (a backup, another user's files) can be verified.
     */
    private static final class ReadOnlyIo extends ForwardingFileIo {
        ReadOnlyIo(FileIo io) {
            super(io);
        }

        @Override
        public FileHandle open(Path path, OpenMode mode) throws IOException {
            if (mode == OpenMode.CREATE_NEW) {
                throw refused("create", path);
            }
            return new ReadOnlyHandle(delegate.open(path, OpenMode.READ));
        }

        @Override
        public void rename(Path from, Path to) throws IOException {
            throw refused("rename", from);
        }

        @Override
        public boolean delete(Path path) throws IOException {
            throw refused("delete", path);
        }

        @Override
        public void createDirectories(Path dir) throws IOException {
            throw refused("create the directory", dir);
        }

        @Override
        public void syncDirectory(Path dir) throws IOException {
            throw refused("sync the directory", dir);
        }
    }

    private static final class ReadOnlyHandle extends ForwardingFileHandle {
        ReadOnlyHandle(FileHandle h) {
            super(h);
        }

        @Override
        public int write(ByteBuffer src, long position) throws IOException {
            throw refused("write", path());
        }

        @Override
        public void sync() throws IOException {
            throw refused("sync", path());
        }

        @Override
        public void truncate(long size) throws IOException {
            throw refused("truncate", path());
        }
    }
}
