package io.strata.query;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.concurrent.GlobalEventExecutor;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.zip.GZIPInputStream;

/**
 * A Netty server on 127.0.0.1:0 wired the way the node wires its one port: a first handler
 * looks at the opening bytes, installs the HTTP API into the live pipeline and removes itself,
 * handing on the bytes it already read.
 */
final class TestServer implements AutoCloseable {

    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final Channel server;
    /**
     * Closed before the event loop stops, as the node's port does: a loop shut down with no quiet
     * period while busy can end with its channels still open.
     */
    private final ChannelGroup accepted = new DefaultChannelGroup("accepted", GlobalEventExecutor.INSTANCE);
    /**
     * Dropped at close: before Java 21 an HttpClient cannot be closed, and its selector (two
     * descriptors and a thread) goes only once the client is garbage.
     */
    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    TestServer(ApiContext api) throws InterruptedException {
        this(api, io.strata.query.http.HttpPolicy.defaults());
    }

    TestServer(ApiContext api, io.strata.query.http.HttpPolicy policy) throws InterruptedException {
        server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        accepted.add(ch);
                        ch.pipeline().addLast("sniffer", new FirstBytesSniffer(api, policy));
                    }
                })
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    }

    /** Stands for the node's port unification: decides on the first 4 bytes, then gets out of the way. */
    static final class FirstBytesSniffer extends ByteToMessageDecoder {
        private final ApiContext api;
        private final io.strata.query.http.HttpPolicy policy;

        FirstBytesSniffer(ApiContext api, io.strata.query.http.HttpPolicy policy) {
            this.api = api;
            this.policy = policy;
        }

        @Override
        protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
            if (in.readableBytes() < 4) {
                return;
            }
            String start = in.toString(in.readerIndex(), 4, StandardCharsets.US_ASCII);
            if (start.equals("GET ") || start.equals("HEAD") || start.equals("OPTI") || start.equals("POST")
                    || start.equals("DELE")) {
                ApiHttpHandlers.install(ctx.pipeline(), api, policy);
                // removing a ByteToMessageDecoder passes the bytes it holds to the handlers after it
                ctx.pipeline().remove(this);
            } else {
                ctx.close();
            }
        }
    }

    int port() {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    URI uri(String pathAndQuery) {
        return URI.create("http://127.0.0.1:" + port() + encodeIllegal(pathAndQuery));
    }

    /** Percent-encodes what a browser would ({@code |}, {@code >}, spaces...) and java.net.URI refuses. */
    static String encodeIllegal(String s) {
        StringBuilder sb = new StringBuilder();
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            boolean ok = c > 32 && c < 127 && "|<>\"{}^`\\ ".indexOf(c) < 0;
            if (ok) {
                sb.append((char) c);
            } else {
                sb.append('%').append(String.format("%02X", c));
            }
        }
        return sb.toString();
    }

    HttpResponse<String> get(String pathAndQuery, String... headers) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri(pathAndQuery)).timeout(Duration.ofSeconds(30)).GET();
        for (int i = 0; i + 1 < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    HttpResponse<byte[]> getBytes(String pathAndQuery, String... headers) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri(pathAndQuery)).timeout(Duration.ofSeconds(30)).GET();
        for (int i = 0; i + 1 < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    HttpResponse<String> request(String method, String pathAndQuery, String... headers)
            throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri(pathAndQuery)).timeout(Duration.ofSeconds(30))
                .method(method, HttpRequest.BodyPublishers.noBody());
        for (int i = 0; i + 1 < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    static String gunzip(byte[] body) throws IOException {
        try (InputStream in = new GZIPInputStream(new java.io.ByteArrayInputStream(body))) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Override
    public void close() {
        if (group.isShuttingDown()) {
            return; // closed already (a test may close it before its @AfterEach does)
        }
        server.close().syncUninterruptibly();
        accepted.close().syncUninterruptibly();
        group.shutdownGracefully(0, 2, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
        client = null;
    }
}
