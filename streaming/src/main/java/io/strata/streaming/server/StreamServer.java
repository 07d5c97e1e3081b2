package io.strata.streaming.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.strata.streaming.receiver.ReceiverContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The node's one listening port (Netdata's {@code [web] bind to}): streams and HTTP. */
public final class StreamServer implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(StreamServer.class);

    private final EventLoopGroup boss;
    private final EventLoopGroup workers;
    private final List<Channel> bound = new ArrayList<>();
    private final ReceiverContext receivers;
    private final SslContext ssl;
    private final HttpPipelineInstaller http;

    public StreamServer(ReceiverContext receivers, SslContext ssl, HttpPipelineInstaller http, int workerThreads) {
        this.receivers = receivers;
        this.ssl = ssl;
        this.http = http;
        this.boss = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        this.workers = new MultiThreadIoEventLoopGroup(workerThreads, NioIoHandler.newFactory());
    }

    /** Listens on {@code address}; returns the bound address (port 0 picks a free one). */
    public InetSocketAddress bind(InetSocketAddress address) throws IOException {
        ServerBootstrap b = new ServerBootstrap()
                .group(boss, workers)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 1024)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast("sniff", new PortUnificationHandler(ssl, receivers, http));
                    }
                });
        try {
            Channel ch = b.bind(address).syncUninterruptibly().channel();
            bound.add(ch);
            InetSocketAddress local = (InetSocketAddress) ch.localAddress();
            LOG.info("listening on {}:{} (streams and HTTP)", local.getAddress().getHostAddress(), local.getPort());
            return local;
        } catch (Exception e) {
            if (e instanceof BindException || e.getCause() instanceof BindException) {
                throw new IOException("cannot listen on " + address.getHostString() + ":" + address.getPort()
                        + ": the port is in use or the address is not local (" + e.getMessage() + ")", e);
            }
            throw new IOException("cannot listen on " + address + ": " + e.getMessage(), e);
        }
    }

    public ReceiverContext receivers() {
        return receivers;
    }

    @Override
    public void close() {
        for (Channel c : bound) {
            c.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
        boss.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
}
