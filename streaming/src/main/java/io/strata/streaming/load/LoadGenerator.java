package io.strata.streaming.load;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.ReferenceCountUtil;
import io.strata.engine.page.StorageNumber;
import io.strata.engine.time.Clocks;
import io.strata.streaming.handshake.Capabilities;
import io.strata.streaming.handshake.HandshakeReplies;
import io.strata.streaming.handshake.StreamRequest;
import io.strata.streaming.sender.SenderWireFormat;
import io.strata.streaming.sender.StreamSender;
import io.strata.streaming.server.Transports;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * A fleet of synthetic children speaking the real 1.37.1 protocol to one parent: handshake,
 * labels, chart definitions, then {@code BEGIN}/{@code SET}/{@code END} for every chart each
 * collection, LZ4- or ZSTD-framed when negotiated; or, with {@link Options#interpolated} and a parent
 * that grants INTERPOLATED and IEEE754, each collection as a 2.x child sends it:
 * {@code BEGIN2}/{@code SET2}/{@code END2} with base64 numbers, a gauge's value its collected value,
 * a counter's its rate over the collection's second (what the parent computes from the text form). Values look like a machine's (gauges that wander,
 * counters that grow). Collections are paced at {@code rate} per second per child, or as fast as
 * the parent takes them ({@code rate} 0: accelerated time, each still claiming one second).
 * Every loop is bounded by the run's duration.
 */
public final class LoadGenerator {

    /**
     * What to run.
     *
     * @param compression offer LZ4 (COMPRESSION)
     * @param zstd        offer 2.x's ZSTD too (with {@code compression}); a parent that has it prefers it
     * @param interpolated offer INTERPOLATED and IEEE754 and, where granted, write BEGIN2/SET2/END2
     */
    public record Options(String host, int port, int children, int metricsPerChild, int dimensionsPerChart,
                          double seconds, boolean compression, String apiKey, double rate, long seed, boolean zstd,
                          boolean interpolated) {
        /** The text form (BEGIN/SET/END). */
        public Options(String host, int port, int children, int metricsPerChild, int dimensionsPerChart,
                       double seconds, boolean compression, String apiKey, double rate, long seed, boolean zstd) {
            this(host, port, children, metricsPerChild, dimensionsPerChart, seconds, compression, apiKey, rate, seed,
                    zstd, false);
        }

        /** Without ZSTD: LZ4 when {@code compression}. */
        public Options(String host, int port, int children, int metricsPerChild, int dimensionsPerChart,
                       double seconds, boolean compression, String apiKey, double rate, long seed) {
            this(host, port, children, metricsPerChild, dimensionsPerChart, seconds, compression, apiKey, rate, seed,
                    false, false);
        }

        public Options {
            if (children <= 0 || metricsPerChild <= 0 || dimensionsPerChart <= 0 || seconds <= 0) {
                throw new IllegalArgumentException("children, metrics per child, dimensions per chart and seconds "
                        + "must be positive");
            }
            if (seconds > 86_400) {
                throw new IllegalArgumentException("a load run is bounded to one day");
            }
        }
    }

    /**
     * What happened.
     *
     * @param wireBytes the bytes the fleet wrote to its sockets (requests, definitions and data, after
     *                  compression): with {@code uncompressedBytes}, the cost of a compression on the wire
     * @param form      the data form the accepted children wrote: {@link #TEXT}, {@link #INTERPOLATED}, or
     *                  {@link #TEXT_FALLBACK} when INTERPOLATED was asked for and a parent did not grant it
     *                  (then every child wrote text)
     * @param capabilities the capabilities every accepted child negotiated (the AND of theirs; 0 when none was)
     */
    public record Result(long samplesSent, double seconds, double samplesPerSecond, long collections,
                         long uncompressedBytes, int childrenAccepted, List<String> refusals, List<String> errors,
                         long wireBytes, String form, long capabilities) {
        public static final String TEXT = "text";
        public static final String INTERPOLATED = "interpolated";
        public static final String TEXT_FALLBACK = "text (the parent did not grant INTERPOLATED and IEEE754)";
    }

    /** Counts what reaches the socket: the handler nearest to it. */
    private static final String WIRE_COUNT = "wire-count";

    /** Offered without REPLICATION and FUNCTIONS: the load is the live stream, not gap filling. */
    static long offeredCapabilities(boolean compression, boolean zstd, boolean interpolated) {
        return Capabilities.VCAPS | Capabilities.HLABELS | Capabilities.CLAIM | Capabilities.CLABELS
                | Capabilities.BINARY | (compression ? Capabilities.COMPRESSION : 0)
                | (compression && zstd ? Capabilities.ZSTD : 0)
                | (interpolated ? Capabilities.INTERPOLATED_IEEE754 : 0);
    }

    public Result run(Options o) throws InterruptedException {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(Math.min(2, o.children()), NioIoHandler.newFactory());
        LongAdder samples = new LongAdder();
        LongAdder collections = new LongAdder();
        LongAdder bytes = new LongAdder();
        LongAdder wireBytes = new LongAdder();
        AtomicInteger accepted = new AtomicInteger();
        AtomicInteger interpolating = new AtomicInteger();
        AtomicLong negotiated = new AtomicLong(-1);
        List<String> refusals = Collections.synchronizedList(new ArrayList<>());
        List<String> errors = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch handshakes = new CountDownLatch(o.children());
        long startNanos;
        long endNanos;
        List<SyntheticChild> fleet = new ArrayList<>();
        try {
            Bootstrap b = new Bootstrap().group(group).channel(NioSocketChannel.class)
                    .option(ChannelOption.TCP_NODELAY, true)
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 5000)
                    .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(256 * 1024, 1024 * 1024));
            for (int i = 0; i < o.children(); i++) {
                SyntheticChild child = new SyntheticChild(o, i, samples, collections, bytes, accepted, refusals,
                        errors, handshakes);
                child.negotiated = negotiated;
                child.interpolating = interpolating;
                fleet.add(child);
                b.clone().handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(WIRE_COUNT, new ChannelOutboundHandlerAdapter() {
                            @Override
                            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                                if (msg instanceof ByteBuf buf) {
                                    wireBytes.add(buf.readableBytes());
                                }
                                ctx.write(msg, promise);
                            }
                        });
                        ch.pipeline().addLast("load-child", child);
                    }
                }).connect(o.host(), o.port()).addListener((ChannelFuture f) -> {
                    if (!f.isSuccess()) {
                        errors.add("child " + child.index + ": cannot connect to " + o.host() + ":" + o.port() + ": "
                                + f.cause().getMessage());
                        handshakes.countDown();
                    }
                });
            }
            handshakes.await(30, TimeUnit.SECONDS);
            long s0 = samples.sum();
            startNanos = System.nanoTime();
            long deadline = startNanos + (long) (o.seconds() * 1e9);
            for (SyntheticChild c : fleet) {
                c.startCollecting(deadline);
            }
            while (System.nanoTime() < deadline) {
                Thread.sleep(Math.max(1, Math.min(200, (deadline - System.nanoTime()) / 1_000_000)));
            }
            for (SyntheticChild c : fleet) {
                c.stop();
            }
            endNanos = System.nanoTime();
            long sent = samples.sum() - s0;
            double secs = (endNanos - startNanos) / 1e9;
            String form = interpolating.get() == 0
                    ? (o.interpolated() && accepted.get() > 0 ? Result.TEXT_FALLBACK : Result.TEXT)
                    : interpolating.get() == accepted.get() ? Result.INTERPOLATED
                    : interpolating.get() + " of " + accepted.get() + " children interpolated, the others text "
                    + "(not granted INTERPOLATED and IEEE754)";
            long caps = accepted.get() == 0 ? 0 : negotiated.get();
            return new Result(sent, secs, sent / secs, collections.sum(), bytes.sum(), accepted.get(),
                    List.copyOf(refusals), List.copyOf(errors), wireBytes.sum(), form, caps);
        } finally {
            Transports.stop(group).awaitUninterruptibly(10, TimeUnit.SECONDS);
        }
    }

    /** One child: its connection, its charts, its values. Runs on one event loop. */
    static final class SyntheticChild extends ChannelInboundHandlerAdapter {
        final Options o;
        final int index;
        final UUID guid;
        final String hostname;
        final int charts;
        final byte[][] beginLine;
        final byte[][][] setPrefix;
        /** For BEGIN2/SET2: the chart ids and dimension ids, UTF-8. */
        final byte[][] chartId;
        final byte[][] dimensionId;
        final long[] values;
        final boolean[] counter;
        final SplittableRandom rnd;
        final LongAdder samples;
        final LongAdder collections;
        final LongAdder bytes;
        final AtomicInteger accepted;
        final List<String> refusals;
        final List<String> errors;
        final CountDownLatch handshakes;
        Channel channel;
        boolean handshakeDone;
        AtomicLong negotiated;
        AtomicInteger interpolating;
        /** The parent granted INTERPOLATED and IEEE754: collections go as BEGIN2/SET2/END2. */
        boolean interpolated;
        /** The end time (seconds) of the next BEGIN2: the wall clock at the first, one second more each. */
        long nextEndSeconds;
        volatile boolean stopped;
        long deadline;
        int inFlight;

        SyntheticChild(Options o, int index, LongAdder samples, LongAdder collections, LongAdder bytes,
                       AtomicInteger accepted, List<String> refusals, List<String> errors, CountDownLatch handshakes) {
            this.o = o;
            this.index = index;
            this.guid = UUID.nameUUIDFromBytes(("strata-load-" + o.seed() + "-" + index).getBytes(StandardCharsets.UTF_8));
            this.hostname = "load-child-" + index;
            int dims = o.dimensionsPerChart();
            this.charts = (o.metricsPerChild() + dims - 1) / dims;
            this.beginLine = new byte[charts][];
            this.setPrefix = new byte[charts][][];
            this.chartId = new byte[charts][];
            this.dimensionId = new byte[dims][];
            for (int d = 0; d < dims; d++) {
                dimensionId[d] = ("d" + d).getBytes(StandardCharsets.UTF_8);
            }
            int metrics = charts * dims;
            this.values = new long[metrics];
            this.counter = new boolean[metrics];
            this.rnd = new SplittableRandom(o.seed() * 1_000_003L + index);
            for (int c = 0; c < charts; c++) {
                beginLine[c] = ("BEGIN \"load.chart" + c + "\" 1000000\n").getBytes(StandardCharsets.US_ASCII);
                chartId[c] = ("load.chart" + c).getBytes(StandardCharsets.UTF_8);
                setPrefix[c] = new byte[dims][];
                for (int d = 0; d < dims; d++) {
                    setPrefix[c][d] = ("SET \"d" + d + "\" = ").getBytes(StandardCharsets.US_ASCII);
                    int m = c * dims + d;
                    counter[m] = (c % 3) == 0;
                    values[m] = counter[m] ? rnd.nextLong(1L << 40) : rnd.nextLong(100_000);
                }
            }
            this.samples = samples;
            this.collections = collections;
            this.bytes = bytes;
            this.accepted = accepted;
            this.refusals = refusals;
            this.errors = errors;
            this.handshakes = handshakes;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            channel = ctx.channel();
            long caps = offeredCapabilities(o.compression(), o.zstd(), o.interpolated());
            byte[] req = StreamRequest.builder().key(o.apiKey()).hostname(hostname).registryHostname(hostname)
                    .machineGuid(guid.toString()).updateEvery(1).ver(caps).build().encode();
            ctx.writeAndFlush(ctx.alloc().buffer(req.length).writeBytes(req));
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            try {
                if (handshakeDone || !(msg instanceof ByteBuf buf)) {
                    return; // a parent sends nothing we act on without REPLICATION and FUNCTIONS
                }
                handshakeDone = true;
                byte[] reply = new byte[buf.readableBytes()];
                buf.readBytes(reply);
                HandshakeReplies.Reply r = HandshakeReplies.parseReply(reply, reply.length);
                if (r.kind() != HandshakeReplies.Kind.ACCEPTED) {
                    refusals.add(hostname + ": " + new String(reply, StandardCharsets.US_ASCII));
                    stopped = true;
                    ctx.close();
                    handshakes.countDown();
                    return;
                }
                long granted = r.capabilities();
                if (negotiated != null) {
                    negotiated.accumulateAndGet(granted, (a, b) -> a & b);
                }
                interpolated = o.interpolated()
                        && (granted & Capabilities.INTERPOLATED_IEEE754) == Capabilities.INTERPOLATED_IEEE754;
                if (interpolated && interpolating != null) {
                    interpolating.incrementAndGet();
                }
                ChannelHandler compressor = StreamSender.compressionEncoder(granted);
                if (compressor != null) {
                    ctx.pipeline().addAfter(WIRE_COUNT, "compression", compressor);
                }
                writeDefinitions(ctx);
                accepted.incrementAndGet();
                handshakes.countDown();
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }

        private void writeDefinitions(ChannelHandlerContext ctx) {
            StringBuilder s = new StringBuilder();
            s.append("CLAIMED_ID ").append(guid).append(" NULL\n");
            s.append("LABEL \"_os_name\" = 1 \"Strata load\"\n");
            s.append("LABEL \"load_child\" = 2 \"").append(index).append("\"\n");
            s.append("OVERWRITE labels\n");
            for (int c = 0; c < charts; c++) {
                boolean isCounter = counter[c * o.dimensionsPerChart()];
                s.append("CHART \"load.chart").append(c).append("\" \"\" \"Synthetic chart ").append(c)
                        .append("\" \"").append(isCounter ? "events/s" : "value").append("\" \"load\" \"load.")
                        .append(isCounter ? "rate" : "gauge").append("\" \"line\" ").append(1000 + c)
                        .append(" 1 \"   \" \"strata\" \"load\"\n");
                s.append("CLABEL \"generator\" \"strata\" 1\nCLABEL_COMMIT\n");
                for (int d = 0; d < o.dimensionsPerChart(); d++) {
                    s.append("DIMENSION \"d").append(d).append("\" \"d").append(d).append("\" \"")
                            .append(isCounter ? "incremental" : "absolute").append("\" 1 1 \"  \"\n");
                }
                if (s.length() > 1 << 20) {
                    flushText(ctx, s);
                }
            }
            flushText(ctx, s);
        }

        private void flushText(ChannelHandlerContext ctx, StringBuilder s) {
            byte[] b = s.toString().getBytes(StandardCharsets.UTF_8);
            bytes.add(b.length);
            ctx.writeAndFlush(ctx.alloc().buffer(b.length).writeBytes(b));
            s.setLength(0);
        }

        void startCollecting(long deadline) {
            this.deadline = deadline;
            if (channel == null || !handshakeDone || !channel.isActive()) {
                return;
            }
            if (o.rate() > 0) {
                long periodNanos = (long) (1e9 / o.rate());
                channel.eventLoop().scheduleAtFixedRate(this::collectOnce, 0, periodNanos, TimeUnit.NANOSECONDS);
            } else {
                channel.eventLoop().execute(this::pump);
            }
        }

        void stop() {
            stopped = true;
            if (channel != null) {
                channel.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
            }
        }

        /** As fast as the parent takes it: keep two collections in flight. */
        private void pump() {
            while (!stopped && inFlight < 2 && channel.isActive() && System.nanoTime() < deadline) {
                inFlight++;
                int n = writeCollection();
                channel.writeAndFlush(lastBuffer).addListener(f -> {
                    inFlight--;
                    if (f.isSuccess()) {
                        samples.add(n);
                        collections.increment();
                        pump();
                    } else if (!stopped) {
                        errors.add(hostname + ": " + f.cause());
                    }
                });
            }
        }

        private void collectOnce() {
            if (stopped || !channel.isActive() || System.nanoTime() >= deadline) {
                return;
            }
            if (!channel.isWritable()) {
                return; // the parent is behind: skip this collection, as a real child's buffer would not grow forever
            }
            int n = writeCollection();
            channel.writeAndFlush(lastBuffer).addListener(f -> {
                if (f.isSuccess()) {
                    samples.add(n);
                    collections.increment();
                }
            });
        }

        private ByteBuf lastBuffer;

        /**
         * Moves metric {@code m} to its next collected value (a gauge wanders by up to 100, a counter grows
         * by less than 1000; the same sequence for the same seed, child and order of calls) and returns it.
         */
        long advance(int m) {
            long v = values[m];
            v = counter[m] ? v + rnd.nextLong(1000) : Math.max(0, v + rnd.nextLong(201) - 100);
            values[m] = v;
            return v;
        }

        /** One collection of every chart in one buffer (one LZ4 run compresses it well); returns its samples. */
        private int writeCollection() {
            int dims = o.dimensionsPerChart();
            ByteBuf out;
            if (interpolated) {
                out = channel.alloc().buffer(charts * (32 + dims * 24));
                writeInterpolatedCollection(out);
            } else {
                out = channel.alloc().buffer(charts * (24 + dims * 28));
                for (int c = 0; c < charts; c++) {
                    out.writeBytes(beginLine[c]);
                    for (int d = 0; d < dims; d++) {
                        long v = advance(c * dims + d);
                        out.writeBytes(setPrefix[c][d]);
                        writeDecimal(out, v);
                        out.writeByte('\n');
                    }
                    out.writeByte('E').writeByte('N').writeByte('D').writeByte('\n');
                }
            }
            bytes.add(out.readableBytes());
            lastBuffer = out;
            return charts * dims;
        }

        /**
         * One second of every chart as a 2.x child with INTERPOLATED and IEEE754 sends it: the slot ending
         * one second after the previous one; a gauge's value is its collected value ({@code #}), a
         * counter's is its increase over that second, its rate as the parent would compute it from
         * {@code SET} (an incremental dimension, multiplier and divisor 1, collections one second apart).
         */
        private void writeInterpolatedCollection(ByteBuf out) {
            int dims = o.dimensionsPerChart();
            if (nextEndSeconds == 0) {
                nextEndSeconds = Clocks.wallMillis() / 1000;
            }
            long end = nextEndSeconds++;
            for (int c = 0; c < charts; c++) {
                SenderWireFormat.begin2(out, chartId[c], 1, end, end, true);
                for (int d = 0; d < dims; d++) {
                    int m = c * dims + d;
                    long previous = values[m];
                    long v = advance(m);
                    double stored = counter[m] ? (double) (v - previous) : (double) v;
                    SenderWireFormat.set2(out, dimensionId[d], v, stored, StorageNumber.SN_FLAG_NOT_ANOMALOUS, true);
                }
                SenderWireFormat.end2(out);
            }
        }

        static void writeDecimal(ByteBuf out, long v) {
            if (v < 0) {
                out.writeByte('-');
                v = -v;
            }
            if (v < 10) {
                out.writeByte('0' + (int) v);
                return;
            }
            int start = out.writerIndex();
            while (v > 0) {
                out.writeByte('0' + (int) (v % 10));
                v /= 10;
            }
            for (int i = start, j = out.writerIndex() - 1; i < j; i++, j--) {
                byte t = out.getByte(i);
                out.setByte(i, out.getByte(j));
                out.setByte(j, t);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (!stopped) {
                errors.add(hostname + ": " + cause);
            }
            ctx.close();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (!stopped && handshakeDone) {
                errors.add(hostname + ": the parent closed the connection");
            }
        }
    }
}
