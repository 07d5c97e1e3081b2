package io.strata.engine.disk;

import com.sun.nio.file.ExtendedOpenOption;

import java.io.EOFException;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileStore;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.Set;
import io.strata.engine.thread.StrataThreads;

/**
 * A probe of the disk that holds a directory: what it can do for a time-series store, and how many
 * per-second metrics each storage tier could therefore carry. Usable without the command line
 * ({@code strata disk-check}); it touches nothing but one test file of its own in the directory,
 * which it always deletes (also on error and, through a shutdown hook, on Ctrl-C).
 *
 * <h2>Why these four figures</h2>
 * Disks are tapes: they are fast when written and read in long runs and slow when asked for small
 * pieces at scattered places, and making data durable ({@code fsync}) costs a round trip to the
 * device whatever the amount. DBENGINE is built around that: it collects points in memory pages,
 * compresses many pages into one extent and appends extents to a datafile (sequential writes), reads
 * extents back by offset when a query misses the cache (random reads), and commits journals and
 * datafiles with fsync. So the probe measures:
 * <ol>
 *   <li><b>sequential write</b>: a new file written in 1 MiB writes of incompressible data that never
 *       repeats (a pool of random bytes in which every 4 KiB sector is stamped with its own number, so
 *       that neither a compressing nor a deduplicating filesystem can cheat), then fsync; the time
 *       includes the fsync;</li>
 *   <li><b>sequential read</b>: the file read back in 1 MiB reads (the first word of every block is
 *       checked, so the reads did return the data);</li>
 *   <li><b>random read</b>: 4 KiB reads (or one file-store block, if larger) at aligned, seeded random
 *       offsets of the file, by one or more threads, for a bounded time and count; reported as IOPS;</li>
 *   <li><b>fsync latency</b>: a bounded number (and time) of pairs "write 4 KiB in place at a random
 *       aligned offset, then {@link FileChannel#force(boolean) force(false)}" (fdatasync); reported as
 *       the median and the 99th percentile (nearest rank) of the pair's time.</li>
 * </ol>
 *
 * <h2>The page cache</h2>
 * The machine's RAM would otherwise serve the reads, so the file is opened with {@code O_DIRECT}
 * ({@link ExtendedOpenOption#DIRECT}) and every buffer and offset is aligned to the file store's
 * block size: reads then come from the device, whatever the file's size, and the file can be of a
 * stated size smaller than RAM (default 1 GiB). It is shrunk, and a note says so, when the directory
 * has less than twice that size free. Where O_DIRECT is refused (older tmpfs, some network and
 * FUSE filesystems), the probe falls back to buffered I/O and says so
 * ({@link Result#pageCacheBypassed()} false); it then makes the file 2&times; RAM when the disk has
 * room for twice that (so that most reads miss the cache), and otherwise notes that the read figures
 * may be those of the page cache. File systems that live in memory (tmpfs, ramfs) get buffered I/O
 * and that note from the start: tmpfs accepts O_DIRECT since Linux 6.6, but bypasses nothing.
 *
 * <h2>Per tier capacity</h2>
 * See {@link #tierCapacity(double, TierModel)} for the formulas. "MB" means MiB (2<sup>20</sup>
 * bytes) everywhere here, as in the engine's {@code --quota-mb}.
 */
public final class DiskCheck {

    /** Size of the sequential writes and reads. */
    public static final int SEQ_BLOCK = 1 << 20;
    /** Size of the random reads and of the in-place writes of the fsync test (raised to the block size if larger). */
    public static final int SMALL_IO = 4096;
    /** Share of the measured sequential write rate that the tier capacity counts on. */
    public static final double WRITE_RATE_DERATING = 0.5;
    /** Seconds in a day, for {@link TierCapacity#metricsForOneDay()}. */
    public static final long DAY_SECONDS = 86_400;
    /** Prefix of the test file's name in the probed directory. */
    public static final String FILE_PREFIX = ".strata-disk-check-";

    /** File store types that keep their files in memory: no disk to measure, so no page cache to bypass. */
    static final Set<String> MEMORY_FILE_SYSTEMS = Set.of("tmpfs", "ramfs", "devtmpfs", "shm");

    private static final int POOL_BLOCKS = 8;
    private static final long MIB = 1L << 20;

    private DiskCheck() {
    }

    /**
     * The storage tiers the capacity is computed for.
     *
     * @param grouping      points of tier t-1 per point of tier t; tier t's step is {@code grouping^t}
     *                      seconds at a 1 s collection interval
     * @param quotaBytes    per tier, its disk quota in bytes
     * @param bytesPerPoint per tier, the bytes on disk one point takes (compressed pages, extent and
     *                      journal overhead included)
     */
    public record TierModel(int grouping, long[] quotaBytes, double[] bytesPerPoint) {
        /** Bytes per point of this engine, measured with {@code strata bench engine} (tiers 0, 1, 2). */
        public static final double[] DEFAULT_BYTES_PER_POINT = {0.46, 4, 8};
        public static final long DEFAULT_QUOTA_BYTES = 1L << 30;
        public static final int DEFAULT_GROUPING = 60;
        public static final int DEFAULT_TIERS = 3;
        public static final int MAX_TIERS = 5;

        public TierModel {
            if (grouping < 2 || grouping > 255) {
                throw new IllegalArgumentException("tier grouping must be 2..255, got " + grouping);
            }
            if (quotaBytes.length < 1 || quotaBytes.length > MAX_TIERS) {
                throw new IllegalArgumentException("tiers must be 1.." + MAX_TIERS + ", got " + quotaBytes.length);
            }
            if (bytesPerPoint.length != quotaBytes.length) {
                throw new IllegalArgumentException("one quota and one bytes-per-point per tier: " + quotaBytes.length
                        + " quotas, " + bytesPerPoint.length + " bytes-per-point values");
            }
            quotaBytes = quotaBytes.clone();
            bytesPerPoint = bytesPerPoint.clone();
            for (int t = 0; t < quotaBytes.length; t++) {
                if (quotaBytes[t] <= 0) {
                    throw new IllegalArgumentException("the quota of tier " + t + " must be positive, got " + quotaBytes[t]);
                }
                if (!(bytesPerPoint[t] > 0) || !Double.isFinite(bytesPerPoint[t])) {
                    throw new IllegalArgumentException("the bytes per point of tier " + t + " must be positive, got "
                            + bytesPerPoint[t]);
                }
            }
        }

        /**
         * {@code tiers} tiers; each list may be shorter than that (or null), and its last value then
         * stands for the tiers it does not name (quota default 1 GiB, bytes per point default
         * {@link #DEFAULT_BYTES_PER_POINT}); a list longer than {@code tiers} is an error.
         */
        public static TierModel of(int tiers, int grouping, long[] quotaBytes, double[] bytesPerPoint) {
            if (tiers < 1 || tiers > MAX_TIERS) {
                throw new IllegalArgumentException("tiers must be 1.." + MAX_TIERS + ", got " + tiers);
            }
            long[] q = quotaBytes == null || quotaBytes.length == 0 ? new long[]{DEFAULT_QUOTA_BYTES} : quotaBytes;
            double[] b = bytesPerPoint == null || bytesPerPoint.length == 0 ? DEFAULT_BYTES_PER_POINT : bytesPerPoint;
            if (quotaBytes != null && q.length > tiers) {
                throw new IllegalArgumentException(q.length + " quotas given for " + tiers + " tier(s)");
            }
            if (bytesPerPoint != null && bytesPerPoint.length > tiers) {
                throw new IllegalArgumentException(b.length + " bytes-per-point values given for " + tiers + " tier(s)");
            }
            long[] qq = new long[tiers];
            double[] bb = new double[tiers];
            for (int t = 0; t < tiers; t++) {
                qq[t] = q[Math.min(t, q.length - 1)];
                bb[t] = b[Math.min(t, b.length - 1)];
            }
            return new TierModel(grouping, qq, bb);
        }

        public static TierModel defaults() {
            return of(DEFAULT_TIERS, DEFAULT_GROUPING, null, null);
        }

        public int tiers() {
            return quotaBytes.length;
        }

        /** Seconds between two points of tier {@code t}: {@code grouping^t}. */
        public long stepSeconds(int t) {
            long s = 1;
            for (int i = 0; i < t; i++) {
                s *= grouping;
            }
            return s;
        }

        @Override
        public long[] quotaBytes() {
            return quotaBytes.clone();
        }

        @Override
        public double[] bytesPerPoint() {
            return bytesPerPoint.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof TierModel m && m.grouping == grouping && Arrays.equals(m.quotaBytes, quotaBytes)
                    && Arrays.equals(m.bytesPerPoint, bytesPerPoint);
        }

        @Override
        public int hashCode() {
            return 31 * (31 * grouping + Arrays.hashCode(quotaBytes)) + Arrays.hashCode(bytesPerPoint);
        }

        @Override
        public String toString() {
            return "TierModel[grouping=" + grouping + ", quotaBytes=" + Arrays.toString(quotaBytes)
                    + ", bytesPerPoint=" + Arrays.toString(bytesPerPoint) + "]";
        }
    }

    /**
     * What one tier can carry on this disk; see {@link #tierCapacity(double, TierModel)}.
     *
     * @param metricBytesPerSecond           bytes per second one metric adds to the tier: {@code B / step}
     * @param metricsByWriteRate             metrics the derated sequential write rate absorbs
     * @param retentionSecondsPer1000Metrics seconds of history the quota holds for 1000 metrics
     * @param metricsForOneDay               metrics whose one day of history the quota holds
     */
    public record TierCapacity(int tier, long stepSeconds, double bytesPerPoint, long quotaBytes,
                               double metricBytesPerSecond, long metricsByWriteRate,
                               double retentionSecondsPer1000Metrics, long metricsForOneDay) {
    }

    /**
     * What to measure.
     *
     * @param dir               the directory whose disk is probed; the test file is made in it
     * @param sizeBytes         the test file's size (rounded down to whole MiB, at least 1 MiB)
     * @param direct            try O_DIRECT (false: buffered I/O from the start)
     * @param growWithoutDirect without O_DIRECT, make the file 2&times; RAM when the disk has room
     * @param seqMaxSeconds     bound of each sequential phase; the write stops early past it (and the
     *                          file is then shorter, as a note says)
     * @param randomSeconds     duration bound of the random-read phase
     * @param randomMaxReads    count bound of the random-read phase
     * @param queueDepth        random-read threads, each with one read in flight
     * @param fsyncCount        count bound of the fsync phase
     * @param fsyncMaxSeconds   duration bound of the fsync phase (at least one pair is always timed)
     * @param seed              seed of the data, the random offsets and the file name
     * @param tiers             the tiers whose capacity is reported
     */
    public record Options(Path dir, long sizeBytes, boolean direct, boolean growWithoutDirect, double seqMaxSeconds,
                          double randomSeconds, long randomMaxReads, int queueDepth, int fsyncCount,
                          double fsyncMaxSeconds, long seed, TierModel tiers) {
        public static final long DEFAULT_SIZE_BYTES = 1L << 30;

        public Options {
            if (dir == null || tiers == null) {
                throw new IllegalArgumentException("dir and tiers are required");
            }
            if (sizeBytes < MIB) {
                throw new IllegalArgumentException("the test file must be at least 1 MiB, got " + sizeBytes + " bytes");
            }
            if (!(seqMaxSeconds > 0) || !(randomSeconds > 0) || !(fsyncMaxSeconds > 0)) {
                throw new IllegalArgumentException("time bounds must be positive");
            }
            if (randomMaxReads < 1 || fsyncCount < 1) {
                throw new IllegalArgumentException("count bounds must be positive");
            }
            if (queueDepth < 1 || queueDepth > 256) {
                throw new IllegalArgumentException("queue depth must be 1..256, got " + queueDepth);
            }
        }

        /** 1 GiB file, O_DIRECT, 60 s per sequential phase, 5 s (at most 10^6 reads) of random reads at queue depth 1, 200 fsyncs within 20 s. */
        public static Options defaults(Path dir) {
            return new Options(dir, DEFAULT_SIZE_BYTES, true, true, 60, 5, 1_000_000, 1, 200, 20, 42,
                    TierModel.defaults());
        }

        public Options withSizeBytes(long bytes) {
            return new Options(dir, bytes, direct, growWithoutDirect, seqMaxSeconds, randomSeconds, randomMaxReads,
                    queueDepth, fsyncCount, fsyncMaxSeconds, seed, tiers);
        }

        public Options withDirect(boolean tryDirect, boolean grow) {
            return new Options(dir, sizeBytes, tryDirect, grow, seqMaxSeconds, randomSeconds, randomMaxReads,
                    queueDepth, fsyncCount, fsyncMaxSeconds, seed, tiers);
        }

        public Options withSequentialBound(double seconds) {
            return new Options(dir, sizeBytes, direct, growWithoutDirect, seconds, randomSeconds, randomMaxReads,
                    queueDepth, fsyncCount, fsyncMaxSeconds, seed, tiers);
        }

        public Options withRandom(double seconds, long maxReads, int depth) {
            return new Options(dir, sizeBytes, direct, growWithoutDirect, seqMaxSeconds, seconds, maxReads,
                    depth, fsyncCount, fsyncMaxSeconds, seed, tiers);
        }

        public Options withFsync(int count, double maxSeconds) {
            return new Options(dir, sizeBytes, direct, growWithoutDirect, seqMaxSeconds, randomSeconds, randomMaxReads,
                    queueDepth, count, maxSeconds, seed, tiers);
        }

        public Options withSeed(long s) {
            return new Options(dir, sizeBytes, direct, growWithoutDirect, seqMaxSeconds, randomSeconds, randomMaxReads,
                    queueDepth, fsyncCount, fsyncMaxSeconds, s, tiers);
        }

        public Options withTiers(TierModel model) {
            return new Options(dir, sizeBytes, direct, growWithoutDirect, seqMaxSeconds, randomSeconds, randomMaxReads,
                    queueDepth, fsyncCount, fsyncMaxSeconds, seed, model);
        }
    }

    /**
     * What was measured. Rates are in MiB/s (2<sup>20</sup> bytes per second).
     *
     * @param fileSystem        the file store's type as the OS names it (e.g. ext4, tmpfs)
     * @param fileBytes         bytes the test file had (written, read back, read at random)
     * @param requestedBytes    the size asked for
     * @param freeBytes         usable bytes of the file store before the test
     * @param ramBytes          the machine's memory as the JVM sees it (0 when unknown)
     * @param blockSize         the file store's block size, to which O_DIRECT I/O was aligned
     * @param smallIoBytes      size of the random reads and fsync writes (4 KiB, or the block size if larger)
     * @param pageCacheBypassed whether the I/O used O_DIRECT
     * @param notes             everything the figures should be read with (shrunk file, no O_DIRECT, early stops)
     */
    public record Result(Path dir, String fileSystem, long fileBytes, long requestedBytes, long freeBytes, long ramBytes, int blockSize,
                         int smallIoBytes, boolean pageCacheBypassed,
                         double seqWriteMibPerSecond, double seqWriteSeconds,
                         double seqReadMibPerSecond, double seqReadSeconds, long seqReadBytes,
                         double randReadIops, long randReads, double randReadSeconds, int queueDepth,
                         double fsyncMedianMs, double fsyncP99Ms, int fsyncs,
                         double writeRateDerating, List<TierCapacity> tiers, List<String> notes) {
        public Result {
            tiers = List.copyOf(tiers);
            notes = List.copyOf(notes);
        }
    }

    /** The directory cannot be probed: missing, not a directory, or not writable. */
    public static final class UnusableDirectoryException extends IOException {
        private static final long serialVersionUID = 1L;

        public UnusableDirectoryException(String message) {
            super(message);
        }
    }

    /**
     * The capacity of each tier, from the disk's sequential write rate {@code W} (bytes/s) and, per
     * tier {@code t}: step {@code S = grouping^t} seconds, {@code B} bytes on disk per point and quota
     * {@code Q} bytes. One metric adds {@code B / S} bytes per second to tier t, so:
     * <ul>
     *   <li>{@code metrics_by_write_rate = floor(0.5 * W * S / B)}: the metrics whose points the
     *       sequential write rate absorbs, derated to {@value #WRITE_RATE_DERATING} of the measured
     *       rate (the disk also serves reads, journals, other tiers and other programs);</li>
     *   <li>{@code retention_seconds_per_1000_metrics = Q * S / (1000 * B)}: how far back the quota
     *       reaches for 1000 metrics;</li>
     *   <li>{@code metrics_for_one_day = floor(Q / (B * max(1, 86400 / S)))}: the metrics whose day of
     *       history fits in the quota; a day takes {@code 86400 / S} points per metric, and at least one
     *       point where the step exceeds a day (that one point already spans more than the day).</li>
     * </ul>
     * Pure arithmetic, no I/O.
     */
    public static List<TierCapacity> tierCapacity(double writeBytesPerSecond, TierModel model) {
        if (!(writeBytesPerSecond >= 0) || !Double.isFinite(writeBytesPerSecond)) {
            throw new IllegalArgumentException("write rate must be finite and not negative: " + writeBytesPerSecond);
        }
        List<TierCapacity> out = new ArrayList<>();
        long[] quota = model.quotaBytes();
        double[] bpp = model.bytesPerPoint();
        for (int t = 0; t < model.tiers(); t++) {
            long step = model.stepSeconds(t);
            double b = bpp[t];
            long q = quota[t];
            double perMetric = b / step;
            long byWrite = clampToLong(Math.floor(WRITE_RATE_DERATING * writeBytesPerSecond * step / b));
            double retention = (double) q * step / (1000.0 * b);
            double pointsPerDay = Math.max(1.0, (double) DAY_SECONDS / step);
            long forDay = clampToLong(Math.floor(q / (b * pointsPerDay)));
            out.add(new TierCapacity(t, step, b, q, perMetric, byWrite, retention, forDay));
        }
        return out;
    }

    private static long clampToLong(double v) {
        return v >= Long.MAX_VALUE ? Long.MAX_VALUE : (long) v;
    }

    /** Checks that {@code dir} is an existing, writable directory; the message names the problem. */
    public static void checkDirectory(Path dir) throws UnusableDirectoryException {
        if (!Files.exists(dir)) {
            throw new UnusableDirectoryException(dir + ": no such directory");
        }
        if (!Files.isDirectory(dir)) {
            throw new UnusableDirectoryException(dir + ": not a directory");
        }
        if (!Files.isWritable(dir)) {
            throw new UnusableDirectoryException(dir + ": not writable");
        }
    }

    /** Runs the four measurements on a test file in {@code o.dir()} and deletes it. */
    public static Result run(Options o) throws IOException {
        Path dir = o.dir().toAbsolutePath().normalize();
        checkDirectory(dir);
        FileStore store = Files.getFileStore(dir);
        long free = store.getUsableSpace();
        long blockSizeL = store.getBlockSize();
        List<String> notes = new ArrayList<>();

        long requested = o.sizeBytes() / MIB * MIB;
        long size = requested;
        if (free < 2 * size) {
            size = free / 2 / MIB * MIB;
            if (size < MIB) {
                throw new IOException(dir + ": only " + human(free) + " free, too little for a test file of 1 MiB");
            }
            notes.add("the test file is " + human(size) + " instead of " + human(requested) + ": " + dir
                    + " has only " + human(free) + " free and the file takes at most half of it");
        }

        boolean aligned = blockSizeL > 0 && blockSizeL <= SEQ_BLOCK && Long.bitCount(blockSizeL) == 1;
        int align = aligned ? (int) blockSizeL : SMALL_IO;
        int small = Math.max(SMALL_IO, align);
        long ram = totalMemory();

        Path file = dir.resolve(FILE_PREFIX + ProcessHandle.current().pid() + "-"
                + Long.toHexString(new SplittableRandom(o.seed() ^ System.nanoTime()).nextLong() & 0xffffffffL) + ".tmp");
        Thread hook = StrataThreads.newThread(() -> deleteQuietly(file), "strata-disk-check-cleanup");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            try {
                Files.createFile(file);
            } catch (AccessDeniedException e) {
                throw new UnusableDirectoryException(dir + ": not writable (" + e.getMessage() + ")");
            } catch (FileSystemException e) {
                if (e.getReason() != null && e.getReason().toLowerCase(Locale.ROOT).contains("read-only")) {
                    throw new UnusableDirectoryException(dir + ": not writable (read-only file system)");
                }
                throw e;
            }
            FileChannel ch = null;
            boolean direct = false;
            boolean memoryFs = MEMORY_FILE_SYSTEMS.contains(store.type().toLowerCase(Locale.ROOT));
            if (o.direct() && memoryFs) {
                notes.add(dir + " is on " + store.type() + ", which lives in memory (and may accept O_DIRECT without "
                        + "bypassing anything): buffered I/O, the figures are those of memory, not of a disk");
            } else if (o.direct() && aligned) {
                try {
                    ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE,
                            ExtendedOpenOption.DIRECT);
                    direct = true;
                } catch (IOException | UnsupportedOperationException e) {
                    notes.add("O_DIRECT was refused (" + e.getMessage() + "): buffered I/O, the page cache is not bypassed");
                }
            } else if (o.direct()) {
                notes.add("the file store's block size " + blockSizeL + " is not a power of two up to 1 MiB: "
                        + "buffered I/O, the page cache is not bypassed");
            } else {
                notes.add("buffered I/O as asked: the page cache is not bypassed");
            }
            if (ch == null) {
                ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
                if (o.growWithoutDirect() && ram > 0 && !memoryFs) {
                    long want = (2 * ram + MIB - 1) / MIB * MIB;
                    if (want > size && free >= 2 * want) {
                        notes.add("without O_DIRECT the file is made 2x RAM (" + human(want) + " instead of "
                                + human(size) + ") so that most reads miss the page cache");
                        size = want;
                    }
                }
            }
            try (FileChannel c = ch) {
                return measure(o, dir, store.type(), c, direct, size, requested, free, ram, (int) Math.min(Integer.MAX_VALUE, blockSizeL),
                        align, small, notes);
            }
        } finally {
            deleteQuietly(file);
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs (or ran) anyway
            }
        }
    }

    private static Result measure(Options o, Path dir, String fsType, FileChannel ch, boolean direct, long size, long requested,
                                  long free, long ram, int blockSize, int align, int small, List<String> notes)
            throws IOException {
        // ---- sequential write: a pool of random blocks, every 4 KiB sector stamped with its own number
        ByteBuffer pool = aligned(POOL_BLOCKS * SEQ_BLOCK, align);
        SplittableRandom rnd = new SplittableRandom(o.seed());
        for (int i = 0; i + 8 <= pool.capacity(); i += 8) {
            pool.putLong(i, rnd.nextLong());
        }
        ByteBuffer[] blocks = new ByteBuffer[POOL_BLOCKS];
        for (int i = 0; i < POOL_BLOCKS; i++) {
            blocks[i] = pool.slice(i * SEQ_BLOCK, SEQ_BLOCK).order(ByteOrder.LITTLE_ENDIAN);
        }
        long nBlocks = size / SEQ_BLOCK;
        long seqBound = (long) (o.seqMaxSeconds() * 1e9);
        long t0 = System.nanoTime();
        long written = 0;
        for (long i = 0; i < nBlocks; i++) {
            ByteBuffer b = blocks[(int) (i % POOL_BLOCKS)];
            for (int s = 0; s < SEQ_BLOCK; s += SMALL_IO) {
                b.putLong(s, stamp(o.seed(), i * (SEQ_BLOCK / SMALL_IO) + s / SMALL_IO));
            }
            b.clear();
            writeFully(ch, b, i * SEQ_BLOCK);
            written += SEQ_BLOCK;
            if (System.nanoTime() - t0 > seqBound && i + 1 < nBlocks) {
                notes.add("the sequential write stopped after " + o.seqMaxSeconds() + " s at " + human(written)
                        + " of " + human(size));
                break;
            }
        }
        ch.force(true);
        double writeSeconds = seconds(System.nanoTime() - t0);
        long fileBytes = written;
        if (!direct && ram > 0 && fileBytes < 2 * ram) {
            notes.add("the file (" + human(fileBytes) + ") is smaller than 2x RAM (" + human(2 * ram)
                    + ") and the page cache is not bypassed: the read figures may be those of memory, not of the disk");
        }

        // ---- sequential read
        ByteBuffer rb = blocks[0];
        long readBlocks = fileBytes / SEQ_BLOCK;
        long read = 0;
        t0 = System.nanoTime();
        for (long i = 0; i < readBlocks; i++) {
            rb.clear();
            readFully(ch, rb, i * SEQ_BLOCK);
            read += SEQ_BLOCK;
            if (rb.getLong(0) != stamp(o.seed(), i * (SEQ_BLOCK / SMALL_IO))) {
                throw new IOException("the sequential read of block " + i + " returned other data than was written");
            }
            if (System.nanoTime() - t0 > seqBound && i + 1 < readBlocks) {
                notes.add("the sequential read stopped after " + o.seqMaxSeconds() + " s at " + human(read)
                        + " of " + human(fileBytes));
                break;
            }
        }
        double readSeconds = seconds(System.nanoTime() - t0);

        // ---- random reads
        long units = fileBytes / small;
        long randBound = (long) (o.randomSeconds() * 1e9);
        AtomicLong reserved = new AtomicLong();
        AtomicLong done = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long r0 = System.nanoTime();
        long deadline = r0 + randBound;
        Runnable reader = readerTask(ch, o, units, small, align, deadline, reserved, done, failure);
        if (o.queueDepth() == 1) {
            reader.run();
        } else {
            List<Thread> threads = new ArrayList<>();
            for (int k = 0; k < o.queueDepth(); k++) {
                Thread th = StrataThreads.newThread(readerTask(ch, o.withSeed(o.seed() + 0x9E3779B97F4A7C15L * (k + 1)), units,
                        small, align, deadline, reserved, done, failure), "strata-disk-check-reader-" + k);
                th.setDaemon(true);
                threads.add(th);
                th.start();
            }
            try {
                for (Thread th : threads) {
                    th.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000 + 30_000));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted during the random reads", e);
            }
        }
        double randSeconds = seconds(System.nanoTime() - r0);
        if (failure.get() != null) {
            throw new IOException("random read failed: " + failure.get(), failure.get());
        }
        long reads = done.get();
        if (reads < 1) {
            throw new IOException("no random read completed");
        }

        // ---- fsync latency: write one small block in place, then fdatasync
        ByteBuffer fb = aligned(small, align).order(ByteOrder.LITTLE_ENDIAN);
        SplittableRandom frnd = new SplittableRandom(o.seed() + 1);
        for (int i = 0; i + 8 <= small; i += 8) {
            fb.putLong(i, frnd.nextLong());
        }
        long fsyncBound = (long) (o.fsyncMaxSeconds() * 1e9);
        long[] lat = new long[o.fsyncCount()];
        int n = 0;
        long f0 = System.nanoTime();
        while (n < lat.length) {
            long pos = frnd.nextLong(units) * small;
            fb.putLong(0, stamp(o.seed() + 2, n));
            fb.clear();
            long a = System.nanoTime();
            writeFully(ch, fb, pos);
            ch.force(false);
            long z = System.nanoTime();
            lat[n++] = z - a;
            if (z - f0 > fsyncBound) {
                break;
            }
        }
        if (n < lat.length) {
            notes.add("the fsync test stopped after " + o.fsyncMaxSeconds() + " s at " + n + " of " + lat.length + " pairs");
        }
        long[] sorted = Arrays.copyOf(lat, n);
        Arrays.sort(sorted);

        double writeMibs = fileBytes / (double) MIB / writeSeconds;
        List<TierCapacity> tiers = tierCapacity(writeMibs * MIB, o.tiers());
        return new Result(dir, fsType, fileBytes, requested, free, ram, blockSize, small, direct,
                writeMibs, writeSeconds, read / (double) MIB / readSeconds, readSeconds, read,
                reads / randSeconds, reads, randSeconds, o.queueDepth(),
                percentile(sorted, 0.50) / 1e6, percentile(sorted, 0.99) / 1e6, n,
                WRITE_RATE_DERATING, tiers, notes);
    }

    private static Runnable readerTask(FileChannel ch, Options o, long units, int small, int align, long deadline,
                                       AtomicLong reserved, AtomicLong done, AtomicReference<Throwable> failure) {
        return () -> {
            ByteBuffer b = aligned(small, align);
            SplittableRandom r = new SplittableRandom(o.seed() + 3);
            try {
                while (failure.get() == null && System.nanoTime() < deadline
                        && reserved.getAndIncrement() < o.randomMaxReads()) {
                    b.clear();
                    readFully(ch, b, r.nextLong(units) * small);
                    done.incrementAndGet();
                }
            } catch (IOException | RuntimeException e) {
                failure.compareAndSet(null, e);
            }
        };
    }

    /** Nearest-rank percentile of sorted values: the smallest value with at least {@code p} of them at or below it. */
    static double percentile(long[] sorted, double p) {
        int rank = (int) Math.ceil(p * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    /** A number unique to {@code i} that looks random (splitmix64's finalizer), never 0 for practical purposes. */
    static long stamp(long seed, long i) {
        long z = seed + (i + 1) * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    private static ByteBuffer aligned(int bytes, int align) {
        return ByteBuffer.allocateDirect(bytes + align).alignedSlice(align).limit(bytes).slice();
    }

    private static void writeFully(FileChannel ch, ByteBuffer b, long pos) throws IOException {
        long p = pos;
        while (b.hasRemaining()) {
            p += ch.write(b, p);
        }
    }

    private static void readFully(FileChannel ch, ByteBuffer b, long pos) throws IOException {
        long p = pos;
        while (b.hasRemaining()) {
            int r = ch.read(b, p);
            if (r < 0) {
                throw new EOFException("end of the test file at " + p);
            }
            p += r;
        }
    }

    private static double seconds(long nanos) {
        return Math.max(nanos, 1) / 1e9;
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException | RuntimeException ignored) {
            // best effort: the file is named FILE_PREFIX... so that it can be found
        }
    }

    /** The machine's memory in bytes as the JVM sees it, or 0. */
    static long totalMemory() {
        try {
            if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
                return Math.max(0, os.getTotalMemorySize());
            }
        } catch (RuntimeException | LinkageError e) {
            return 0;
        }
        return 0;
    }

    /** Bytes in binary units, e.g. "1.0 GiB". */
    public static String human(long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB"};
        double v = bytes;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, "%.1f %s", v, units[u]);
    }
}
