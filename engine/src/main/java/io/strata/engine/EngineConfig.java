package io.strata.engine;

import io.strata.engine.io.FileChannelIo;
import io.strata.engine.io.FileIo;
import io.strata.engine.time.Clocks;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * Immutable configuration of a {@link StorageEngine}, passed in; the engine reads nothing ambient.
 *
 * @param dir              the database directory (metadata, and {@code tier<N>/} for each tier)
 * @param tiers            storage tiers, 1..5: tier 0 holds collected points, tier N aggregates
 *                         {@code tierGrouping^N} of them per point
 * @param datafileMaxBytes a datafile is closed and the next begun when an extent would pass this;
 *                         0 (the default) sizes datafiles from each tier's quota ({@link
 *                         #datafileMaxBytes(int)})
 * @param fsync            when written data is forced to the device ({@link FsyncPolicy})
 * @param io               every file call goes through it
 * @param seed             seeds the spread of first-page sizes
 * @param flushMaxAgeMillis a batch of fewer than 64 dirty pages is written once its oldest page
 *                         waited this long (full extents are written at once)
 * @param nanoClock        monotonic nanoseconds, injectable for tests
 * @param tierGrouping     points of tier N-1 per point of tier N (Netdata's {@code dbengine tier N
 *                         update every iterations}, default 60), 2..255
 * @param quotaBytes       per tier, the disk quota of its datafiles and journals; 0 = no quota
 * @param maxAgeSeconds    per tier, the retention by age; 0 = none
 * @param tierDirs         per tier, where its files live; a null entry means {@code dir/tier<N>}
 * @param cacheBytes       bound of the main cache: the clean-page and extent caches together with
 *                         the dirty pages waiting for the disk; 0 sizes it from the number of
 *                         metrics ({@link #autoCacheBytes})
 * @param directReads      queries and scans read datafiles with O_DIRECT (bypassing the OS page
 *                         cache) where the file system allows it; buffered reads otherwise
 * @param clockSeconds     the wall clock in unsigned seconds (UNIX time), injectable for tests:
 *                         retention by age is measured against it, and points further ahead of it
 *                         than {@code futureMarginSeconds} are refused
 * @param futureMarginSeconds points stamped more than this many seconds after {@code clockSeconds}
 *                         are refused at the door and counted per host ({@link
 *                         #DEFAULT_FUTURE_MARGIN_SECONDS}); 0 accepts any time (an accelerated
 *                         benchmark or load, whose timeline runs ahead of the clock)
 */
public record EngineConfig(Path dir, int tiers, long datafileMaxBytes, FsyncPolicy fsync, FileIo io, long seed,
                           int flushMaxAgeMillis, LongSupplier nanoClock, int tierGrouping, long[] quotaBytes,
                           long[] maxAgeSeconds, Path[] tierDirs, long cacheBytes, boolean directReads,
                           LongSupplier clockSeconds, long futureMarginSeconds) {

    public static final long MIN_DATAFILE_BYTES = 4L << 20;
    public static final long MAX_DATAFILE_BYTES = 512L << 20;
    public static final int MAX_TIERS = 5;
    public static final int DEFAULT_TIERS = 3;
    public static final int DEFAULT_TIER_GROUPING = 60;
    /**
     * Points more than a day ahead of the clock are refused. A day accepts any clock that is
     * merely badly set (a hardware clock kept in local time is off by at most 14 h) while a
     * point stamped years ahead never enters: it would block every later point of its metric (a
     * store must be after the metric's last point) until the clock caught up. VictoriaMetrics
     * refuses samples more than 2 days ahead.
     */
    public static final long DEFAULT_FUTURE_MARGIN_SECONDS = 86_400;

    /** The system's wall clock in seconds. */
    public static long wallClockSeconds() {
        return Clocks.wallMillis() / 1000;
    }

    public EngineConfig {
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(fsync, "fsync");
        Objects.requireNonNull(io, "io");
        Objects.requireNonNull(nanoClock, "nanoClock");
        if (tiers < 1 || tiers > MAX_TIERS) {
            throw new IllegalArgumentException("storage tiers must be 1.." + MAX_TIERS + ", got " + tiers);
        }
        if (datafileMaxBytes != 0 && datafileMaxBytes < 64 * 1024) {
            throw new IllegalArgumentException("datafile size must be 0 (from the quota) or at least 64 KiB, got "
                    + datafileMaxBytes);
        }
        if (tierGrouping < 2 || tierGrouping > 255) {
            throw new IllegalArgumentException("tier grouping must be 2..255, got " + tierGrouping);
        }
        String steps = tierStepProblem(tiers, tierGrouping);
        if (steps != null) {
            throw new IllegalArgumentException(steps);
        }
        quotaBytes = perTier(quotaBytes, "quota");
        maxAgeSeconds = perTier(maxAgeSeconds, "maximum age");
        tierDirs = tierDirs == null ? new Path[MAX_TIERS] : Arrays.copyOf(tierDirs, MAX_TIERS);
        Objects.requireNonNull(clockSeconds, "clockSeconds");
        if (futureMarginSeconds < 0) {
            throw new IllegalArgumentException("future margin must not be negative (0: none), got "
                    + futureMarginSeconds);
        }
        if (cacheBytes < 0) {
            throw new IllegalArgumentException("cache size must not be negative, got " + cacheBytes);
        }
    }

    /**
     * Why {@code tiers} tiers grouping {@code grouping} points each cannot be stored, or null: a
     * tier page's step (update_every x grouping^tier) is an int of seconds, so the top tier's
     * grouping^(tiers-1) must fit one (255 with 5 tiers does not). Metrics whose update_every
     * makes a tier's step pass it (more than 68 years) have nothing in that tier.
     */
    public static String tierStepProblem(int tiers, int grouping) {
        long g = 1;
        for (int t = 1; t < tiers; t++) {
            g *= grouping;
            if (g > Integer.MAX_VALUE) {
                return "tier " + t + " would aggregate " + grouping + "^" + t + " collections per point, more than "
                        + Integer.MAX_VALUE + " (a step of more than 68 years at 1-second collection): lower the "
                        + "tiers' grouping or the number of tiers";
            }
        }
        return null;
    }

    private static long[] perTier(long[] v, String what) {
        long[] out = v == null ? new long[MAX_TIERS] : Arrays.copyOf(v, MAX_TIERS);
        for (int t = 0; t < MAX_TIERS; t++) {
            if (out[t] < 0) {
                throw new IllegalArgumentException("tier " + t + " " + what + " must not be negative, got " + out[t]);
            }
        }
        return out;
    }

    /** Defaults: 3 tiers (Netdata's), datafiles sized from each tier's quota, fsync per datafile, real files. */
    public static EngineConfig defaults(Path dir) {
        return new EngineConfig(dir, DEFAULT_TIERS, 0, FsyncPolicy.PER_DATAFILE,
                FileChannelIo.INSTANCE, 0x5EED, 1000, System::nanoTime, DEFAULT_TIER_GROUPING, null, null, null, 0, false,
                EngineConfig::wallClockSeconds, DEFAULT_FUTURE_MARGIN_SECONDS);
    }

    /** DBENGINE's sizing: about 50 datafiles per tier quota, each 4 MiB to 512 MiB. */
    public static long datafileSizeForQuota(long quotaBytes) {
        return Math.max(MIN_DATAFILE_BYTES, Math.min(MAX_DATAFILE_BYTES, quotaBytes / 50));
    }

    public EngineConfig withIo(FileIo fileIo) {
        return new EngineConfig(dir, tiers, datafileMaxBytes, fsync, fileIo, seed, flushMaxAgeMillis, nanoClock,
                tierGrouping, quotaBytes, maxAgeSeconds, tierDirs, cacheBytes, directReads,
                clockSeconds, futureMarginSeconds);
    }

    public EngineConfig withDatafileMaxBytes(long bytes) {
        return new EngineConfig(dir, tiers, bytes, fsync, io, seed, flushMaxAgeMillis, nanoClock,
                tierGrouping, quotaBytes, maxAgeSeconds, tierDirs, cacheBytes, directReads,
                clockSeconds, futureMarginSeconds);
    }

    public EngineConfig withFsync(FsyncPolicy policy) {
        return new EngineConfig(dir, tiers, datafileMaxBytes, policy, io, seed, flushMaxAgeMillis, nanoClock,
                tierGrouping, quotaBytes, maxAgeSeconds, tierDirs, cacheBytes, directReads,
                clockSeconds, futureMarginSeconds);
    }

    public EngineConfig withFlushMaxAgeMillis(int millis) {
        return new EngineConfig(dir, tiers, datafileMaxBytes, fsync, io, seed, millis, nanoClock,
                tierGrouping, quotaBytes, maxAgeSeconds, tierDirs, cacheBytes, directReads,
                clockSeconds, futureMarginSeconds);
    }

    public EngineConfig withTiers(int n) {
        return new EngineConfig(dir, n, datafileMaxBytes, fsync, io, seed, flushMaxAgeMillis, nanoClock,
                tierGrouping, quotaBytes, maxAgeSeconds, tierDirs, cacheBytes, directReads,
                clockSeconds, futureMarginSeconds);
    }

    public EngineConfig withTierGrouping(int grouping) {
        return new EngineConfig(dir, tiers, datafileMaxBytes, fsync, io, seed, flushMaxAgeMillis, nanoClock,
                grouping, quotaBytes, maxAgeSeconds, tierDirs, cacheBytes, directReads,
                clockSeconds, futureMarginSeconds);
    }

    public EngineConfig withNanoClock(LongSupplier clock) {
        return new EngineConfig(dir, tiers, datafileMaxBytes, fsync, io, seed, flushMaxAgeMillis, clock,
                tierGrouping, quotaBytes, maxAgeSeconds, tierDirs, cacheBytes, directReads,
                clockSeconds, futureMarginSeconds);
    }

    /** The wall clock the engine measures ages and the future against, in seconds (tests inject one). */
    public EngineConfig withClockSeconds(LongSupplier clock) {
        return new EngineConfig(dir, tiers, datafileMaxBytes, fsync, io, seed, flushMaxAgeMillis, nanoClock,
                tierGrouping, quotaBytes, maxAgeSeconds, tierDirs, cacheBytes, directReads, clock,
                futureMarginSeconds);
    }

    /** Refuses points more than {@code seconds} ahead of the clock (0: accepts any time). */
    public EngineConfig withFutureMarginSeconds(long seconds) {
        return new EngineConfig(dir, tiers, datafileMaxBytes, fsync, io, seed, flushMaxAgeMillis, nanoClock,
                tierGrouping, quotaBytes, maxAgeSeconds, tierDirs, cacheBytes, directReads, clockSeconds,
                seconds);
    }

    /** Sets the disk quota of {@code tier} in bytes (0: none). */
    public EngineConfig withQuota(int tier, long bytes) {
        long[] q = quotaBytes.clone();
        q[tier] = bytes;
        return new EngineConfig(dir, tiers, datafileMaxBytes, fsync, io, seed, flushMaxAgeMillis, nanoClock,
                tierGrouping, q, maxAgeSeconds, tierDirs, cacheBytes, directReads,
                clockSeconds, futureMarginSeconds);
    }

    /** Sets the maximum age of the data of {@code tier} in seconds (0: none). */
    public EngineConfig withMaxAge(int tier, long seconds) {
        long[] a = maxAgeSeconds.clone();
        a[tier] = seconds;
        return new EngineConfig(dir, tiers, datafileMaxBytes, fsync, io, seed, flushMaxAgeMillis, nanoClock,
                tierGrouping, quotaBytes, a, tierDirs, cacheBytes, directReads,
                clockSeconds, futureMarginSeconds);
    }

    /** Puts the files of {@code tier} in {@code tierDir} (another disk) instead of {@code dir/tier<N>}. */
    public EngineConfig withTierDir(int tier, Path tierDir) {
        Path[] d = tierDirs.clone();
        d[tier] = tierDir;
        return new EngineConfig(dir, tiers, datafileMaxBytes, fsync, io, seed, flushMaxAgeMillis, nanoClock,
                tierGrouping, quotaBytes, maxAgeSeconds, d, cacheBytes, directReads, clockSeconds,
                futureMarginSeconds);
    }

    /** Bounds the caches at {@code bytes} (0: sized from the number of metrics). */
    public EngineConfig withCacheBytes(long bytes) {
        return new EngineConfig(dir, tiers, datafileMaxBytes, fsync, io, seed, flushMaxAgeMillis, nanoClock,
                tierGrouping, quotaBytes, maxAgeSeconds, tierDirs, bytes, directReads, clockSeconds,
                futureMarginSeconds);
    }

    /** Reads datafiles with O_DIRECT where the file system allows it ({@code false}: buffered reads). */
    public EngineConfig withDirectReads(boolean direct) {
        return new EngineConfig(dir, tiers, datafileMaxBytes, fsync, io, seed, flushMaxAgeMillis, nanoClock,
                tierGrouping, quotaBytes, maxAgeSeconds, tierDirs, cacheBytes, direct, clockSeconds,
                futureMarginSeconds);
    }

    /**
     * The cache bound for {@code metrics} metrics: the configured one, or 32 MiB plus 512 bytes per
     * metric and tier above 0 (Netdata sizes its cache at 8 KiB per metric and tier; Strata keeps
     * hot and dirty pages outside this bound and encoded, and aims at 5 KiB per metric in all).
     */
    public long autoCacheBytes(long metrics) {
        if (cacheBytes > 0) {
            return cacheBytes;
        }
        return (32L << 20) + metrics * Math.max(1, tiers - 1) * 512L;
    }

    public long quotaBytes(int tier) {
        return quotaBytes[tier];
    }

    public long maxAgeSeconds(int tier) {
        return maxAgeSeconds[tier];
    }

    /** The datafile size of a tier without a quota when none is configured (a 1 GiB quota's). */
    public static final long NO_QUOTA_DATAFILE_BYTES = datafileSizeForQuota(1L << 30);

    /**
     * The datafile size of {@code tier}. Sized from the tier's quota as DBENGINE does (1/50 of it,
     * 4 MiB to 512 MiB: a tier holds about 50 datafiles, at most {@code quota / 4 MiB} for small
     * quotas and {@code quota / 512 MiB} for those over 25 GiB), unless {@code datafileMaxBytes}
     * sets a smaller one (tests, benchmarks); a tier without a quota gets the configured size, or
     * {@link #NO_QUOTA_DATAFILE_BYTES}. Datafiles once sized for a 1 GiB quota whatever the quota
     * made a 100 GiB tier 5 000 files, every one of whose indexes a query searched.
     */
    public long datafileMaxBytes(int tier) {
        long q = quotaBytes[tier];
        if (q <= 0) {
            return datafileMaxBytes > 0 ? datafileMaxBytes : NO_QUOTA_DATAFILE_BYTES;
        }
        long size = datafileSizeForQuota(q);
        if (datafileMaxBytes > 0) {
            size = Math.min(size, datafileMaxBytes);
        }
        // A quota below 4 datafiles of the minimum size (tests, tiny disks) still rotates by file.
        return Math.max(64 * 1024, Math.min(size, q / 4));
    }

    /** Seconds between two points of {@code tier} for a metric collected every {@code updateEvery}. */
    public long tierStep(int tier, int updateEvery) {
        long s = updateEvery;
        for (int t = 0; t < tier; t++) {
            s *= tierGrouping;
        }
        return s;
    }

    public Path tierDir(int tier) {
        Path d = tierDirs[tier];
        return d != null ? d : dir.resolve("tier" + tier);
    }
}
