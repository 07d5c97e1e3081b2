package io.strata.streaming.wire;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

import java.util.List;

/**
 * Inbound half of Netdata's stream compression (child to parent, after the handshake): turns
 * {@code FA <0x80|len&0x7F> <0x80|(len>>7)&0x7F> 0A} + {@code len} bytes of raw LZ4 block into the
 * decoded bytes of that block, one {@link ByteBuf} (from {@code ctx.alloc()}) per block, each handed on
 * before the next is decoded. Blocks are
 * decoded with {@link NetdataLz4BlockDecoder}, which keeps the dictionary that Netdata's streaming
 * compressor relies on.
 *
 * <p>Decoded blocks need not end at a line boundary (a BINARY-capable child cuts big buffers anywhere),
 * so the next handler must keep partial lines, e.g. with {@link LineSplitter}.
 *
 * <p>Bad input surfaces as a {@link io.netty.handler.codec.DecoderException} whose cause is a
 * {@link StreamProtocolException}; from then on every further byte is dropped, because nothing after a
 * broken block can be decoded (the dictionary is gone). The handler that sees the exception should
 * close the channel.
 */
public final class Lz4StreamFrameDecoder extends ByteToMessageDecoder {
    /** Size of the header in front of every block. */
    public static final int HEADER_BYTES = 4;
    /** Largest {@code len} a Netdata parent accepts (COMPRESSION_MAX_MSG_SIZE). */
    public static final int MAX_BLOCK_LENGTH = 16384;

    private final NetdataLz4BlockDecoder blockDecoder = new NetdataLz4BlockDecoder();
    private long compressedBytes;
    private long decompressedBytes;
    private boolean failed;

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        while (in.readableBytes() >= HEADER_BYTES) {
            final int at = in.readerIndex();
            final int b0 = in.getUnsignedByte(at);
            final int b1 = in.getUnsignedByte(at + 1);
            final int b2 = in.getUnsignedByte(at + 2);
            final int b3 = in.getUnsignedByte(at + 3);
            if (b0 != 0xFA || (b1 & 0x80) == 0 || (b2 & 0x80) == 0 || b3 != 0x0A) {
                throw fail(String.format("multiplexed uncompressed data in compressed stream! "
                                + "(block #%d header is %02x %02x %02x %02x, expected fa 8x 8x 0a)",
                        blockDecoder.blocksDecoded() + 1, b0, b1, b2, b3));
            }
            final int length = (b1 & 0x7F) | (b2 & 0x7F) << 7;
            if (length == 0) {
                throw fail("received a compressed message of 0 bytes (block #" + (blockDecoder.blocksDecoded() + 1)
                        + "); Netdata treats it as uncompressed data in a compressed stream");
            }
            if (length > MAX_BLOCK_LENGTH) {
                throw fail("received a compressed message of " + length + " bytes, which is bigger than the max "
                        + "compressed message size supported of " + MAX_BLOCK_LENGTH);
            }
            if (in.readableBytes() < HEADER_BYTES + length) {
                return; // wait for the rest of the block
            }
            in.skipBytes(HEADER_BYTES);
            final int decoded;
            try {
                decoded = blockDecoder.decode(in, length);
            } catch (StreamProtocolException e) {
                failed = true;
                throw e;
            }
            if (decoded == 0) {
                throw fail("compressed block #" + blockDecoder.blocksDecoded() + " decoded to 0 bytes "
                        + "(Netdata: no bytes to parse)");
            }
            compressedBytes += HEADER_BYTES + length;
            decompressedBytes += decoded;
            ByteBuf block = ctx.alloc().buffer(decoded, decoded);
            block.writeBytes(blockDecoder.buffer(), blockDecoder.offset(), decoded);
            out.add(block);
            // one block per call: ByteToMessageDecoder hands it on before calling again, so a read of
            // many blocks (up to 255 times larger decoded) is never held decoded all at once
            return;
        }
    }

    /** Bytes of the decoder's arrays: none before the first block (see {@link NetdataLz4BlockDecoder#heldBytes()}). */
    public int heldBytes() {
        return blockDecoder.heldBytes();
    }

    /** Bytes consumed from the wire for complete blocks, headers included (as Netdata counts them). */
    public long compressedBytes() {
        return compressedBytes;
    }

    /** Bytes produced by decoding. */
    public long decompressedBytes() {
        return decompressedBytes;
    }

    private StreamProtocolException fail(String message) {
        failed = true;
        return new StreamProtocolException(message);
    }
}
