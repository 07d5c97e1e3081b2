package io.strata.streaming.wire;

import com.github.luben.zstd.EndDirective;
import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.EncoderException;
import io.netty.handler.codec.MessageToByteEncoder;
import io.netty.util.ByteProcessor;

import java.nio.ByteBuffer;

/**
 * Outbound half of Netdata 2.x's ZSTD stream compression, for our child or forwarder talking to a
 * parent that negotiated ZSTD. The whole connection is one zstd stream (one context per channel, never
 * ended): each written {@link ByteBuf} is cut into pieces, every piece is compressed and <em>flushed</em>
 * ({@code ZSTD_e_flush}), so the bytes of the piece are complete on the wire and may reference every
 * earlier piece of the connection, and goes out as {@link StreamFrameHeader signature} + the flushed
 * bytes.
 *
 * <p>Cutting: a 2.x parent refuses a block announcing more than
 * {@value ZstdStreamFrameDecoder#MAX_COMPRESSED_BYTES} compressed bytes, so a piece is at most
 * {@link #MAX_PIECE_BYTES}, the largest size whose worst case ({@code ZSTD_compressBound}) fits; with
 * BINARY anywhere, without it after the last {@code '\n'} within that size (at the size when a single
 * line is longer), as 2.x's sender cuts at its own COMPRESSION_MAX_MSG_SIZE.
 *
 * <p>Level: {@value #LEVEL}, 2.x's default {@code zstd compression level}.
 */
public final class ZstdStreamFrameEncoder extends MessageToByteEncoder<ByteBuf> {
    /** 2.x's default {@code zstd compression level} (a 2 MiB window). */
    public static final int LEVEL = 3;
    /** The largest piece whose worst-case compressed size fits the parent's limit. */
    public static final int MAX_PIECE_BYTES = largestPieceFitting(ZstdStreamFrameDecoder.MAX_COMPRESSED_BYTES);

    private final boolean binaryCapability;
    private final ZstdCompressCtx zstd = new ZstdCompressCtx().setLevel(LEVEL);
    private final ByteBuffer plain = ByteBuffer.allocateDirect(MAX_PIECE_BYTES);
    /** Room for more than the worst case: a piece that overflows it would be a bug, caught below. */
    private final ByteBuffer compressed = ByteBuffer.allocateDirect(2 * ZstdStreamFrameDecoder.MAX_COMPRESSED_BYTES);
    private long compressedBytes;
    private long decompressedBytes;
    private boolean closed;

    /** @param binaryCapability whether the BINARY capability was negotiated (cut anywhere) */
    public ZstdStreamFrameEncoder(boolean binaryCapability) {
        super(ByteBuf.class);
        this.binaryCapability = binaryCapability;
    }

    static int largestPieceFitting(int maxCompressed) {
        int n = maxCompressed;
        while (Zstd.compressBound(n) > maxCompressed) {
            n--;
        }
        return n;
    }

    @Override
    protected ByteBuf allocateBuffer(ChannelHandlerContext ctx, ByteBuf msg, boolean preferDirect) {
        int length = msg.readableBytes();
        int estimate = length / 2 + StreamFrameHeader.BYTES * (length / (MAX_PIECE_BYTES / 2) + 2) + 64;
        return preferDirect ? ctx.alloc().ioBuffer(estimate) : ctx.alloc().heapBuffer(estimate);
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, ByteBuf msg, ByteBuf out) {
        while (msg.isReadable()) {
            int pieceLength = pieceLength(msg);
            plain.clear().limit(pieceLength);
            msg.getBytes(msg.readerIndex(), plain);
            plain.flip();
            compressed.clear();
            boolean flushed = false;
            while (!flushed) {
                if (!compressed.hasRemaining()) {
                    throw new EncoderException("ZSTD flush of a " + pieceLength + "-byte piece exceeds "
                            + compressed.capacity() + " bytes");
                }
                flushed = zstd.compressDirectByteBufferStream(compressed, plain, EndDirective.FLUSH);
            }
            int compressedLength = compressed.position();
            if (compressedLength < 1 || compressedLength > ZstdStreamFrameDecoder.MAX_COMPRESSED_BYTES) {
                // the stream's state now includes this piece: nothing valid can follow on this connection
                throw new EncoderException("ZSTD compressed a " + pieceLength + "-byte piece to " + compressedLength
                        + " bytes, outside 1.." + ZstdStreamFrameDecoder.MAX_COMPRESSED_BYTES);
            }
            compressed.flip();
            out.ensureWritable(StreamFrameHeader.BYTES + compressedLength);
            StreamFrameHeader.write(out, compressedLength);
            out.writeBytes(compressed);
            msg.skipBytes(pieceLength);
            compressedBytes += StreamFrameHeader.BYTES + compressedLength;
            decompressedBytes += pieceLength;
        }
    }

    /** Bytes written to the wire, signatures included. */
    public long compressedBytes() {
        return compressedBytes;
    }

    /** Whether the zstd context was freed (the handler left its pipeline, e.g. the channel closed). */
    boolean contextFreed() {
        return closed;
    }

    /** Bytes taken from the written buffers. */
    public long decompressedBytes() {
        return decompressedBytes;
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) throws Exception {
        if (!closed) {
            closed = true;
            zstd.close();
        }
        super.handlerRemoved(ctx);
    }

    private int pieceLength(ByteBuf msg) {
        int remaining = msg.readableBytes();
        if (remaining <= MAX_PIECE_BYTES) {
            return remaining;
        }
        if (binaryCapability) {
            return MAX_PIECE_BYTES;
        }
        int lastNewline = msg.forEachByteDesc(msg.readerIndex(), MAX_PIECE_BYTES, ByteProcessor.FIND_LF);
        return lastNewline < 0 ? MAX_PIECE_BYTES : lastNewline - msg.readerIndex() + 1;
    }
}
