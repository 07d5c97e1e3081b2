package io.strata.engine.extent;

import java.nio.ByteBuffer;

/**
 * The 32-byte description of one page, identical in an extent's header and in the journal v1
 * transaction of that extent ({@code docs/format/extent.md}):
 *
 * <pre>
 *  0      8      16         20          24      26   27   28             32
 *  +------+------+----------+-----------+-------+----+----+--------------+
 *  | uuid msb    | start u32| update    |entries|type|rsvd| encoded      |
 *  | (LE long x2)| seconds  | every u32 | u16   | u8 | u8 | length u32   |
 *  +------+------+----------+-----------+-------+----+----+--------------+
 * </pre>
 * A page's points are at start, start + update_every, ... (entries of them).
 */
public final class PageDescriptor {
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

    public void write(ByteBuffer b, int at) {
        b.putLong(at, uuidMsb);
        b.putLong(at + 8, uuidLsb);
        b.putInt(at + 16, (int) startTime);
        b.putInt(at + 20, updateEvery);
        b.putShort(at + 24, (short) entries);
        b.put(at + 26, (byte) type);
        b.put(at + 27, (byte) 0);
        b.putInt(at + 28, encodedLength);
    }

    /** Reads a descriptor; the caller checks {@link #validate} before trusting it. */
    public PageDescriptor read(ByteBuffer b, int at) {
        uuidMsb = b.getLong(at);
        uuidLsb = b.getLong(at + 8);
        startTime = Integer.toUnsignedLong(b.getInt(at + 16));
        updateEvery = b.getInt(at + 20);
        entries = Short.toUnsignedInt(b.getShort(at + 24));
        type = Byte.toUnsignedInt(b.get(at + 26));
        encodedLength = b.getInt(at + 28);
        return this;
    }

    /** Null when plausible, else what is wrong. */
    public String validate() {
        if (type != io.strata.engine.DiskFormat.PAGE_TYPE_TIER0 && type != io.strata.engine.DiskFormat.PAGE_TYPE_TIER1) {
            return "unknown page type " + type;
        }
        if (entries < 1 || entries > io.strata.engine.DiskFormat.pagePoints(0)) {
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
