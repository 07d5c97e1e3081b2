package io.strata.streaming.sender;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.ScheduledFuture;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

import io.strata.engine.log.RepeatedFailureLog;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.util.concurrent.Future;
import io.strata.streaming.auth.StreamConfig;
import io.strata.streaming.handshake.Capabilities;
import io.strata.streaming.handshake.HandshakeReplies;
import io.strata.streaming.server.TlsContexts;
import io.strata.streaming.server.Transports;
import io.strata.streaming.wire.Lz4StreamFrameEncoder;
import io.strata.streaming.wire.ZstdStreamFrameEncoder;
import java.io.IOException;
import io.strata.engine.thread.StrataThreads;
import io.strata.engine.time.Clocks;

/**
 * The child side of streaming for one host: connects to the first available parent of a
 * {@link DestinationList}, sends the handshake request, judges the reply, and then hands the
 * accepted connection to a {@link SenderListener}; reconnects forever, as Netdata's sender thread
 * does (§1.4, §8):
 *
 * <ul>
 * <li>each attempt walks the available destinations in order; the first that accepts a TCP
 *     connection (within the connect timeout) moves to the end of the list;</li>
 * <li>the request is written with one send; the reply is the bytes of one read of at most 8192
 *     bytes within {@code timeout}; no reply (timeout or the parent closing) postpones the
 *     destination {@value #POSTPONE_NO_REPLY} s, a failed send {@value #POSTPONE_SEND_FAILED} s,
 *     a refusal as long as the {@link Handshake} says;</li>
 * <li>after any failed attempt the sender sleeps {@code reconnect delay}; after an accepted
 *     connection is lost it reconnects at once;</li>
 * <li>after acceptance an injected compression handler is installed when COMPRESSION (1024, LZ4) or
 *     ZSTD was negotiated, then the listener is told.</li>
 * </ul>
 *
 * <p>One thread per sender does all blocking work (connecting, waiting for the reply, sleeping,
 * and every listener call); the Netty event loop only moves bytes.
 */
public final class StreamSender implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(StreamSender.class);

    /** Netdata's postponement when the parent does not reply (timeout or close). */
    public static final int POSTPONE_NO_REPLY = HandshakeReplies.POSTPONE_NO_REPLY;
    /** Netdata's postponement when the request cannot be sent. */
    public static final int POSTPONE_SEND_FAILED = HandshakeReplies.POSTPONE_SEND_TIMEOUT;
    /** The child reads the reply with one {@code recv()} of at most this many bytes. */
    public static final int MAX_REPLY_BYTES = HandshakeReplies.MAX_REPLY_BYTES;
    /** The capability that makes the child compress (§7). */
    public static final long CAP_COMPRESSION = Capabilities.COMPRESSION;
    /** The longest line the parent may send us (the C sender's read buffer). */
    public static final int MAX_COMMAND_LINE_BYTES = 16384;
    /** A destination that keeps failing gets one summary line per this period. */
    public static final long FAILURE_SUMMARY_PERIOD_MILLIS = 60_000;
    /** The longest a parent's answer to {@code stream_info} is waited for (2.9.0: 5 s per step). */
    public static final int STREAM_INFO_TIMEOUT_SECONDS = 5;

    /**
     * @param timeout         stream.conf {@code timeout seconds} (600): sending the request,
     *                        waiting for the reply, and no progress sending data
     * @param connectTimeout  TCP connect timeout (Netdata uses {@code timeout} for it too)
     * @param reconnectDelay  stream.conf {@code reconnect delay seconds} (5)
     * @param bufferSizeBytes stream.conf {@code buffer size bytes} (10 MiB)
     */
    public record Config(Duration timeout, Duration connectTimeout, Duration reconnectDelay, long bufferSizeBytes) {
        public Config {
            Objects.requireNonNull(timeout, "timeout");
            Objects.requireNonNull(connectTimeout, "connectTimeout");
            Objects.requireNonNull(reconnectDelay, "reconnectDelay");
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("timeout must be positive, got " + timeout);
            }
            if (connectTimeout.isNegative() || connectTimeout.isZero() || connectTimeout.toMillis() > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("connect timeout must be positive and below 24 days, got " + connectTimeout);
            }
            if (reconnectDelay.isNegative()) {
                throw new IllegalArgumentException("reconnect delay must not be negative, got " + reconnectDelay);
            }
            if (bufferSizeBytes <= 0) {
                throw new IllegalArgumentException("buffer size must be positive, got " + bufferSizeBytes);
            }
        }

        /** Netdata 1.37.1's defaults: 600 s, 600 s, 5 s, 10 MiB. */
        public static Config defaults() {
            return new Config(Duration.ofSeconds(600), Duration.ofSeconds(600), Duration.ofSeconds(5), 10L * 1024 * 1024);
        }
    }

    private final String hostName;
    private final DestinationList destinations;
    private final Handshake handshake;
    private final Function<Long, ChannelHandler> compression;
    private final SenderListener listener;
    private final Config config;
    private final EventLoopGroup group;
    private final boolean ownsGroup;
    private final Thread thread;
    private volatile boolean running;
    private volatile SenderSession current;
    private volatile SslContext clientTls;
    /** The machine GUID asked about in {@code stream_info} before each attempt; null: not asked. */
    private volatile String streamInfoGuid;
    /**
     * Lost connections and failed attempts, per destination: a parent that restarts is an event
     * for an operator, not an error; a destination down for an hour gives a line a minute.
     */
    private final RepeatedFailureLog failures;

    /**
     * @param hostName     for the log
     * @param compression  given the negotiated capabilities, the handler that compresses the
     *                     stream (may return null: no compression)
     * @param group        the event loop group to use; null creates (and later shuts down) a
     *                     one-thread NIO group
     */
    public StreamSender(String hostName, DestinationList destinations, Handshake handshake,
                        Function<Long, ChannelHandler> compression, SenderListener listener, Config config,
                        EventLoopGroup group) {
        this.hostName = Objects.requireNonNull(hostName, "hostName");
        this.destinations = Objects.requireNonNull(destinations, "destinations");
        this.handshake = Objects.requireNonNull(handshake, "handshake");
        this.compression = Objects.requireNonNull(compression, "compression");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.config = Objects.requireNonNull(config, "config");
        this.ownsGroup = group == null;
        this.group = group != null ? group : Transports.group(1);
        this.thread = StrataThreads.newThread(this::run, "stream-sender[" + hostName + "]");
        this.thread.setDaemon(true);
        this.failures = new RepeatedFailureLog(RepeatedFailureLog.forWarn(log), FAILURE_SUMMARY_PERIOD_MILLIS,
                destinations::nowMillis);
    }

    /**
     * A sender configured as stream.conf's {@code [stream]} section says (timeouts, reconnect
     * delay, buffer size, compression, TLS for {@code :SSL} destinations), to {@code destination}
     * (a Netdata destination list).
     */
    public static StreamSender fromSettings(String hostName, StreamConfig.SenderSettings settings,
                                            String destination, Handshake handshake, SenderListener listener,
                                            EventLoopGroup group) {
        DestinationList destinations = DestinationList.parse(destination, (int) settings.defaultPort(),
                Clocks::wallMillis);
        Config cfg = new Config(Duration.ofSeconds(settings.timeoutSeconds()),
                Duration.ofSeconds(Math.min(60, settings.timeoutSeconds())),
                Duration.ofSeconds(settings.reconnectDelaySeconds()), settings.bufferSizeBytes());
        StreamSender sender = new StreamSender(hostName, destinations, handshake,
                StreamSender::compressionEncoder,
                listener, cfg, group);
        if (destinations.entries().stream().anyMatch(e -> e.destination().ssl())) {
            try {
                sender.withTls(TlsContexts.client(settings.sslSkipCertificateVerification(),
                        settings.caFile()));
            } catch (IOException e) {
                log.error("STREAM {}: {}; TLS destinations will be postponed", hostName, e.getMessage());
            }
        }
        return sender;
    }

    /**
     * The encoder of the compression {@code negotiated} names ({@link Capabilities#compression}: ZSTD before
     * LZ4), null for none.
     */
    public static ChannelHandler compressionEncoder(long negotiated) {
        long compression = Capabilities.compression(negotiated);
        boolean binary = Capabilities.has(negotiated, Capabilities.BINARY);
        if (compression == Capabilities.ZSTD) {
            return new ZstdStreamFrameEncoder(binary);
        }
        if (compression == Capabilities.COMPRESSION) {
            return new Lz4StreamFrameEncoder(binary);
        }
        return null;
    }

    /**
     * The TLS client for {@code :SSL} destinations (stream.conf {@code CAfile}, {@code CApath},
     * {@code ssl skip certificate verification}); without one they are postponed.
     */
    public StreamSender withTls(SslContext tls) {
        this.clientTls = tls;
        return this;
    }

    /**
     * Before each connection attempt, asks every available parent {@code /api/v3/stream_info}
     * about {@code machineGuid} (at once, on the event loop, each bounded by
     * {@value #STREAM_INFO_TIMEOUT_SECONDS} s) and tries them in the order {@link ParentRanking}
     * gives: the one holding this host's newest data first, the list's order among equals, a
     * parent that is initializing or is this host itself set aside. Parents without the endpoint
     * (1.37.1) keep the list's order.
     */
    public StreamSender withStreamInfo(String machineGuid) {
        this.streamInfoGuid = Objects.requireNonNull(machineGuid, "machineGuid");
        return this;
    }

    /** Starts connecting. */
    public synchronized void start() {
        if (running || thread.getState() != Thread.State.NEW) {
            throw new IllegalStateException("sender for " + hostName + " was already started");
        }
        running = true;
        thread.start();
    }

    /** The accepted connection, or null while not connected. */
    public SenderSession session() {
        SenderSession s = current;
        return s != null && s.isOpen() ? s : null;
    }

    public DestinationList destinations() {
        return destinations;
    }

    /** Stops the sender: closes the connection and waits for the connection thread to end. */
    @Override
    public void close() {
        running = false;
        thread.interrupt();
        SenderSession s = current;
        if (s != null) {
            s.close("sender stopped");
        }
        if (thread.getState() != Thread.State.NEW) {
            try {
                thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (ownsGroup) {
            Transports.stop(group).awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
    }

    // ---- the connection thread ------------------------------------------------------------------

    private void run() {
        try {
            while (running) {
                SenderSession s;
                try {
                    s = connect();
                } catch (RuntimeException e) {
                    // a bug or a bad injected component: keep the host streaming, retry later
                    log.error("STREAM {} [send]: connection attempt failed", hostName, e);
                    s = null;
                }
                if (s == null) {
                    Thread.sleep(config.reconnectDelay().toMillis());
                    continue;
                }
                serve(s);
            }
        } catch (InterruptedException e) {
            // close() asked us to stop
        } finally {
            SenderSession s = current;
            current = null;
            if (s != null) {
                s.close("sender stopped");
            }
        }
    }

    /**
     * One attempt: the first available destination that accepts TCP gets the handshake. Returns
     * the accepted session, or null after a failure (the caller sleeps).
     */
    private SenderSession connect() throws InterruptedException {
        List<Destination> candidates = destinations.available(destinations.nowMillis());
        if (candidates.isEmpty()) {
            log.debug("STREAM {} [send]: every destination is postponed for {} ms more", hostName,
                    destinations.millisUntilNextAvailable(destinations.nowMillis()));
            return null;
        }
        String guid = streamInfoGuid;
        if (guid != null) {
            candidates = rankByStreamInfo(candidates, guid);
        }
        for (Destination d : candidates) {
            if (!running) {
                return null;
            }
            Channel ch = tcpConnect(d);
            if (ch == null) {
                continue;
            }
            destinations.connected(d);
            try {
                return handshake(d, ch);
            } catch (InterruptedException | RuntimeException e) {
                // stopped (or a bug) in the middle of the handshake: the connection goes with it
                ch.close();
                throw e;
            }
        }
        return null;
    }

    /**
     * Asks every candidate {@code stream_info} at once and waits (bounded) for all answers; returns
     * the candidates in {@link ParentRanking}'s order and postpones those it sets aside.
     */
    private List<Destination> rankByStreamInfo(List<Destination> candidates, String guid) throws InterruptedException {
        StreamInfoProbe probe = new StreamInfoProbe(group, Duration.ofSeconds(STREAM_INFO_TIMEOUT_SECONDS));
        Map<Destination, CompletableFuture<StreamInfoReply.Probe>> asked = new LinkedHashMap<>();
        Map<Destination, StreamInfoReply.Probe> answers = new HashMap<>();
        try {
            for (Destination d : candidates) {
                asked.putIfAbsent(d, probe.ask(d, guid, clientTls));
            }
            // the probe ends itself after its timeout; the margin covers a busy event loop
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(STREAM_INFO_TIMEOUT_SECONDS + 2);
            for (Map.Entry<Destination, CompletableFuture<StreamInfoReply.Probe>> e : asked.entrySet()) {
                StreamInfoReply.Probe p;
                try {
                    p = e.getValue().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (TimeoutException late) {
                    p = StreamInfoReply.Probe.noAnswer("no answer in time");
                } catch (ExecutionException failed) {
                    p = StreamInfoReply.Probe.noAnswer(String.valueOf(failed.getCause()));
                }
                answers.put(e.getKey(), p);
                log.debug("STREAM {} [send to {}]: stream_info: {} {} (last_time_s {})", hostName, e.getKey(),
                        p.kind(), p.detail(), p.lastTimeS());
            }
        } finally {
            // an interrupted wait leaves no connection behind
            asked.values().forEach(f -> f.cancel(false));
        }
        ParentRanking.Ranking r = ParentRanking.rank(candidates, answers,
                n -> ThreadLocalRandom.current().nextInt(n));
        for (ParentRanking.SetAside s : r.setAside()) {
            log.info("STREAM {} [send to {}]: {} - will retry in {} secs", hostName, s.destination(), s.reason(),
                    s.seconds());
            destinations.postpone(s.destination(), s.seconds(), s.reason());
        }
        List<Destination> order = r.order();
        if (!order.isEmpty() && order.contains(candidates.get(0)) && !order.get(0).equals(candidates.get(0))) {
            log.info("STREAM {}: trying '{}' first: it holds this host up to {} ({} holds it up to {})", hostName,
                    order.get(0), answers.get(order.get(0)).lastTimeS(), candidates.get(0),
                    answers.get(candidates.get(0)).lastTimeS());
        }
        return order;
    }

    private Channel tcpConnect(Destination d) throws InterruptedException {
        InetSocketAddress address = d.socketAddress();
        if (address.isUnresolved()) {
            failed(d, "cannot resolve host '" + d.host() + "'");
            return null;
        }
        SslContext tls = clientTls;
        if (d.ssl() && tls == null) {
            log.error("STREAM {} [send to {}]: a TLS destination, but no TLS client is configured", hostName, d);
            destinations.postpone(d, 300, "TLS is not configured on this sender");
            return null;
        }
        log.info("STREAM {}: connecting to '{}' (port {})...", hostName, d, d.port());
        Bootstrap b = new Bootstrap()
                .group(group)
                .channel(Transports.socketChannel(group))
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) config.connectTimeout().toMillis())
                // one read of at most 8192 bytes, like the C recv() of the reply
                .option(ChannelOption.RECVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(MAX_REPLY_BYTES))
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
                        if (Transports.isEpoll(group)) {
                            // unacknowledged data for longer than the timeout ends the connection: a
                            // silent partition is noticed, and the next destination tried, in time
                            ctx.channel().config().setOption(EpollChannelOption.TCP_USER_TIMEOUT,
                                    (int) Math.min(Integer.MAX_VALUE, config.timeout().toMillis()));
                        }
                        super.handlerAdded(ctx);
                    }

                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (d.ssl()) {
                            ch.pipeline().addLast("tls", tls.newHandler(ch.alloc(), d.host(), d.port()));
                        }
                        ch.pipeline().addLast(ReplyCollector.NAME, new ReplyCollector());
                    }
                });
        ChannelFuture f = b.connect(address);
        try {
            return awaitConnected(d, f, tls);
        } catch (InterruptedException e) {
            // stopped while connecting: the attempt must not outlive the sender, whichever way it ends
            f.addListener(ChannelFutureListener.CLOSE);
            throw e;
        }
    }

    private Channel awaitConnected(Destination d, ChannelFuture f, SslContext tls) throws InterruptedException {
        if (!f.await(config.connectTimeout().toMillis() + 1000)) {
            f.cancel(false);
            f.channel().close();
            failed(d, "connect did not complete in time");
            return null;
        }
        if (!f.isSuccess()) {
            failed(d, "failed to connect: " + (f.cause() == null ? "cancelled" : f.cause().getMessage()));
            return null;
        }
        if (d.ssl()) {
            // as Netdata: a TLS failure (handshake, certificate) postpones the destination 300 s
            SslHandler h = f.channel().pipeline().get(SslHandler.class);
            Future<Channel> done = h.handshakeFuture();
            if (!done.await(config.connectTimeout().toMillis() + 1000) || !done.isSuccess()) {
                String why = done.cause() == null ? "timeout" : done.cause().getMessage();
                failed(d, "TLS handshake failed: " + why + " - will retry in 300 secs");
                f.channel().close();
                destinations.postpone(d, 300, "TLS handshake failed: " + why);
                return null;
            }
        }
        return f.channel();
    }

    private SenderSession handshake(Destination d, Channel ch) throws InterruptedException {
        long timeoutMillis = config.timeout().toMillis();
        ReplyCollector collector = (ReplyCollector) ch.pipeline().get(ReplyCollector.NAME);
        byte[] request;
        try {
            request = handshake.request(d);
        } catch (RuntimeException e) {
            ch.close();
            throw e;
        }
        ChannelFuture sent = ch.writeAndFlush(Unpooled.wrappedBuffer(request));
        if (!sent.await(timeoutMillis) || !sent.isSuccess()) {
            ch.close();
            failed(d, "failed to send the request to the remote netdata ("
                    + (sent.cause() == null ? "timeout" : sent.cause().getMessage()) + ")");
            destinations.postpone(d, POSTPONE_SEND_FAILED, "timeout while sending request");
            return null;
        }
        byte[] reply;
        try {
            reply = collector.reply.get(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            reply = null;
        } catch (ExecutionException e) {
            reply = new byte[0];
        }
        if (reply == null || reply.length == 0) {
            ch.close();
            String why = reply == null ? "timeout while expecting first response" : "connection closed before a response";
            failed(d, "remote netdata does not respond (" + why + ") - will retry in " + POSTPONE_NO_REPLY + " secs");
            destinations.postpone(d, POSTPONE_NO_REPLY, why);
            return null;
        }
        Handshake.Outcome outcome;
        try {
            outcome = handshake.parseReply(reply, reply.length);
        } catch (RuntimeException e) {
            log.error("STREAM {} [send to {}]: cannot judge the reply", hostName, d, e);
            outcome = Handshake.Outcome.refused(POSTPONE_SEND_FAILED, "reply not understood: " + e.getMessage());
        }
        if (!outcome.accepted()) {
            ch.close();
            if (outcome.reason().startsWith(HandshakeReplies.Kind.ALREADY_STREAMING.name())) {
                // normal in a cluster: the parent already has this host, from the host itself or a peer
                log.info("STREAM {} [send to {}]: {} - will retry in {} secs", hostName, d, outcome.reason(),
                        outcome.postponeSeconds());
            } else if (outcome.reason().startsWith(HandshakeReplies.Kind.NOT_PERMITTED.name())) {
                // the parent's stream.conf refuses this API key or host: a person has to act
                log.error("STREAM {} [send to {}]: {} - will retry in {} secs", hostName, d, outcome.reason(),
                        outcome.postponeSeconds());
            } else {
                failed(d, outcome.reason() + " - will retry in " + outcome.postponeSeconds() + " secs");
            }
            destinations.postpone(d, outcome.postponeSeconds(), outcome.reason());
            return null;
        }
        long caps = outcome.capabilities();
        SenderSession session = new SenderSession(hostName, ch, d, caps, config.bufferSizeBytes());
        try {
            ch.eventLoop().submit(() -> installStreamPipeline(ch, session, caps)).syncUninterruptibly();
        } catch (RuntimeException e) {
            log.error("STREAM {} [send to {}]: cannot set up the stream pipeline", hostName, d, e);
            ch.close();
            return null;
        }
        log.info("STREAM {} [send to {}]: established link with negotiated capabilities {}", hostName, d, caps);
        failures.recovered(logKey(d), "connected");
        current = session;
        try {
            listener.onConnected(session, caps);
        } catch (RuntimeException e) {
            log.error("STREAM {} [send to {}]: the listener failed on connect", hostName, d, e);
            session.close("listener failed: " + e);
        }
        return session;
    }

    /** On the event loop: replaces the reply collector by the stream handlers. */
    private void installStreamPipeline(Channel ch, SenderSession session, long caps) {
        ReplyCollector collector = (ReplyCollector) ch.pipeline().get(ReplyCollector.NAME);
        ByteBuf leftover = collector.takeLeftover();
        ch.pipeline().remove(collector);
        if ((caps & Capabilities.COMPRESSIONS) != 0) {
            ChannelHandler c = compression.apply(caps);
            if (c != null) {
                ch.pipeline().addLast("compression", c);
            }
        }
        ParentCommandHandler commands = new ParentCommandHandler(hostName, session);
        ch.pipeline().addLast(ParentCommandHandler.NAME, commands);
        long timeoutNanos = config.timeout().toNanos();
        ScheduledFuture<?> watchdog = ch.eventLoop().scheduleAtFixedRate(
                () -> session.closeIfStalled(System.nanoTime(), timeoutNanos), 1, 1, TimeUnit.SECONDS);
        ch.closeFuture().addListener(f -> watchdog.cancel(false));
        if (leftover != null) {
            try {
                commands.feed(leftover);
            } finally {
                leftover.release();
            }
        }
        if (!ch.isActive()) {
            session.disconnected("connection closed by the parent");
        }
        session.startReading();
    }

    /** Runs the listener for one session until it ends. */
    private void serve(SenderSession s) throws InterruptedException {
        try {
            while (true) {
                Object ev = s.nextEvent();
                if (ev instanceof SenderSession.CommandLine c) {
                    try {
                        listener.onParentCommand(s, c.line(), c.line().length);
                    } catch (RuntimeException e) {
                        log.error("STREAM {} [send to {}]: the listener failed on a parent command", hostName,
                                s.destination(), e);
                    }
                } else if (ev instanceof SenderSession.Disconnected d) {
                    current = null;
                    // close() clears running before it closes the session: a stop is not a lost
                    // connection, whether this thread sees the close or the interrupt first
                    if (running) {
                        failed(s.destination(), "connection lost: " + d.reason() + " - " + s.sentBytes()
                                + " bytes sent");
                    }
                    notifyDisconnected(d.reason());
                    return;
                }
            }
        } catch (InterruptedException e) {
            current = null;
            s.close("sender stopped");
            notifyDisconnected("sender stopped");
            throw e;
        }
    }

    /** A failure that repeats while a parent is down: WARN, rate-limited per destination. */
    private void failed(Destination d, String what) {
        String key = logKey(d);
        failures.failed(key, key + ": " + what);
    }

    private String logKey(Destination d) {
        return "STREAM " + hostName + " [send to " + d + "]";
    }

    /** Failures logged or counted for {@code d} since it last connected (for tests). */
    long failuresSinceConnected(Destination d) {
        return failures.failures(logKey(d));
    }

    private void notifyDisconnected(String reason) {
        try {
            listener.onDisconnected(reason);
        } catch (RuntimeException e) {
            log.error("STREAM {} [send]: the listener failed on disconnect", hostName, e);
        }
    }

    // ---- handlers -------------------------------------------------------------------------------

    /**
     * During the handshake: the first read is the reply (at most 8192 bytes); reading then stops
     * until the stream pipeline is installed, and whatever else arrived is kept for it.
     */
    static final class ReplyCollector extends ChannelInboundHandlerAdapter {
        static final String NAME = "reply";
        final CompletableFuture<byte[]> reply = new CompletableFuture<>();
        private ByteBuf leftover;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf in = (ByteBuf) msg;
            try {
                if (!reply.isDone()) {
                    byte[] r = new byte[Math.min(in.readableBytes(), MAX_REPLY_BYTES)];
                    in.readBytes(r);
                    ctx.channel().config().setAutoRead(false);
                    reply.complete(r);
                }
                if (in.isReadable()) {
                    if (leftover == null) {
                        leftover = ctx.alloc().buffer(in.readableBytes());
                    }
                    leftover.writeBytes(in);
                }
            } finally {
                in.release();
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            reply.complete(new byte[0]);
            ctx.fireChannelInactive();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            reply.complete(new byte[0]);
            ctx.close();
        }

        ByteBuf takeLeftover() {
            ByteBuf l = leftover;
            leftover = null;
            return l;
        }

        @Override
        public void handlerRemoved(ChannelHandlerContext ctx) {
            if (leftover != null) {
                leftover.release();
                leftover = null;
            }
        }
    }

    /**
     * After acceptance: splits what the parent sends into lines for the connection thread, and
     * reports the end of the connection. A line longer than {@value #MAX_COMMAND_LINE_BYTES} bytes
     * is dropped (logged).
     */
    static final class ParentCommandHandler extends ChannelInboundHandlerAdapter {
        static final String NAME = "parent-commands";
        private final String hostName;
        private final SenderSession session;
        private final byte[] line = new byte[MAX_COMMAND_LINE_BYTES];
        private int length;
        private boolean skippingOverlong;

        ParentCommandHandler(String hostName, SenderSession session) {
            this.hostName = hostName;
            this.session = session;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf in = (ByteBuf) msg;
            try {
                feed(in);
            } finally {
                in.release();
            }
        }

        void feed(ByteBuf in) {
            while (in.isReadable()) {
                byte b = in.readByte();
                if (b == '\n') {
                    if (!skippingOverlong) {
                        session.commandReceived(Arrays.copyOf(line, length));
                    }
                    length = 0;
                    skippingOverlong = false;
                } else if (!skippingOverlong) {
                    if (length == line.length) {
                        log.error("STREAM {} [send to {}]: the parent sent a line longer than {} bytes; ignoring it",
                                hostName, session.destination(), MAX_COMMAND_LINE_BYTES);
                        skippingOverlong = true;
                        length = 0;
                    } else {
                        line[length++] = b;
                    }
                }
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            session.disconnected("connection closed by the parent");
            ctx.fireChannelInactive();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            session.close("socket error: " + cause);
        }
    }
}
