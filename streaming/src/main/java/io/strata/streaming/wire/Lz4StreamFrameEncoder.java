package io.strata.streaming.wire;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToByteEncoder;
import io.netty.util.ByteProcessor;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;

/**
 * Outbound half of Netdata's stream compression, for our child talking to a parent that negotiated
 * COMPRESSION. Each written {@link ByteBuf} (one committed buffer: a chart's data block, a label set,
 * a replication answer...) is cut into pieces of at most {@link #MAX_PIECE_BYTES} bytes the way a 1.37.1
 * sender cuts them, and every piece goes out as the 4-byte header + one raw LZ4 block.
 *
 * <p>Unlike Netdata we compress every piece <em>independently</em> (lz4-java has no streaming
 * compressor). An independent block never references earlier output, so it is also a valid block for
 * the parent's {@code LZ4_decompress_safe_continue}; we only give up some ratio.
 *
 * <p>Cutting: with BINARY any position will do, so pieces are exactly 16384 bytes; without it the parent
 * expects whole lines per block, so a piece ends after the last {@code '\n'} among its first 16384 bytes
 * (at 16384 when a single line is longer). The header's length field has 14 bits (at most 16383), and
 * 16384 incompressible bytes would need more; such a piece is cut again to a size whose worst case fits.
 *
 * <p>One instance per channel (it reuses its arrays), not sharable.
 */
public final class Lz4StreamFrameEncoder extends MessageToByteEncoder<ByteBuf> {
    /** Most uncompressed bytes per block: Netdata's COMPRESSION_MAX_MSG_SIZE. */
    public static final int MAX_PIECE_BYTES = 16384;
    /** Most compressed bytes the 14-bit header length can announce. */
    public static final int MAX_COMPRESSED_BYTES = 0x3FFF;

    private final boolean binaryCapability;
    private final LZ4Compressor compressor = LZ4Factory.fastestInstance().fastCompressor();
    private final byte[] plain = new byte[MAX_PIECE_BYTES];
    private final byte[] compressed = new byte[compressor.maxCompressedLength(MAX_PIECE_BYTES)];
    /** Largest piece whose worst-case compressed size still fits the header. */
    private final int incompressiblePieceBytes;
    private long compressedBytes;
    private long decompressedBytes;

    /** @param binaryCapability whether the BINARY capability was negotiated (cut anywhere) */
    public Lz4StreamFrameEncoder(boolean binaryCapability) {
        super(ByteBuf.class);
        this.binaryCapability = binaryCapability;
        int pieceBytes = MAX_PIECE_BYTES;
        while (compressor.maxCompressedLength(pieceBytes) > MAX_COMPRESSED_BYTES) {
            pieceBytes--;
        }
        this.incompressiblePieceBytes = pieceBytes;
    }

    @Override
    protected ByteBuf allocateBuffer(ChannelHandlerContext ctx, ByteBuf msg, boolean preferDirect) {
        int length = msg.readableBytes();
        int estimate = compressor.maxCompressedLength(length)
                + Lz4StreamFrameDecoder.HEADER_BYTES * (length / (MAX_PIECE_BYTES / 2) + 2);
        return preferDirect ? ctx.alloc().ioBuffer(estimate) : ctx.alloc().heapBuffer(estimate);
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, ByteBuf msg, ByteBuf out) {
        while (msg.isReadable()) {
            int pieceLength = pieceLength(msg, MAX_PIECE_BYTES);
            msg.getBytes(msg.readerIndex(), plain, 0, pieceLength);
            int compressedLength = compressor.compress(plain, 0, pieceLength, compressed, 0, compressed.length);
            if (compressedLength > MAX_COMPRESSED_BYTES) {
                // the new piece is a prefix of the old one, already in `plain`
                pieceLength = pieceLength(msg, incompressiblePieceBytes);
                compressedLength = compressor.compress(plain, 0, pieceLength, compressed, 0, compressed.length);
            }
            out.ensureWritable(Lz4StreamFrameDecoder.HEADER_BYTES + compressedLength);
            out.writeByte(0xFA);
            out.writeByte(0x80 | (compressedLength & 0x7F));
            out.writeByte(0x80 | ((compressedLength >>> 7) & 0x7F));
            out.writeByte('\n');
            out.writeBytes(compressed, 0, compressedLength);
            msg.skipBytes(pieceLength);
            compressedBytes += Lz4StreamFrameDecoder.HEADER_BYTES + compressedLength;
            decompressedBytes += pieceLength;
        }
    }

    /** Bytes written to the wire, headers included. */
    public long compressedBytes() {
        return compressedBytes;
    }

    /** Bytes taken from the written buffers. */
    public long decompressedBytes() {
        return decompressedBytes;
    }

    private int pieceLength(ByteBuf msg, int limit) {
        int remaining = msg.readableBytes();
        if (remaining <= limit) {
            return remaining;
        }
        if (binaryCapability) {
            return limit;
        }
        int lastNewline = msg.forEachByteDesc(msg.readerIndex(), limit, ByteProcessor.FIND_LF);
        return lastNewline < 0 ? limit : lastNewline - msg.readerIndex() + 1;
    }
}
