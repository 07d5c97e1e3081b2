package io.strata.node.attack;

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
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import io.strata.streaming.server.Transports;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.TreeMap;
import java.net.UnknownHostException;

/**
 * Attacks on a node's port, for tests and for operators checking their limits ({@code strata attack}):
 * connections that say nothing, requests sent a byte a second (slowloris), clients that pipeline
 * requests and never read, and a storm of synthetic children reconnecting. Loopback only, bounded in
 * count and time; each attack reports what the server did to its connections.
 *
 * <p>Connections come from the loopback addresses {@code 127.0.0.<first>} and on, spread evenly (Linux
 * routes all of 127/8 to {@code lo}), so per-address limits see several clients.
 */
public final class PortAttack implements AutoCloseable {

    /** What the server did with one attack's connections. */
    public record Figures(String attack, int launched, int connected, int closedByServer, int stillOpen,
                          double secondsToCloseMedian, double secondsToCloseMax, long bytesReceived,
                          Map<String, Integer> replies) {
        @Override
        public String toString() {
            return String.format("%-22s launched %5d connected %5d closed by the server %5d still open %5d; "
                            + "closed after median %.1f s, max %.1f s; %d bytes received; replies %s", attack, launched,
                    connected, closedByServer, stillOpen, secondsToCloseMedian, secondsToCloseMax, bytesReceived,
                    replies);
        }
    }

    /** Hard bound on the connections one attack opens. */
    public static final int MAX_CONNECTIONS = 20_000;

    private final InetSocketAddress target;
    private final int firstSourceHost;
    private final int sourceAddresses;
    private final EventLoopGroup group;

    /**
     * @param target           a loopback address of the node's port
     * @param firstSourceHost  the last byte of the first source address, 127.0.0.N (2..250)
     * @param sourceAddresses  how many source addresses to spread connections over
     */
    public PortAttack(InetSocketAddress target, int firstSourceHost, int sourceAddresses) {
        if (target.getAddress() == null || !target.getAddress().isLoopbackAddress()) {
            throw new IllegalArgumentException("attacks run on loopback only, not " + target);
        }
        if (firstSourceHost < 2 || sourceAddresses < 1 || firstSourceHost + sourceAddresses > 250) {
            throw new IllegalArgumentException("source addresses 127.0.0." + firstSourceHost + " x" + sourceAddresses);
        }
        this.target = target;
        this.firstSourceHost = firstSourceHost;
        this.sourceAddresses = sourceAddresses;
        this.group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    }

    /** One connection's story. */
    private static final class Conn extends ChannelInboundHandlerAdapter {
        final long startNanos = System.nanoTime();
        volatile long closedNanos;
        volatile boolean closedByUs;
        final StringBuilder head = new StringBuilder();
        final AtomicLong bytes = new AtomicLong();
        volatile Channel channel;
        volatile ScheduledFuture<?> drip;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof ByteBuf b) {
                bytes.addAndGet(b.readableBytes());
                synchronized (head) {
                    if (head.length() < 80) {
                        head.append(b.toString(b.readerIndex(), Math.min(b.readableBytes(), 80 - head.length()),
                                StandardCharsets.ISO_8859_1));
                    }
                }
            }
            ReferenceCountUtil.release(msg);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            closedNanos = System.nanoTime();
            ScheduledFuture<?> d = drip;
            if (d != null) {
                d.cancel(false);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }

        String reply() {
            synchronized (head) {
                String h = head.toString();
                if (h.isEmpty()) {
                    return "none";
                }
                int eol = h.indexOf('\r');
                return eol > 0 ? h.substring(0, eol) : h;
            }
        }
    }

    private InetSocketAddress source(int i) throws UnknownHostException {
        int host = firstSourceHost + (i % sourceAddresses);
        return new InetSocketAddress(InetAddress.getByAddress(new byte[]{127, 0, 0, (byte) host}), 0);
    }

    private List<Conn> open(int n, boolean autoRead) throws Exception {
        if (n < 0 || n > MAX_CONNECTIONS) {
            throw new IllegalArgumentException("connections: " + n + " (at most " + MAX_CONNECTIONS + ")");
        }
        List<Conn> conns = Collections.synchronizedList(new ArrayList<>());
        List<ChannelFuture> futures = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Conn c = new Conn();
            Bootstrap b = new Bootstrap().group(group).channel(NioSocketChannel.class)
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 10_000)
                    .option(ChannelOption.AUTO_READ, autoRead)
                    .option(ChannelOption.SO_RCVBUF, 16 * 1024)
                    .handler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(c);
                        }
                    });
            ChannelFuture f = b.connect(target, source(i));
            futures.add(f);
            conns.add(c);
            c.channel = f.channel();
            if (i % 200 == 199) {
                // a burst of SYNs beyond the listen backlog is retried by the kernel; pace them a little
                f.awaitUninterruptibly(2, TimeUnit.SECONDS);
            }
        }
        for (ChannelFuture f : futures) {
            f.awaitUninterruptibly(10, TimeUnit.SECONDS);
        }
        return conns;
    }

    private Figures wait(String name, List<Conn> conns, Duration limit) throws InterruptedException {
        long end = System.nanoTime() + limit.toNanos();
        while (System.nanoTime() < end) {
            boolean allClosed = true;
            for (Conn c : conns) {
                if (c.channel.isActive()) {
                    allClosed = false;
                    break;
                }
            }
            if (allClosed) {
                break;
            }
            Thread.sleep(50);
        }
        return figures(name, conns);
    }

    private static Figures figures(String name, List<Conn> conns) {
        int connected = 0;
        int closed = 0;
        int open = 0;
        long bytes = 0;
        List<Double> times = new ArrayList<>();
        Map<String, Integer> replies = new TreeMap<>();
        synchronized (conns) {
            for (Conn c : conns) {
                if (c.channel.isActive()) {
                    open++;
                    connected++;
                } else if (c.closedNanos != 0) {
                    connected++;
                    if (!c.closedByUs) {
                        closed++;
                        times.add((c.closedNanos - c.startNanos) / 1e9);
                    }
                }
                bytes += c.bytes.get();
                replies.merge(c.reply(), 1, Integer::sum);
            }
        }
        Collections.sort(times);
        double median = times.isEmpty() ? 0 : times.get(times.size() / 2);
        double max = times.isEmpty() ? 0 : times.get(times.size() - 1);
        return new Figures(name, conns.size(), connected, closed, open, median, max, bytes, replies);
    }

    private static void closeAll(List<Conn> conns) {
        synchronized (conns) {
            for (Conn c : conns) {
                if (c.channel.isActive()) {
                    c.closedByUs = true;
                    c.channel.close();
                }
            }
        }
    }

    /** {@code n} connections that send nothing; waits up to {@code limit} for the server to close them. */
    public Figures idle(int n, Duration limit) throws Exception {
        List<Conn> conns = open(n, true);
        Figures f = wait("idle", conns, limit);
        closeAll(conns);
        return f;
    }

    /**
     * {@code n} connections sending a request one byte a second ({@code stream}: a {@code STREAM}
     * handshake, else an HTTP GET with long headers), never finishing it.
     */
    public Figures slowloris(int n, boolean stream, Duration limit) throws Exception {
        String text = stream
                ? "STREAM key=11111111-2222-3333-4444-555555555555&hostname=slow&machine_guid="
                + UUID.randomUUID() + "&ver=16376 HTTP/1.1\r\nUser-Agent: netdata/v1.37.1\r\n" + "X".repeat(400)
                : "GET /api/v1/info HTTP/1.1\r\nHost: x\r\nUser-Agent: " + "X".repeat(400);
        byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        List<Conn> conns = open(n, true);
        synchronized (conns) {
            for (Conn c : conns) {
                AtomicInteger next = new AtomicInteger();
                Channel ch = c.channel;
                c.drip = ch.eventLoop().scheduleAtFixedRate(() -> {
                    int i = next.getAndIncrement();
                    if (ch.isActive() && i < bytes.length) {
                        ch.writeAndFlush(Unpooled.wrappedBuffer(bytes, i, 1));
                    }
                }, 0, 1, TimeUnit.SECONDS);
            }
        }
        Figures f = wait(stream ? "slowloris STREAM" : "slowloris HTTP", conns, limit);
        closeAll(conns);
        return f;
    }

    /**
     * {@code n} clients each sending {@code requests} pipelined GETs of {@code path} and reading nothing
     * for {@code notReadingFor}; then they start reading, which is how a client learns that the server
     * closed it (a close is only seen by a read). A server that closed them ends each connection after
     * what was in flight; one that did not keeps them open, serving the rest. The close times measured
     * are therefore at least {@code notReadingFor}.
     */
    public Figures pipelinersThatNeverRead(int n, int requests, String path, Duration notReadingFor, Duration limit)
            throws Exception {
        List<Conn> conns = open(n, false);
        byte[] req = ("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n").repeat(requests)
                .getBytes(StandardCharsets.US_ASCII);
        synchronized (conns) {
            for (Conn c : conns) {
                c.channel.writeAndFlush(Unpooled.wrappedBuffer(req));
            }
        }
        Thread.sleep(notReadingFor.toMillis());
        synchronized (conns) {
            for (Conn c : conns) {
                c.channel.config().setAutoRead(true);
            }
        }
        Figures f = wait("pipelining non-readers", conns, limit);
        closeAll(conns);
        return f;
    }

    /**
     * {@code children} synthetic children (fixed machine GUIDs) that connect at once, handshake with
     * {@code apiKey}, then close and reconnect every second for {@code duration}. The replies count what
     * the parent answered (its first 80 bytes up to the first CR).
     */
    public Figures reconnectStorm(int children, String apiKey, Duration duration, long seed) throws Exception {
        List<String> guids = new ArrayList<>();
        for (int i = 0; i < children; i++) {
            guids.add(UUID.nameUUIDFromBytes(("strata-attack-" + seed + "-" + i).getBytes(StandardCharsets.UTF_8))
                    .toString());
        }
        List<Conn> all = Collections.synchronizedList(new ArrayList<>());
        long end = System.nanoTime() + duration.toNanos();
        int round = 0;
        while (System.nanoTime() < end && round < 3600) {
            long roundStart = System.nanoTime();
            List<Conn> conns = open(children, true);
            synchronized (conns) {
                for (int i = 0; i < conns.size(); i++) {
                    String req = "STREAM key=" + apiKey + "&hostname=storm-" + i + "&machine_guid=" + guids.get(i)
                            + "&update_every=1&ver=16376&NETDATA_PROTOCOL_VERSION=1.1 HTTP/1.1\r\n"
                            + "User-Agent: netdata/v1.37.1\r\nAccept: */*\r\n\r\n";
                    conns.get(i).channel.writeAndFlush(Unpooled.copiedBuffer(req, StandardCharsets.US_ASCII));
                }
            }
            // the replies, then all disconnect
            long replyEnd = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(900);
            while (System.nanoTime() < replyEnd) {
                boolean all5 = true;
                synchronized (conns) {
                    for (Conn c : conns) {
                        if (c.bytes.get() == 0 && c.channel.isActive()) {
                            all5 = false;
                            break;
                        }
                    }
                }
                if (all5) {
                    break;
                }
                Thread.sleep(10);
            }
            closeAll(conns);
            all.addAll(conns);
            round++;
            long left = TimeUnit.SECONDS.toNanos(1) - (System.nanoTime() - roundStart);
            if (left > 0) {
                Thread.sleep(left / 1_000_000);
            }
        }
        Figures f = figures("reconnect storm (" + round + " rounds)", all);
        return f;
    }

    @Override
    public void close() {
        Transports.stop(group).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }

    /** Counts of what {@link Figures#replies()} holds, by class ("Hit me baby" = accepted). */
    public static Map<String, Integer> classify(Map<String, Integer> replies) {
        Map<String, Integer> out = new ConcurrentHashMap<>();
        replies.forEach((r, n) -> {
            String k = r.startsWith("Hit me baby") ? "accepted" : r.startsWith("HTTP/1.1 503") ? "503"
                    : r.startsWith("HTTP/1.1 200") ? "200" : r.startsWith("The server is too busy") ? "busy"
                    : r.equals("none") ? "no reply" : r.length() > 40 ? r.substring(0, 40) : r;
            out.merge(k, n, Integer::sum);
        });
        return out;
    }
}
