package io.strata.streaming.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.strata.streaming.handshake.HandshakeReplies;
import io.strata.streaming.receiver.ReceiverContext;
import io.strata.streaming.receiver.StreamHandshakeHandler;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * One port for HTTP and streaming, as Netdata's web server: the first bytes decide. A TLS
 * ClientHello gets a TLS handler and the decrypted bytes are sniffed again; {@code STREAM } starts
 * the stream handshake; anything else is HTTP.
 *
 * <p>Once the protocol is known, the connection's {@link ConnectionGuard} (when the pipeline has one)
 * decides: a connection over a limit gets the refusal its protocol understands (Netdata's busy text
 * for a {@code STREAM}, HTTP 503 otherwise); a {@code STREAM} from a client {@code allow streaming
 * from} or the listener's modes do not allow gets Netdata's 403; a plain {@code STREAM} on a
 * {@code ^SSL=force} listener is refused.
 */
public final class PortUnificationHandler extends ByteToMessageDecoder {

    private static final byte[] STREAM = {'S', 'T', 'R', 'E', 'A', 'M', ' '};
    private static final int TLS_RECORD_HEADER = 5;
    /** Netdata's text for a request its web-server ACL refuses. */
    public static final String FORBIDDEN_TEXT = "You are not allowed to access this resource.";

    private final SslContext ssl;
    private final ReceiverContext receivers;
    private final HttpPipelineInstaller http;
    private boolean closing;

    public PortUnificationHandler(SslContext ssl, ReceiverContext receivers, HttpPipelineInstaller http) {
        this.ssl = ssl;
        this.receivers = receivers;
        this.http = http;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        int n = in.readableBytes();
        if (n == 0) {
            return;
        }
        if (closing) {
            in.skipBytes(n);
            return;
        }
        ChannelPipeline p = ctx.pipeline();
        ConnectionGuard guard = ConnectionGuard.of(ctx.channel());
        if (ssl != null && n >= TLS_RECORD_HEADER && SslHandler.isEncrypted(in, false)) {
            if (guard != null) {
                guard.tls(true);
            }
            p.addAfter(ctx.name(), "tls", ssl.newHandler(ctx.alloc()));
            p.addAfter("tls", "sniff-plain", new PortUnificationHandler(null, receivers, http));
            p.remove(this);
            return;
        }
        int r = in.readerIndex();
        int prefix = Math.min(n, STREAM.length);
        boolean streamSoFar = true;
        for (int i = 0; i < prefix; i++) {
            if (in.getByte(r + i) != STREAM[i]) {
                streamSoFar = false;
                break;
            }
        }
        if (streamSoFar && n < STREAM.length) {
            return; // wait for the whole method token
        }
        if (ssl != null && !streamSoFar && n < TLS_RECORD_HEADER) {
            return; // could still be a ClientHello
        }
        if (streamSoFar) {
            if (!streamMayStart(ctx, guard)) {
                in.skipBytes(n);
                return;
            }
            if (guard != null) {
                guard.protocol(ConnectionGuard.Protocol.STREAM);
            }
            p.addAfter(ctx.name(), "stream-handshake", new StreamHandshakeHandler(receivers));
        } else if (http != null) {
            HttpPipelineInstaller.HttpConnection conn = HttpPipelineInstaller.HttpConnection.unrestricted();
            if (guard != null) {
                if (guard.refusal() != ConnectionGate.Refusal.NONE) {
                    guard.log(ctx, "HTTP connection refused (503): " + guard.refusal().key() + " reached");
                    refuse(ctx, httpReply(503, "Service Unavailable", HandshakeReplies.BUSY));
                    in.skipBytes(n);
                    return;
                }
                // the HTTP side has its own request deadline; the handshake ends with the first whole request
                guard.cancelDeadline();
                guard.protocol(ConnectionGuard.Protocol.HTTP);
                conn = new HttpPipelineInstaller.HttpConnection(guard.permissions(), guard.isTls(),
                        guard.listener().tls() == TlsMode.FORCE && !guard.isTls(),
                        guard.firstRequestTimeoutSeconds(), guard::handshakeDone);
            }
            http.install(p, conn);
        } else {
            in.skipBytes(n);
            ctx.close();
            return;
        }
        p.remove(this);
    }

    /** The guard's decisions on a {@code STREAM}; false when it was refused (the reply is on its way). */
    private boolean streamMayStart(ChannelHandlerContext ctx, ConnectionGuard guard) {
        if (guard == null) {
            return true;
        }
        if (guard.refusal() != ConnectionGate.Refusal.NONE) {
            guard.log(ctx, "STREAM refused (busy): " + guard.refusal().key() + " reached");
            refuse(ctx, HandshakeReplies.BUSY.getBytes(StandardCharsets.US_ASCII));
            return false;
        }
        if (!guard.permissions().contains(WebPermission.STREAMING)) {
            guard.log(ctx, "STREAM refused (403): " + (guard.listener().allows(WebPermission.STREAMING)
                    ? "[web] allow streaming from does not match" : "the listener's bind to modes exclude streaming"));
            refuse(ctx, httpReply(403, "Forbidden", FORBIDDEN_TEXT));
            return false;
        }
        if (guard.listener().tls() == TlsMode.FORCE && !guard.isTls()) {
            guard.log(ctx, "plain-text STREAM refused: the listener has ^SSL=force");
            refuse(ctx, HandshakeReplies.NOT_PERMITTED.getBytes(StandardCharsets.US_ASCII));
            return false;
        }
        return true;
    }

    private void refuse(ChannelHandlerContext ctx, byte[] reply) {
        closing = true;
        ctx.channel().config().setAutoRead(false);
        ctx.writeAndFlush(Unpooled.wrappedBuffer(reply)).addListener(ChannelFutureListener.CLOSE);
    }

    /** A whole HTTP/1.1 answer with a text body, closing the connection. */
    static byte[] httpReply(int status, String reason, String body) {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        String head = "HTTP/1.1 " + status + " " + reason + "\r\nConnection: close\r\n"
                + "Content-Type: text/plain; charset=utf-8\r\nCache-Control: no-cache, no-store, must-revalidate\r\n"
                + "X-Content-Type-Options: nosniff\r\nContent-Length: " + b.length + "\r\n\r\n";
        byte[] h = head.getBytes(StandardCharsets.US_ASCII);
        byte[] all = new byte[h.length + b.length];
        System.arraycopy(h, 0, all, 0, h.length);
        System.arraycopy(b, 0, all, h.length, b.length);
        return all;
    }
}
