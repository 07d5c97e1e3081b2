package io.strata.streaming.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.GlobalEventExecutor;
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
import io.netty.channel.WriteBufferWaterMark;

/** The node's one listening port (Netdata's {@code [web] bind to}): streams and HTTP. */
public final class StreamServer implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(StreamServer.class);
    /** Bytes of output queued per connection at which it turns unwritable (high) and writable again (low). */
    public static final int WRITE_HIGH_WATER_MARK = 128 * 1024;
    public static final int WRITE_LOW_WATER_MARK = 32 * 1024;
    private static final WriteBufferWaterMark WRITE_WATER_MARK =
            new WriteBufferWaterMark(WRITE_LOW_WATER_MARK, WRITE_HIGH_WATER_MARK);

    private final EventLoopGroup boss;
    private final EventLoopGroup workers;
    private final List<Channel> bound = new ArrayList<>();
    /**
     * The connections accepted and still open (a closed one leaves the group by itself): closed
     * before the event loops stop, because a loop shut down with no quiet period can end with its
     * channels still open when it is busy at that moment (Netty 4.2's SingleThreadIoEventLoop closes
     * them only if it sees the shutdown before its last check), leaving the client waiting on a
     * connection nobody serves and the descriptor open.
     */
    private final ChannelGroup accepted = new DefaultChannelGroup("accepted", GlobalEventExecutor.INSTANCE);
    private final ReceiverContext receivers;
    private final SslContext ssl;
    private final HttpPipelineInstaller http;
    private final ConnectionGate gate;
    private final WebAccessRules rules;
    private final PerAddressLogLimiter logLimiter = new PerAddressLogLimiter(TimeUnit.SECONDS.toNanos(10));

    /** A port with the default limits that lets every client do everything (loopback tests, benchmarks). */
    public StreamServer(ReceiverContext receivers, SslContext ssl, HttpPipelineInstaller http, int workerThreads) {
        this(receivers, ssl, http, workerThreads, ServerLimits.defaults(), WebAccessRules.allowAll());
    }

    public StreamServer(ReceiverContext receivers, SslContext ssl, HttpPipelineInstaller http, int workerThreads,
                        ServerLimits limits, WebAccessRules rules) {
        this.receivers = receivers;
        this.ssl = ssl;
        this.http = http;
        this.gate = new ConnectionGate(limits);
        this.rules = rules;
        this.boss = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        this.workers = new MultiThreadIoEventLoopGroup(workerThreads, NioIoHandler.newFactory());
    }

    /** Listens on {@code address} with every mode; returns the bound address (port 0 picks a free one). */
    public InetSocketAddress bind(InetSocketAddress address) throws IOException {
        return bind(Listener.of(address));
    }

    /** Listens as {@code listener} says; returns the bound address (port 0 picks a free one). */
    public InetSocketAddress bind(Listener listener) throws IOException {
        InetSocketAddress address = listener.address();
        if (listener.tls() == TlsMode.FORCE && ssl == null) {
            throw new IOException("cannot listen on " + address.getHostString() + ":" + address.getPort()
                    + " with ^SSL=force: no [web] ssl certificate and ssl key are configured");
        }
        ServerBootstrap b = new ServerBootstrap()
                .group(boss, workers)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 1024)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                // output queued for a client above the high mark makes the channel unwritable: the HTTP
                // side then stops reading that client until it drains below the low mark
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, WRITE_WATER_MARK)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        accepted.add(ch);
                        ch.pipeline().addLast("guard", new ConnectionGuard(gate, listener, rules, logLimiter));
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

    /** The counts of open connections and handshakes. */
    public ConnectionGate gate() {
        return gate;
    }

    /** How many open connections the port has found to speak {@code protocol} (for tests). */
    long connectionsSpeaking(ConnectionGuard.Protocol protocol) {
        return accepted.stream().map(ConnectionGuard::of).filter(g -> g != null && g.protocol() == protocol).count();
    }

    public ReceiverContext receivers() {
        return receivers;
    }

    /** How long the worker loops wait for tasks to stop coming before they stop (see {@link #close}). */
    static final long QUIET_PERIOD_MILLIS = 200;

    @Override
    public void close() {
        for (Channel c : bound) {
            c.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
        // no new connection comes now that the listeners are closed
        accepted.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        Transports.stop(boss).awaitUninterruptibly(5, TimeUnit.SECONDS);
        // a short quiet period: the closed connections' pipelines are torn down in hops between the
        // worker loops and the executors of their handlers (the HTTP answers' gzip), which a loop
        // that stops at once would refuse (a stack trace in the log of every normal stop)
        workers.shutdownGracefully(QUIET_PERIOD_MILLIS, 2_000, TimeUnit.MILLISECONDS).awaitUninterruptibly(5,
                TimeUnit.SECONDS);
    }
}
