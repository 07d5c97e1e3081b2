package io.strata.streaming.receiver;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.timeout.ReadTimeoutException;
import io.netty.util.ReferenceCountUtil;
import io.strata.streaming.wire.LineSplitter;
import io.strata.streaming.wire.StreamProtocolException;
import io.strata.engine.log.InternalErrorLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import java.io.IOException;
import io.strata.engine.time.Clocks;
import io.strata.streaming.server.LogText;

/**
 * The stream of one host after the handshake: (decompressed) bytes to lines to the parser. A
 * protocol error closes this connection only, with the reason in the log; what was stored stays.
 */
final class StreamReceiverHandler extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(StreamReceiverHandler.class);
    /** A bug met by every stream or every line writes a few lines a minute, not one each time. */
    private static final InternalErrorLog INTERNAL_ERRORS = InternalErrorLog.of(LOG);

    private final LineSplitter lines;
    private final ReceiverParser parser;
    private final ReceiverRegistry registry;
    private final ReceiverRegistry.Active active;
    private final String machineGuid;
    private final String who;
    private final ReceiverStats stats;
    private boolean closing;
    private String closeReason;

    StreamReceiverHandler(ReceiverParser parser, ReceiverLimits limits, ReceiverRegistry registry,
                          ReceiverRegistry.Active active, String machineGuid, String who, ReceiverStats stats) {
        this.lines = new LineSplitter(limits.maxLineBytes());
        this.parser = parser;
        this.registry = registry;
        this.active = active;
        this.machineGuid = machineGuid;
        this.who = who;
        this.stats = stats;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf buf)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        try {
            if (closing) {
                return;
            }
            stats.bytesReceived.add(buf.readableBytes());
            active.lastDataMillis = Clocks.wallMillis();
            parser.readStarted();
            try {
                lines.feed(buf, parser);
            } finally {
                parser.readEnded();
            }
            parser.askForHoles();
            if (parser.disabled()) {
                LOG.info("{}: the child sent DISABLE; closing its stream", who);
                close(ctx);
            }
        } catch (StreamHandedOverException e) {
            LOG.info("{}: {}", who, e.getMessage());
            closeReason = "handed over to the peers";
            close(ctx);
        } catch (StreamProtocolException e) {
            protocolError(ctx, e.getMessage());
        } catch (RuntimeException e) {
            // a bug of ours must not take the other streams down, nor stay silent
            INTERNAL_ERRORS.error("receiving a stream", who + ": internal error while receiving; closing this stream", e);
            close(ctx);
        } finally {
            buf.release();
        }
    }

    /** Bytes of the line buffer: none before the stream's first byte. */
    public int heldBytes() {
        return lines.heldBytes();
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        try {
            parser.observer().readComplete();
        } catch (RuntimeException e) {
            INTERNAL_ERRORS.error("stream listener", who + ": the stream listener failed; the stream goes on", e);
        }
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable() && !closing) {
            try {
                parser.sendDeferredRequests();
            } catch (RuntimeException e) {
                LOG.error("{}: internal error while sending replication requests; closing this stream", who, e);
                close(ctx);
            }
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof DecoderException d && d.getCause() instanceof StreamProtocolException p) {
            protocolError(ctx, p.getMessage());
        } else if (cause instanceof ReadTimeoutException) {
            LOG.warn("{}: no data for the receive timeout; closing the stream", who);
            close(ctx);
        } else if (cause instanceof IOException) {
            LOG.info("{}: connection error: {}", who, cause.getMessage());
            close(ctx);
        } else {
            INTERNAL_ERRORS.error("stream pipeline", who + ": unexpected error; closing this stream", cause);
            close(ctx);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        registry.unregister(machineGuid, active);
        LOG.info("{}: stream closed ({} charts)", who, parser.chartCount());
        try {
            parser.streamEnded();
        } catch (RuntimeException e) {
            INTERNAL_ERRORS.error("stream close", who + ": replayed points could not be handed to the engine", e);
        }
        try {
            parser.observer().closed(closeReason == null ? "connection closed" : closeReason);
        } catch (RuntimeException e) {
            INTERNAL_ERRORS.error("stream listener on close", who + ": the stream listener failed on close", e);
        }
        ctx.fireChannelInactive();
    }

    private void protocolError(ChannelHandlerContext ctx, String message) {
        stats.protocolErrors.increment();
        // the message quotes what the child sent: escaped, so that it cannot forge log lines
        LOG.warn("{}: protocol error, closing the stream: {}", who, LogText.escape(message));
        closeReason = "protocol error: " + message;
        close(ctx);
    }

    private void close(ChannelHandlerContext ctx) {
        closing = true;
        if (closeReason == null) {
            closeReason = "closed by this parent";
        }
        // forgotten before the socket closes: a child that sees the close and reconnects at once
        // must not be refused as "already streaming" by the stream it replaces
        registry.unregister(machineGuid, active);
        ctx.close();
    }
}
