package io.strata.streaming.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.strata.streaming.receiver.ReceiverContext;
import io.strata.streaming.receiver.StreamHandshakeHandler;

import java.util.List;

/**
 * One port for HTTP and streaming, as Netdata's web server: the first bytes decide. A TLS
 * ClientHello gets a TLS handler and the decrypted bytes are sniffed again; {@code STREAM } starts
 * the stream handshake; anything else is HTTP.
 */
public final class PortUnificationHandler extends ByteToMessageDecoder {

    private static final byte[] STREAM = {'S', 'T', 'R', 'E', 'A', 'M', ' '};
    private static final int TLS_RECORD_HEADER = 5;

    private final SslContext ssl;
    private final ReceiverContext receivers;
    private final HttpPipelineInstaller http;

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
        ChannelPipeline p = ctx.pipeline();
        if (ssl != null && n >= TLS_RECORD_HEADER && SslHandler.isEncrypted(in, false)) {
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
            p.addAfter(ctx.name(), "stream-handshake", new StreamHandshakeHandler(receivers));
        } else if (http != null) {
            http.install(p);
        } else {
            in.skipBytes(n);
            ctx.close();
            return;
        }
        p.remove(this);
    }
}
