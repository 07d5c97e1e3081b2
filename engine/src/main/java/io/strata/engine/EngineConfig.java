package io.strata.engine;

import io.strata.engine.io.FileChannelIo;
import io.strata.engine.io.FileIo;

import java.nio.file.Path;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * Immutable configuration of a {@link StorageEngine}, passed in; the engine reads nothing ambient.
 *
 * @param dir              the database directory (metadata, and {@code tier<N>/} for each tier)
 * @param tiers            storage tiers, 1..5 (tier 0 only is written until tiers arrive)
 * @param datafileMaxBytes a datafile is closed and the next begun when an extent would pass this
 * @param fsync            when written data is forced to the device ({@link FsyncPolicy})
 * @param io               every file call goes through it
 * @param seed             seeds the spread of first-page sizes
 * @param flushMaxAgeMillis a batch of fewer than 64 dirty pages is written once its oldest page
 *                         waited this long (full extents are written at once)
 * @param nanoClock        monotonic nanoseconds, injectable for tests
 */
public record EngineConfig(Path dir, int tiers, long datafileMaxBytes, FsyncPolicy fsync, FileIo io, long seed,
                           int flushMaxAgeMillis, LongSupplier nanoClock) {

    public static final long MIN_DATAFILE_BYTES = 4L << 20;
    public static final long MAX_DATAFILE_BYTES = 512L << 20;

    public EngineConfig {
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(fsync, "fsync");
        Objects.requireNonNull(io, "io");
        Objects.requireNonNull(nanoClock, "nanoClock");
        if (tiers < 1 || tiers > 5) {
            throw new IllegalArgumentException("storage tiers must be 1..5, got " + tiers);
        }
        if (datafileMaxBytes < 64 * 1024) {
            throw new IllegalArgumentException("datafile size must be at least 64 KiB, got " + datafileMaxBytes);
        }
    }

    /** Defaults: 1 tier, datafiles sized for a 1 GiB quota, fsync per datafile, real files. */
    public static EngineConfig defaults(Path dir) {
        return new EngineConfig(dir, 1, datafileSizeForQuota(1L << 30), FsyncPolicy.PER_DATAFILE,
                FileChannelIo.INSTANCE, 0x5EED, 1000, System::nanoTime);
    }

    /** DBENGINE's sizing: about 50 datafiles per tier quota, each 4 MiB to 512 MiB. */
    public static long datafileSizeForQuota(long quotaBytes) {
        return Math.max(MIN_DATAFILE_BYTES, Math.min(MAX_DATAFILE_BYTES, quotaBytes / 50));
    }

    public EngineConfig withIo(FileIo fileIo) {
        return new EngineConfig(dir, tiers, datafileMaxBytes, fsync, fileIo, seed, flushMaxAgeMillis, nanoClock);
    }

    public EngineConfig withDatafileMaxBytes(long bytes) {
        return new EngineConfig(dir, tiers, bytes, fsync, io, seed, flushMaxAgeMillis, nanoClock);
    }

    public EngineConfig withFsync(FsyncPolicy policy) {
        return new EngineConfig(dir, tiers, datafileMaxBytes, policy, io, seed, flushMaxAgeMillis, nanoClock);
    }

    public EngineConfig withFlushMaxAgeMillis(int millis) {
        return new EngineConfig(dir, tiers, datafileMaxBytes, fsync, io, seed, millis, nanoClock);
    }

    public Path tierDir(int tier) {
        return dir.resolve("tier" + tier);
    }
}
