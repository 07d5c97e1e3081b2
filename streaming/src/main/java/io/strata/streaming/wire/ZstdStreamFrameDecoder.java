package io.strata.streaming.wire;

import com.github.luben.zstd.ZstdDecompressCtx;
import com.github.luben.zstd.ZstdException;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * Inbound half of Netdata 2.x's ZSTD stream compression (child to parent, after the handshake, when
 * the ZSTD capability was negotiated): turns {@link StreamFrameHeader signature} + {@code len} bytes
 * into the bytes those decode to, one {@link ByteBuf} per block, each handed on before the next is
 * decoded.
 *
 * <p>The whole connection is one zstd stream: the child never ends its frame, it only flushes after
 * each message, so a block may reference anything of the window the child's level chose (2 MiB at
 * Netdata's default level 3) and must be decoded by the same context as every block before it. One
 * context per channel, never shared.
 *
 * <p>Limits, each a {@link StreamProtocolException} (Netdata's wording where it has one), after which
 * every further byte is dropped (nothing after a broken block can be decoded) and the next handler
 * should close the channel: a signature that does not match; a length of 0 or above
 * {@value #MAX_COMPRESSED_BYTES} (2.x's COMPRESSION_MAX_MSG_SIZE); a block that zstd refuses; a block
 * that decodes to nothing or to more than {@value #MAX_DECODED_BYTES} bytes (COMPRESSION_MAX_CHUNK);
 * a frame that asks for a window above 2^{@value #MAX_WINDOW_LOG} bytes. Memory per connection is
 * thus bounded: the window (at most 8 MiB, 2 MiB for a default 2.x child), zstd's block buffer, and two
 * fixed buffers of about 16 KiB.
 */
public final class ZstdStreamFrameDecoder extends ByteToMessageDecoder {
    /** Largest compressed length a 2.x parent accepts: COMPRESSION_MAX_MSG_SIZE = 16384 - 128 - 1. */
    public static final int MAX_COMPRESSED_BYTES = 16255;
    /** Largest decoded block a 2.x parent accepts: COMPRESSION_MAX_CHUNK. */
    public static final int MAX_DECODED_BYTES = 16384;
    /**
     * Largest window (log2) a child may ask for: 23 covers every zstd level up to 19 (Netdata's
     * {@code zstd compression level} defaults to 3, a 2 MiB window); the "ultra" levels 20-22 are
     * refused instead of letting one child make the parent allocate up to 128 MiB.
     */
    public static final int MAX_WINDOW_LOG = 23;

    /*
     * The context and both buffers are made at the first whole block: a parent accepts streams that
     * never send one (a child reconnecting at once, a storm of them), and a native context with two
     * direct buffers for each of those is work and memory for nothing.
     */
    private ZstdDecompressCtx zstd;
    private ByteBuffer compressed;
    /** One byte more than allowed: a block that fills it decodes to too much. */
    private ByteBuffer decoded;
    private long blocks;
    private long compressedBytes;
    private long decompressedBytes;
    private boolean failed;
    private boolean closed;

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        if (in.readableBytes() < StreamFrameHeader.BYTES) {
            return;
        }
        final int at = in.readerIndex();
        final int length = StreamFrameHeader.length(in, at);
        if (length < 0) {
            throw fail("multiplexed uncompressed data in compressed stream! (block #" + (blocks + 1) + " header is "
                    + StreamFrameHeader.hex(in, at) + ", expected fa 8x 8x 0a)");
        }
        if (length == 0) {
            throw fail("received a compressed message of 0 bytes (block #" + (blocks + 1)
                    + "); Netdata treats it as uncompressed data in a compressed stream");
        }
        if (length > MAX_COMPRESSED_BYTES) {
            throw fail("received a compressed message of " + length + " bytes, which is bigger than the max "
                    + "compressed message size supported of " + MAX_COMPRESSED_BYTES);
        }
        if (in.readableBytes() < StreamFrameHeader.BYTES + length) {
            return; // wait for the rest of the block
        }
        if (zstd == null) {
            zstd = new ZstdDecompressCtx().setLongMax(MAX_WINDOW_LOG);
            compressed = ByteBuffer.allocateDirect(MAX_COMPRESSED_BYTES);
            decoded = ByteBuffer.allocateDirect(MAX_DECODED_BYTES + 1);
        }
        blocks++;
        compressed.clear().limit(length);
        in.getBytes(at + StreamFrameHeader.BYTES, compressed);
        compressed.flip();
        decoded.clear();
        try {
            while (compressed.hasRemaining() && decoded.hasRemaining()) {
                int before = compressed.position() + decoded.position();
                zstd.decompressDirectByteBufferStream(decoded, compressed);
                if (compressed.position() + decoded.position() == before) {
                    throw fail("ZSTD_decompressStream() made no progress on block #" + blocks + " (" + length
                            + " compressed bytes, " + compressed.remaining() + " left)");
                }
            }
        } catch (ZstdException e) {
            throw fail("ZSTD_decompressStream() return error: " + e.getMessage() + " (block #" + blocks + ", "
                    + length + " compressed bytes)");
        }
        if (decoded.position() > MAX_DECODED_BYTES) {
            throw fail("compressed block #" + blocks + " (" + length + " bytes) decompressed to more than "
                    + MAX_DECODED_BYTES + " bytes, which is bigger than the max msg size " + MAX_DECODED_BYTES);
        }
        if (compressed.hasRemaining()) {
            throw fail("ZSTD_decompressStream() left " + compressed.remaining() + " of " + length
                    + " compressed bytes of block #" + blocks);
        }
        final int size = decoded.position();
        if (size == 0) {
            throw fail("compressed block #" + blocks + " decoded to 0 bytes (Netdata: no bytes to decompress)");
        }
        in.skipBytes(StreamFrameHeader.BYTES + length);
        compressedBytes += StreamFrameHeader.BYTES + length;
        decompressedBytes += size;
        decoded.flip();
        ByteBuf block = ctx.alloc().buffer(size, size);
        block.writeBytes(decoded);
        out.add(block);
        // one block per call: ByteToMessageDecoder hands it on before calling again, so a read of
        // many blocks is never held decoded all at once
    }

    /** Bytes consumed from the wire for complete blocks, signatures included (as Netdata counts them). */
    public long compressedBytes() {
        return compressedBytes;
    }

    /**
     * Whether the zstd context was freed (the handler left its pipeline, e.g. the channel closed), or
     * never made (no whole block came) and now never will be.
     */
    boolean contextFreed() {
        return closed;
    }

    /** Whether the zstd context exists (it is made at the first whole block). */
    boolean contextMade() {
        return zstd != null;
    }

    /** Bytes produced by decoding. */
    public long decompressedBytes() {
        return decompressedBytes;
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        if (!closed) {
            closed = true;
            if (zstd != null) {
                zstd.close();
            }
        }
    }

    private StreamProtocolException fail(String message) {
        failed = true;
        return new StreamProtocolException(message);
    }
}
