package io.strata.streaming.receiver;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.util.ReferenceCountUtil;
import io.strata.engine.meta.HostInfo;
import io.strata.streaming.auth.StreamAuthorizer;
import io.strata.streaming.handshake.Capabilities;
import io.strata.streaming.handshake.StreamRequest;
import io.strata.streaming.handshake.StreamRequestException;
import io.strata.streaming.server.LogText;
import io.strata.streaming.wire.Lz4StreamFrameDecoder;
import io.strata.streaming.wire.ZstdStreamFrameDecoder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.strata.streaming.handshake.HandshakeReplies;
import java.nio.charset.StandardCharsets;
import io.strata.engine.time.Clocks;
import io.strata.streaming.server.ConnectionGuard;

/**
 * Reads a {@code STREAM} request (up to the blank line, at most 8 KiB as Netdata's web server),
 * asks the authoriser, writes Netdata's reply in one piece, and on acceptance turns the
 * connection into the host's stream (LZ4 decoding when negotiated, then the parser).
 */
public final class StreamHandshakeHandler extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(StreamHandshakeHandler.class);
    static final int MAX_REQUEST = 8192;

    private final ReceiverContext rc;
    private ByteBuf head;
    private boolean done;

    public StreamHandshakeHandler(ReceiverContext rc) {
        this.rc = rc;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf in)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (done) {
            ctx.fireChannelRead(msg);
            return;
        }
        try {
            if (head == null) {
                head = ctx.alloc().heapBuffer(512, MAX_REQUEST);
            }
            int room = MAX_REQUEST - head.writerIndex();
            int take = Math.min(room, in.readableBytes());
            int before = head.writerIndex();
            head.writeBytes(in, take);
            int end = findBlankLine(head, Math.max(0, before - 3));
            if (end < 0) {
                if (head.writerIndex() >= MAX_REQUEST) {
                    LOG.warn("{}: STREAM request longer than {} bytes; closing", remote(ctx), MAX_REQUEST);
                    ctx.close();
                }
                return;
            }
            done = true;
            byte[] bytes = new byte[end];
            head.getBytes(0, bytes);
            // what followed the request (a child waits for the reply, so normally nothing)
            ByteBuf rest = head.retainedSlice(end, head.writerIndex() - end);
            ByteBuf more = in.isReadable() ? in.retain() : null;
            handshake(ctx, bytes, rest, more);
        } finally {
            in.release();
        }
    }

    private static int findBlankLine(ByteBuf b, int from) {
        for (int i = from; i + 3 < b.writerIndex(); i++) {
            if (b.getByte(i) == '\r' && b.getByte(i + 1) == '\n' && b.getByte(i + 2) == '\r'
                    && b.getByte(i + 3) == '\n') {
                return i + 4;
            }
        }
        // a child that ends its lines with a bare LF
        for (int i = from; i + 1 < b.writerIndex(); i++) {
            if (b.getByte(i) == '\n' && b.getByte(i + 1) == '\n') {
                return i + 2;
            }
        }
        return -1;
    }

    private void handshake(ChannelHandlerContext ctx, byte[] request, ByteBuf rest, ByteBuf more) {
        String remote = remote(ctx);
        StreamRequest req;
        try {
            req = StreamRequest.parse(request, request.length);
        } catch (StreamRequestException e) {
            logRefusal(ctx, "unreadable STREAM request", "unreadable STREAM request: "
                    + LogText.escape(e.getMessage()));
            refuse(ctx, HandshakeReplies.NOT_PERMITTED.getBytes(
                    StandardCharsets.US_ASCII), rest, more);
            return;
        }
        StreamAuthorizer.Decision d = rc.authorizer().decide(req, remote, Clocks.wallMillis(), rc.registry());
        if (!d.accepted()) {
            rc.stats().connectionsRefused.increment();
            logRefusal(ctx, "stream refused: " + d.kind(), "refused stream of host '"
                    + LogText.escape(req.hostname()) + "' (" + LogText.escape(req.machineGuid()) + "): "
                    + d.logMessage());
            refuse(ctx, d.reply(), rest, more);
            return;
        }
        if (rc.registry().refuseHandedOver(req.machineGuid(), req.hops())) {
            // this parent just handed the host's direct stream over to its peers (PeerHandOver): the
            // host moves on to its next parent, which forwards it here in time order
            rc.stats().connectionsRefused.increment();
            logRefusal(ctx, "stream refused: handed over", "refused stream of host '"
                    + LogText.escape(req.hostname()) + "' (" + LogText.escape(req.machineGuid()) + ") once as"
                    + " already streaming: it was just handed over to the peers, which forward it here");
            refuse(ctx, HandshakeReplies.refusal(HandshakeReplies.Kind.ALREADY_STREAMING), rest, more);
            return;
        }
        UUID guid = UUID.fromString(req.machineGuid());
        long caps = d.negotiatedCaps();
        String who = remote + " host '" + LogText.escape(req.hostname()) + "'";
        HostInfo host = new HostInfo(guid, req.hostname(), req.os(), req.timezone(),
                req.updateEvery() > 0 ? req.updateEvery() : 1, null, storedSystemInfo(req),
                StreamAuthorizer.streamKeyDigest(req.key()));
        ReceiverRegistry.Active active = rc.registry().register(req.machineGuid(), req.hostname(), req.hops(),
                ctx.channel(), Clocks.wallMillis());
        ParentCommands direct = new ParentCommands() {
            @Override
            public void send(String line) {
                rc.stats().bytesSent.add(line.length());
                ctx.channel().writeAndFlush(Unpooled.copiedBuffer(line, StandardCharsets.UTF_8));
            }

            @Override
            public boolean writable() {
                // below the channel's high water mark; above it the child has not read what it got
                return ctx.channel().isWritable();
            }
        };
        PeerHandOver handOver = PeerHandOver.forStream(rc.registry(), req.machineGuid(), req.hops(),
                d.settings().proxyEnabled(), who);
        ParentCommands commands = handOver.commands(direct, ctx.channel(), rc.registry().peerLookup(),
                d.settings().proxyDestination());
        ReceiverReplication planner = rc.replication().forStream(d.settings());
        // stream.conf's totals for this host (its GUID section, else its key's, else [stream])
        ReceiverLimits limits = rc.limits().withHostTotals(d.settings().maxChartsPerHost(),
                d.settings().maxDimensionsPerHost());
        ReceiverParser parser;
        try {
            parser = new ReceiverParser(rc.engine(), host, commands, planner,
                    Capabilities.has(caps, Capabilities.REPLICATION), limits, rc.stats(), rc.nowMicros(),
                    rc.functionResults());
        } catch (RuntimeException e) {
            LOG.error("{}: cannot register the host; closing", who, e);
            rc.registry().unregister(req.machineGuid(), active);
            release(rest, more);
            ctx.close();
            return;
        }
        active.parser = parser;
        parser.handOver(handOver);
        ReceivedStreamListener.Observer observer;
        try {
            observer = rc.listener().accepted(new ReceivedStreamView(parser, guid, req, d.settings(), caps,
                    ctx.channel().eventLoop()));
        } catch (RuntimeException e) {
            // forwarding is extra: the host is still received and stored
            LOG.error("{}: the stream listener failed; receiving without it", who, e);
            observer = ReceivedStreamListener.Observer.NONE;
        }
        parser.observe(observer);
        rc.stats().connectionsAccepted.increment();
        ConnectionGuard guard = ConnectionGuard.of(ctx.channel());
        if (guard != null) {
            guard.handshakeDone();
        }
        LOG.info("{} ({}): stream accepted, capabilities {}", who, req.machineGuid(), Capabilities.names(caps));
        ChannelPipeline p = ctx.pipeline();
        // the reply must reach the child in one piece and before anything else
        ctx.writeAndFlush(Unpooled.wrappedBuffer(d.reply()));
        // a definition burst asks a REPLAY_CHART per chart: one flush (a syscall) per read, not per command
        p.addLast("stream-flush-consolidation", new FlushConsolidationHandler(256, true));
        p.addLast("stream-timeout", receiveTimeout(rc.receiveTimeoutSeconds()));
        long compression = Capabilities.compression(caps);
        if (compression == Capabilities.ZSTD) {
            p.addLast("stream-zstd", new ZstdStreamFrameDecoder());
        } else if (compression == Capabilities.COMPRESSION) {
            p.addLast("stream-lz4", new Lz4StreamFrameDecoder());
        }
        p.addLast("stream-receiver", new StreamReceiverHandler(parser, limits, rc.registry(), active,
                req.machineGuid(), who, rc.stats()));
        p.remove(this);
        if (rest.isReadable()) {
            p.fireChannelRead(rest);
        } else {
            rest.release();
        }
        if (more != null) {
            p.fireChannelRead(more);
        }
    }

    /** Refusals repeat (a child retrying, a client hammering): one line per address and kind every 10 s. */
    private static void logRefusal(ChannelHandlerContext ctx, String kind, String message) {
        ConnectionGuard guard = ConnectionGuard.of(ctx.channel());
        if (guard != null) {
            guard.log(kind, message);
        } else {
            LOG.info("{}: {}", remote(ctx), message);
        }
    }

    private static void refuse(ChannelHandlerContext ctx, byte[] reply, ByteBuf rest, ByteBuf more) {
        release(rest, more);
        ctx.writeAndFlush(Unpooled.wrappedBuffer(reply)).addListener(ChannelFutureListener.CLOSE);
    }

    private static void release(ByteBuf rest, ByteBuf more) {
        rest.release();
        if (more != null) {
            more.release();
        }
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        if (head != null) {
            head.release();
            head = null;
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.info("{}: error during the stream handshake: {}", remote(ctx), cause.toString());
        ctx.close();
    }

    static String remote(ChannelHandlerContext ctx) {
        if (ctx.channel().remoteAddress() instanceof InetSocketAddress a) {
            return a.getAddress().getHostAddress();
        }
        return String.valueOf(ctx.channel().remoteAddress());
    }

    /**
     * The handshake's system facts under the names Netdata's receiver stores them on the host
     * ({@code NETDATA_SYSTEM_OS_ID} becomes {@code NETDATA_HOST_OS_ID}): {@code info} answers from them.
     */
    static Map<String, String> storedSystemInfo(StreamRequest req) {
        Map<String, String> stored = new LinkedHashMap<>();
        req.systemInfo().forEach((name, value) -> stored.put(StreamRequest.storedSystemInfoName(name), value));
        return stored;
    }

    /** How long after its timer a receive timeout is confirmed ({@link ReceiveTimeout}). */
    static final long RECEIVE_TIMEOUT_CONFIRM_MILLIS = ReceiveTimeout.CONFIRM_MILLIS;

    /** The stream's receive timeout: the child's silence while this parent reads ({@link ReceiveTimeout}). */
    static ChannelHandler receiveTimeout(int seconds) {
        return new ReceiveTimeout(seconds);
    }
}
