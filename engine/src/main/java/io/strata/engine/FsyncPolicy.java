package io.strata.engine;

import java.util.Locale;

/**
 * When the engine forces written extents to the device. The window of possible loss on a power
 * failure (not on a process crash: the page cache survives kill -9) is documented in
 * {@code docs/format/datafile.md}.
 */
public enum FsyncPolicy {
    /**
     * Never per extent; the OS writes back when it likes (typically within 30 s). A datafile is
     * still forced once, when it closes, before its journal v2 is written.
     */
    NEVER,
    /**
     * After every extent: metadata, datafile, then journal. A point is durable once its page is
     * in a written extent ({@code StorageEngine.flush()} returns); points still in hot or dirty
     * pages are in memory only. Costs two fsyncs per extent.
     */
    PER_EXTENT,
    /** Metadata before each batch of extents; datafile and journal when the datafile closes (full, or at shutdown). */
    PER_DATAFILE;

    public static FsyncPolicy parse(String s) {
        switch (s.trim().toLowerCase(Locale.ROOT).replace('_', '-')) {
            case "never":
                return NEVER;
            case "per-extent":
            case "extent":
                return PER_EXTENT;
            case "per-datafile":
            case "datafile":
                return PER_DATAFILE;
            default:
                throw new IllegalArgumentException("fsync policy must be never, per-extent or per-datafile, got '" + s + "'");
        }
    }
}
