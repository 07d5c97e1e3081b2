package io.strata.engine.extent;

import io.strata.engine.DiskFormat;

/**
 * What an extent says about one of its pages ({@code docs/format/extent.md}, "Table"): the metric
 * by its number in the datafile's metric table (and its UUID once that number is resolved), the
 * time of slot 0, the step, the number of slots, the page type and the encoded length. A page's
 * points are at start, start + update_every, ... (entries of them).
 */
public final class PageDescriptor {
    /** Number of the metric in its datafile's metric table. */
    public int metric;
    /** The metric's UUID; both 0 while the number is not resolved (the nil UUID is no metric's). */
    public long uuidMsb;
    public long uuidLsb;
    /** Unsigned seconds. */
    public long startTime;
    public int updateEvery;
    public int entries;
    public int type;
    public int encodedLength;

    public long endTime() {
        return startTime + (long) (entries - 1) * updateEvery;
    }

    /** True when the UUID is known (not the nil UUID). */
    public boolean resolved() {
        return uuidMsb != 0 || uuidLsb != 0;
    }

    public PageDescriptor copyFrom(PageDescriptor p) {
        metric = p.metric;
        uuidMsb = p.uuidMsb;
        uuidLsb = p.uuidLsb;
        startTime = p.startTime;
        updateEvery = p.updateEvery;
        entries = p.entries;
        type = p.type;
        encodedLength = p.encodedLength;
        return this;
    }

    /** Null when plausible, else what is wrong. */
    public String validate() {
        if (type != DiskFormat.PAGE_TYPE_TIER0 && type != DiskFormat.PAGE_TYPE_TIER1) {
            return "unknown page type " + type;
        }
        if (entries < 1 || entries > DiskFormat.pagePoints(0)) {
            return "page entries " + entries + " out of range";
        }
        if (updateEvery < 1) {
            return "page update_every " + updateEvery + " not positive";
        }
        if (encodedLength < 1 || encodedLength > 1 << 20) {
            return "page encoded length " + encodedLength + " out of range";
        }
        return null;
    }
}
