package io.strata.streaming.handshake;

/**
 * The capability bits of the {@code ver=} handshake parameter and of the parent's
 * {@code version=} reply, as Netdata 1.37.1 defines and negotiates them (docs/protocol/netdata-stream.md §2.3).
 *
 * <p>Bits 0-2 are never capabilities: a value 1..5 is an old protocol number, mapped to a set of bits
 * by {@link #normalise}.
 */
public final class Capabilities {

    public static final long V1 = 8;
    public static final long V2 = 16;
    public static final long VN = 32;
    public static final long VCAPS = 64;
    public static final long HLABELS = 128;
    public static final long CLAIM = 256;
    public static final long CLABELS = 512;
    public static final long COMPRESSION = 1024;
    public static final long FUNCTIONS = 2048;
    public static final long REPLICATION = 4096;
    public static final long BINARY = 8192;
    /** 2.x: values are sent as the child interpolated them ({@code BEGIN2}/{@code SET2}/{@code END2}). */
    public static final long INTERPOLATED = 1 << 14;
    /** 2.x: numbers of BEGIN2/SET2 and of replication in base64 ({@code #} integers, {@code @} IEEE754 doubles). */
    public static final long IEEE754 = 1 << 15;
    /** Netdata 2.x: ZSTD compression, one zstd stream per connection (docs/format/stream-framing.md §8). */
    public static final long ZSTD = 1L << 19;
    /** Netdata 2.x: GZIP compression. Declined: never offered, never granted. */
    public static final long GZIP = 1L << 20;
    /** Netdata 2.x: BROTLI compression. Declined: never offered, never granted. */
    public static final long BROTLI = 1L << 21;

    /** Everything a 1.37.1 agent built with LZ4 offers: 16376 (0x3FF8). */
    public static final long NETDATA_1_37_1 =
            V1 | V2 | VN | VCAPS | HLABELS | CLAIM | CLABELS | COMPRESSION | FUNCTIONS | REPLICATION | BINARY;

    /** What a 1.37.1 child offers with {@code enable compression = no}: 15352 (0x3BF8). */
    public static final long NETDATA_1_37_1_WITHOUT_COMPRESSION = NETDATA_1_37_1 & ~COMPRESSION;

    /** The 2.x data forms Strata speaks on top of {@link #NETDATA_1_37_1}. */
    public static final long INTERPOLATED_IEEE754 = INTERPOLATED | IEEE754;

    /** Every compression Strata speaks: LZ4 ({@link #COMPRESSION}) and {@link #ZSTD}. */
    public static final long COMPRESSIONS = COMPRESSION | ZSTD;

    /**
     * Every bit Strata understands in an offer or a reply, which {@link #normalise} keeps: the
     * 1.37.1 set, the 2.x data forms and 2.x's {@link #ZSTD}; any other bit is dropped.
     */
    public static final long KNOWN = NETDATA_1_37_1 | INTERPOLATED_IEEE754 | ZSTD;

    private static final long[] BITS = {
        V1, V2, VN, VCAPS, HLABELS, CLAIM, CLABELS, COMPRESSION, FUNCTIONS, REPLICATION, BINARY,
        INTERPOLATED, IEEE754, ZSTD,
    };
    private static final String[] NAMES = {
        "V1", "V2", "VN", "VCAPS", "HLABELS", "CLAIM", "CLABELS", "COMPRESSION", "FUNCTIONS", "REPLICATION", "BINARY",
        "INTERPOLATED", "IEEE754", "ZSTD",
    };

    private Capabilities() {
    }

    /**
     * Netdata's {@code convert_stream_version_to_capabilities()}: both sides apply it to any number
     * they receive. The number is taken as the signed 32-bit value C sees ({@code ver} is parsed with
     * {@code strtoul} and passed as {@code int32_t}); then
     * <ul>
     *   <li>≤ 1 → V1; 2 → V2|HLABELS; 3 → VN|HLABELS|CLAIM; 4 → … |CLABELS; 5 → … |COMPRESSION;
     *       above 5 → the number is the bitmask;</li>
     *   <li>VCAPS clears V1, V2 and VN; otherwise VN clears V1 and V2; otherwise V2 clears V1;</li>
     *   <li>the result is ANDed with {@link #KNOWN}: the set a 1.37.1 agent knows, the 2.x data
     *       forms (INTERPOLATED, IEEE754) and 2.x's {@link #ZSTD}, which a 1.37.1 agent never offers.</li>
     * </ul>
     */
    public static long normalise(long ver) {
        int version = (int) ver;
        long caps;
        if (version <= 1) {
            caps = V1;
        } else if (version == 2) {
            caps = V2 | HLABELS;
        } else if (version == 3) {
            caps = VN | HLABELS | CLAIM;
        } else if (version == 4) {
            caps = VN | HLABELS | CLAIM | CLABELS;
        } else if (version == 5) {
            caps = VN | HLABELS | CLAIM | CLABELS | COMPRESSION;
        } else {
            caps = version & 0xFFFF_FFFFL;
        }
        if ((caps & VCAPS) != 0) {
            caps &= ~(V1 | V2 | VN);
        } else if ((caps & VN) != 0) {
            caps &= ~(V1 | V2);
        } else if ((caps & V2) != 0) {
            caps &= ~V1;
        }
        return caps & KNOWN;
    }

    /** True when every bit of {@code bit} is set in {@code caps}. */
    public static boolean has(long caps, long bit) {
        return (caps & bit) == bit;
    }

    /**
     * The names of the set bits in Netdata's order ({@code V1 V2 VN VCAPS HLABELS CLAIM CLABELS
     * COMPRESSION FUNCTIONS REPLICATION BINARY INTERPOLATED IEEE754 ZSTD}), separated by one space. Netdata's
     * log line ends with an extra space; this does not. Bits outside {@link #KNOWN} are not named. 0 gives "".
     */
    public static String names(long caps) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < BITS.length; i++) {
            if ((caps & BITS[i]) != 0) {
                if (out.length() > 0) {
                    out.append(' ');
                }
                out.append(NAMES[i]);
            }
        }
        return out.toString();
    }

    /**
     * What a parent answers: {@link #normalise normalise(offeredRaw)} restricted to the bits the
     * parent supports. A real 1.37.1 parent (supports {@link #NETDATA_1_37_1}) turns 15352 into 15296 and
     * 16376 into 16320. Callers remove {@link #COMPRESSIONS} afterwards when compression is disabled for
     * the host. Never adds a bit the child did not offer (a 1.37.1 child would use it blindly).
     *
     * @param offeredRaw the child's {@code ver} as received (0 when absent, 1 for a
     *                   {@code NETDATA_PROTOCOL_VERSION}-only child)
     */
    public static long negotiateAsParent(long offeredRaw, long parentCaps) {
        return keepOneCompression(normalise(offeredRaw) & parentCaps);
    }

    /**
     * A 2.x parent grants one compression only, the first of its order {@code zstd lz4 brotli gzip}
     * that both sides have ({@code stream_select_receiver_compression_algorithm}); the child uses it.
     */
    public static long keepOneCompression(long caps) {
        long chosen = compression(caps);
        return (caps & ~COMPRESSIONS) | chosen;
    }

    /**
     * The compression both ends use for {@code caps} (negotiated): {@link #ZSTD} before {@link #COMPRESSION}
     * (LZ4), the order of 2.x's sender and receiver; 0 for none.
     */
    public static long compression(long caps) {
        if ((caps & ZSTD) != 0) {
            return ZSTD;
        }
        return caps & COMPRESSION;
    }

    /**
     * Netdata's {@code stream_capabilities_to_vn()}: the old protocol number a parent answers to a child
     * that offered VN but not VCAPS: 5 with COMPRESSION, else 4 with CLABELS, else 3.
     */
    public static int toOldVersionNumber(long caps) {
        if ((caps & COMPRESSION) != 0) {
            return 5;
        }
        if ((caps & CLABELS) != 0) {
            return 4;
        }
        return 3;
    }
}
