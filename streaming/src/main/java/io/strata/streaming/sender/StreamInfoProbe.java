package io.strata.streaming.sender;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.concurrent.ScheduledFuture;
import io.strata.streaming.server.Transports;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Asks one parent {@code GET /api/v3/stream_info?machine_guid=GUID} without blocking anyone: the
 * connection, the request and the answer run on the Netty event loop, and the answer (or why
 * there is none) completes a future. Each question is bounded: 2.9.0 gives the connect, the send
 * and each receive 5 s; here the whole exchange gets {@link #TIMEOUT}, after which the connection
 * is closed and the probe is {@link StreamInfoReply.Kind#NO_ANSWER}. Cancelling the future closes
 * the connection too. Every connection is closed once its future completes, whichever way.
 */
final class StreamInfoProbe {

    /** The whole exchange with one parent. */
    static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final EventLoopGroup group;
    private final Duration timeout;

    StreamInfoProbe(EventLoopGroup group, Duration timeout) {
        this.group = Objects.requireNonNull(group, "group");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
    }

    /**
     * Asks {@code d} about {@code machineGuid}. {@code tls}: the client context for an
     * {@code :SSL} destination (null: such a destination is not asked, it has no answer).
     * Resolves a host name: call it off the event loop.
     */
    CompletableFuture<StreamInfoReply.Probe> ask(Destination d, String machineGuid, SslContext tls) {
        CompletableFuture<StreamInfoReply.Probe> result = new CompletableFuture<>();
        InetSocketAddress address = d.socketAddress();
        if (address.isUnresolved()) {
            result.complete(StreamInfoReply.Probe.noAnswer("cannot resolve host '" + d.host() + "'"));
            return result;
        }
        if (d.ssl() && tls == null) {
            result.complete(StreamInfoReply.Probe.noAnswer("a TLS destination, but no TLS client is configured"));
            return result;
        }
        String hostHeader = d.host().indexOf(':') >= 0 ? "[" + d.host() + "]:" + d.port() : d.host() + ":" + d.port();
        byte[] request = StreamInfoReply.request(machineGuid, hostHeader);
        Bootstrap b = new Bootstrap()
                .group(group)
                .channel(Transports.socketChannel(group))
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) timeout.toMillis())
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (d.ssl()) {
                            ch.pipeline().addLast("tls", tls.newHandler(ch.alloc(), d.host(), d.port()));
                        }
                        ch.pipeline().addLast(new AnswerCollector(result, request));
                    }
                });
        ChannelFuture connect = b.connect(address);
        Channel ch = connect.channel();
        // whichever way the probe ends (answer, close, time out, cancel), its connection ends with it
        result.whenComplete((p, e) -> ch.close());
        connect.addListener(f -> {
            if (!f.isSuccess()) {
                Throwable cause = f.cause();
                result.complete(StreamInfoReply.Probe.noAnswer("failed to connect: "
                        + (cause == null ? "cancelled" : cause.getMessage())));
            }
        });
        ScheduledFuture<?> deadline = ch.eventLoop().schedule(() -> {
            result.complete(StreamInfoReply.Probe.noAnswer("no complete answer within " + timeout.toMillis() + " ms"));
        }, timeout.toMillis(), TimeUnit.MILLISECONDS);
        result.whenComplete((p, e) -> deadline.cancel(false));
        return result;
    }

    /** Sends the request once connected; gathers the answer until it is complete or the parent closes. */
    private static final class AnswerCollector extends ChannelInboundHandlerAdapter {
        private final CompletableFuture<StreamInfoReply.Probe> result;
        private final byte[] request;
        private final byte[] answer = new byte[StreamInfoReply.MAX_ANSWER_BYTES];
        private int length;

        AnswerCollector(CompletableFuture<StreamInfoReply.Probe> result, byte[] request) {
            this.result = result;
            this.request = request;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            if (ctx.pipeline().get("tls") == null) {
                send(ctx);
            }
            ctx.fireChannelActive();
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt instanceof SslHandshakeCompletionEvent done) {
                if (done.isSuccess()) {
                    send(ctx);
                } else {
                    result.complete(StreamInfoReply.Probe.noAnswer("TLS handshake failed: " + done.cause()));
                }
            }
            ctx.fireUserEventTriggered(evt);
        }

        private void send(ChannelHandlerContext ctx) {
            ctx.writeAndFlush(Unpooled.wrappedBuffer(request)).addListener(f -> {
                if (!f.isSuccess()) {
                    result.complete(StreamInfoReply.Probe.noAnswer("failed to send the request: " + f.cause()));
                }
            });
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf in = (ByteBuf) msg;
            try {
                int n = Math.min(in.readableBytes(), answer.length - length);
                in.readBytes(answer, length, n);
                length += n;
                if (StreamInfoReply.complete(answer, length)) {
                    result.complete(StreamInfoReply.parse(answer, length));
                } else if (length == answer.length) {
                    result.complete(new StreamInfoReply.Probe(StreamInfoReply.Kind.NO_STREAM_INFO, null,
                            "the answer is longer than " + answer.length + " bytes"));
                }
            } finally {
                in.release();
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            result.complete(StreamInfoReply.parse(answer, length));
            ctx.fireChannelInactive();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            result.complete(length == 0 ? StreamInfoReply.Probe.noAnswer("socket error: " + cause.getMessage())
                    : StreamInfoReply.parse(answer, length));
            ctx.close();
        }
    }
}
