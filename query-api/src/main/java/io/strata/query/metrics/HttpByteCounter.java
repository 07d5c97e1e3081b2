package io.strata.query.metrics;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufHolder;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;

/**
 * Counts the bytes an HTTP connection reads and writes, where it sits: first in the HTTP part of
 * the pipeline, so it sees the request bytes before decoding and the answer bytes after gzip (and
 * inside TLS, when the port speaks it). Shared by every connection of a context.
 */
@ChannelHandler.Sharable
public final class HttpByteCounter extends ChannelDuplexHandler {

    private final ApiMeters meters;

    public HttpByteCounter(ApiMeters meters) {
        this.meters = meters;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        int n = size(msg);
        if (n > 0) {
            meters.received(n);
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        int n = size(msg);
        if (n > 0) {
            meters.sent(n);
        }
        ctx.write(msg, promise);
    }

    private static int size(Object msg) {
        if (msg instanceof ByteBuf b) {
            return b.readableBytes();
        }
        if (msg instanceof ByteBufHolder h) {
            return h.content().readableBytes();
        }
        return 0;
    }
}
