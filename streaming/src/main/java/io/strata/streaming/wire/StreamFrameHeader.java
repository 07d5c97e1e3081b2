package io.strata.streaming.wire;

import io.netty.buffer.ByteBuf;

/**
 * The 4-byte signature in front of every compressed block of a Netdata stream, whatever the
 * algorithm (LZ4 in 1.37.1; ZSTD, LZ4, BROTLI, GZIP in 2.x): {@code FA <0x80|len&0x7F>
 * <0x80|(len>>7)&0x7F> 0A}, a 14-bit length of the compressed bytes that follow.
 */
public final class StreamFrameHeader {
    /** Size of the signature. */
    public static final int BYTES = 4;
    /** The largest length 14 bits can announce. */
    public static final int MAX_ANNOUNCED_LENGTH = 0x3FFF;

    private StreamFrameHeader() {
    }

    /**
     * The length the 4 bytes at {@code at} announce, or -1 when they are not a signature
     * (Netdata's mask {@code ff 80 80 ff}: bytes 0 and 3 exact, bytes 1 and 2 with their high bit set).
     */
    public static int length(ByteBuf in, int at) {
        int b0 = in.getUnsignedByte(at);
        int b1 = in.getUnsignedByte(at + 1);
        int b2 = in.getUnsignedByte(at + 2);
        int b3 = in.getUnsignedByte(at + 3);
        if (b0 != 0xFA || (b1 & 0x80) == 0 || (b2 & 0x80) == 0 || b3 != 0x0A) {
            return -1;
        }
        return (b1 & 0x7F) | (b2 & 0x7F) << 7;
    }

    /** The four bytes at {@code at} as Netdata's "multiplexed" error shows them: {@code fa 80 81 0a}. */
    public static String hex(ByteBuf in, int at) {
        return String.format("%02x %02x %02x %02x", in.getUnsignedByte(at), in.getUnsignedByte(at + 1),
                in.getUnsignedByte(at + 2), in.getUnsignedByte(at + 3));
    }

    /** Writes the signature announcing {@code length} (1..{@link #MAX_ANNOUNCED_LENGTH}) bytes. */
    public static void write(ByteBuf out, int length) {
        if (length < 1 || length > MAX_ANNOUNCED_LENGTH) {
            throw new IllegalArgumentException("a compressed block of " + length + " bytes cannot be announced");
        }
        out.writeByte(0xFA);
        out.writeByte(0x80 | (length & 0x7F));
        out.writeByte(0x80 | ((length >>> 7) & 0x7F));
        out.writeByte('\n');
    }
}
