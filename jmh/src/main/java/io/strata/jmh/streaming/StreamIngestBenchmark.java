package io.strata.jmh.streaming;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.HostInfo;
import io.strata.engine.page.StorageNumber;
import io.strata.jmh.engine.EngineBenchmarkBase;
import io.strata.streaming.receiver.ReceiverContext;
import io.strata.streaming.receiver.ReceiverLimits;
import io.strata.streaming.receiver.ReceiverParser;
import io.strata.streaming.receiver.ReceiverStats;
import io.strata.streaming.receiver.ReceiverReplication;
import io.strata.streaming.sender.SenderWireFormat;
import io.strata.streaming.wire.LineSplitter;
import io.strata.streaming.wire.Lz4StreamFrameDecoder;
import io.strata.streaming.wire.Lz4StreamFrameEncoder;
import io.strata.streaming.wire.StreamProtocolException;

import com.sun.management.OperatingSystemMXBean;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.function.LongSupplier;
import java.util.stream.Stream;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * A parent's ingest of streamed collections end to end, without sockets: the bytes {@value #CHILDREN}
 * children would send for {@value #METRICS_PER_CHILD} metrics each ({@link #dimensionsPerChart} to a
 * chart as {@link #dimensionsPerChart} says; every third chart a counter, the rest gauges), through
 * {@link Lz4StreamFrameDecoder} in an {@link EmbeddedChannel} (variant {@code lz4}), a
 * {@link LineSplitter} and a {@link ReceiverParser} per child, into a {@link StorageEngine} with 3 tiers
 * in a temporary directory ({@link EngineConfig#defaults}), its flusher writing meanwhile.
 *
 * <p>The bytes are built before the run with {@link SenderWireFormat} and, for {@code lz4}, framed by
 * {@link Lz4StreamFrameEncoder} (BINARY, independent blocks as our child sends them): a cycle of
 * {@value #CYCLE} collections per child whose values wander (so the stored pages hold real-looking
 * data; a counter falls back once per cycle, which the collector treats as a reset, as Netdata does).
 * One invocation delivers the next second's collection of every chart of every child; the parser's
 * clock moves one second with it, as the BEGIN lines say.
 *
 * <p>Each piece of the stream handed over is one socket read of the receiver
 * ({@link ReceiverParser#readStarted()} … {@link ReceiverParser#readEnded()}); with {@code lz4}, each
 * decoded block is one, as the receiver's pipeline hands them on.
 *
 * <p>Variant {@code form}: {@code text} sends {@code BEGIN}/{@code SET}/{@code END} (the parent runs
 * the collection algorithms and interpolates), {@code interpolated} sends what a Netdata 2.x child
 * with INTERPOLATED and IEEE754 sends ({@code BEGIN2}/{@code SET2}/{@code END2}, base64 numbers; the
 * parent stores the values as they are).
 *
 * <p>Score: samples (SET or SET2 values) ingested per second. After the trial the benchmark checks that the
 * parser counted every sample it was given ({@link ReceiverStats#samplesCollected}) and prints what
 * the engine stored.
 */
@State(Scope.Benchmark)
public class StreamIngestBenchmark extends EngineBenchmarkBase {

    static final int CHILDREN = 4;
    static final int METRICS_PER_CHILD = 2000;
    static final int SAMPLES_PER_INVOCATION = CHILDREN * METRICS_PER_CHILD;
    static final int CYCLE = 60;
    static final long T0 = 1_700_000_000L;

    /** {@code lz4}: LZ4-framed stream (COMPRESSION negotiated); {@code plain}: the text as is. */
    @Param({"lz4", "plain"})
    public String compression;

    /**
     * {@code text}: {@code BEGIN}/{@code SET}/{@code END} (1.37.1; the parent interpolates);
     * {@code interpolated}: {@code BEGIN2}/{@code SET2}/{@code END2} with IEEE754 numbers (2.x; the
     * parent stores the child's values). {@code interpolated} runs {@code plain} only: each second's
     * end time is written into the pre-built bytes before they are handed over (7 bytes per chart),
     * which LZ4 frames would not allow.
     */
    @Param({"text", "interpolated"})
    public String form;

    /**
     * Dimensions a chart: 8 (250 charts a child, many small charts as a real agent has) or 10 (200
     * charts, the load generator's default). {@value #METRICS_PER_CHILD} must be a multiple.
     */
    @Param({"8", "10"})
    public int dimensionsPerChart;

    /**
     * {@code field}: the parser's clock is a field the benchmark moves one second an invocation (no
     * cost of its own); {@code wall}: each time the parser asks for the time it also reads the wall
     * clock as a parent does ({@link ReceiverContext#wallClockMicros()}), and is given the field's
     * value (the collections keep the benchmark's time, whatever the wall clock says).
     */
    @Param({"field", "wall"})
    public String clock;

    private Path dir;
    private StorageEngine engine;
    private final ReceiverStats stats = new ReceiverStats();
    private Child[] children;
    private long clockMicros = T0 * 1_000_000L;
    /** The latest wall-clock reading of {@code clock=wall}, kept so that the read cannot be optimised away. */
    private long wallMicros;
    private long invocations;
    private long samplesBefore;
    private static final OperatingSystemMXBean PROCESS =
            (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private long iterationSamples;
    private long iterationProcessCpu;
    private long iterationThreadCpu;
    private long iterationFlusherCpu;

    /** One child's connection on the parent: decoder, lines, parser, and its pre-built bytes. */
    final class Child {
        final LineSplitter lines = new LineSplitter(ReceiverLimits.DEFAULTS.maxLineBytes());
        final ReceiverParser parser;
        final EmbeddedChannel channel;
        final byte[][] collections = new byte[CYCLE][];
        /** For {@code interpolated}: where each BEGIN2's end time ({@code #} + 6 base64 digits) is in a collection. */
        final int[][] endTimeAt = new int[CYCLE][];

        Child(int index) {
            UUID guid = UUID.nameUUIDFromBytes(("strata-jmh-child-" + index).getBytes(StandardCharsets.UTF_8));
            HostInfo host = new HostInfo(guid, "jmh-child-" + index, "linux", "UTC", 1, null);
            LongSupplier wall = ReceiverContext.wallClockMicros();
            LongSupplier time = clock.equals("wall") ? () -> {
                wallMicros = wall.getAsLong();
                return clockMicros;
            } : () -> clockMicros;
            parser = new ReceiverParser(engine, host, line -> { }, ReceiverReplication.NONE, false,
                    ReceiverLimits.DEFAULTS, stats, time, null);
            channel = compression.equals("lz4") ? new EmbeddedChannel(new Lz4StreamFrameDecoder(), new Feed()) : null;
        }

        /** Hands one pre-built piece of the stream to the parent's pipeline. */
        void receive(byte[] wire) {
            ByteBuf in = Unpooled.wrappedBuffer(wire);
            if (channel != null) {
                channel.writeInbound(in);
            } else {
                feed(in);
            }
        }

        /** One read of the receiver: as {@code StreamReceiverHandler.channelRead} hands it to the parser. */
        void feed(ByteBuf decoded) {
            parser.readStarted();
            try {
                lines.feed(decoded, parser);
            } catch (StreamProtocolException e) {
                throw new IllegalStateException("the benchmark's own stream was refused: " + e.getMessage(), e);
            } finally {
                parser.readEnded();
            }
        }

        /** What follows the decoder in the receiver's pipeline: bytes to lines to the parser. */
        final class Feed extends ChannelInboundHandlerAdapter {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ByteBuf decoded = (ByteBuf) msg;
                try {
                    feed(decoded);
                } finally {
                    decoded.release();
                }
            }
        }
    }

    @Setup(Level.Trial)
    public void setup() throws IOException {
        if (dimensionsPerChart <= 0 || METRICS_PER_CHILD % dimensionsPerChart != 0) {
            throw new IllegalArgumentException("dimensionsPerChart must divide " + METRICS_PER_CHILD);
        }
        dir = Files.createTempDirectory("strata-jmh-ingest-");
        engine = StorageEngine.open(EngineConfig.defaults(dir));
        boolean lz4 = compression.equals("lz4");
        boolean interpolated = form.equals("interpolated");
        if (lz4 && interpolated) {
            throw new IllegalArgumentException("form=interpolated runs with compression=plain only (see the field)");
        }
        children = new Child[CHILDREN];
        long wireBytes = 0;
        long textBytes = 0;
        for (int i = 0; i < CHILDREN; i++) {
            Child c = new Child(i);
            children[i] = c;
            byte[] definitions = definitions(i);
            c.receive(lz4 ? lz4Frames(definitions) : definitions);
            SplittableRandom rnd = new SplittableRandom(0x5EED + i);
            long[] values = new long[METRICS_PER_CHILD];
            for (int m = 0; m < values.length; m++) {
                values[m] = isCounter(m) ? rnd.nextLong(1L << 40) : rnd.nextLong(100_000);
            }
            for (int k = 0; k < CYCLE; k++) {
                byte[] text = interpolated ? interpolatedCollection(values, rnd) : collection(values, rnd);
                if (interpolated) {
                    c.endTimeAt[k] = endTimes(text);
                }
                c.collections[k] = lz4 ? lz4Frames(text) : text;
                textBytes += text.length;
                wireBytes += c.collections[k].length;
            }
        }
        samplesBefore = stats.samplesCollected.sum();
        System.out.printf("%nStreamIngestBenchmark (%s, %s): %d children x %d charts x %d dimensions, %d bytes of"
                        + " text per second, %d on the wire%n", compression, form, CHILDREN,
                METRICS_PER_CHILD / dimensionsPerChart, dimensionsPerChart, textBytes / CYCLE,
                wireBytes / CYCLE);
    }

    boolean isCounter(int metric) {
        return (metric / dimensionsPerChart) % 3 == 0;
    }

    /** What a child sends after the handshake: claim, labels, every chart's definition. */
    byte[] definitions(int child) {
        ByteBuf out = Unpooled.buffer();
        UUID guid = UUID.nameUUIDFromBytes(("strata-jmh-child-" + child).getBytes(StandardCharsets.UTF_8));
        SenderWireFormat.claimedId(out, guid.toString(), null);
        SenderWireFormat.label(out, "_os_name", SenderWireFormat.LABEL_SOURCE_AUTO, "Strata JMH");
        SenderWireFormat.overwriteLabels(out);
        for (int c = 0; c < METRICS_PER_CHILD / dimensionsPerChart; c++) {
            boolean counter = isCounter(c * dimensionsPerChart);
            SenderWireFormat.chart(out, "jmh.chart" + c, "", "Chart " + c, counter ? "events/s" : "value", "jmh",
                    counter ? "jmh.rate" : "jmh.gauge", "line", 1000 + c, 1, 0, "jmh", "ingest");
            SenderWireFormat.chartLabel(out, "generator", "jmh", SenderWireFormat.LABEL_SOURCE_AUTO);
            SenderWireFormat.chartLabelCommit(out);
            for (int d = 0; d < dimensionsPerChart; d++) {
                SenderWireFormat.dimension(out, "d" + d, "d" + d, counter ? "incremental" : "absolute", 1, 1, false,
                        false, false);
            }
        }
        return bytes(out);
    }

    /** One second of every chart: BEGIN, a SET per dimension, END. */
    byte[] collection(long[] values, SplittableRandom rnd) {
        ByteBuf out = Unpooled.buffer(METRICS_PER_CHILD * 24);
        for (int c = 0; c < METRICS_PER_CHILD / dimensionsPerChart; c++) {
            SenderWireFormat.begin(out, ("jmh.chart" + c).getBytes(StandardCharsets.UTF_8), 1_000_000);
            for (int d = 0; d < dimensionsPerChart; d++) {
                int m = c * dimensionsPerChart + d;
                values[m] = isCounter(m) ? values[m] + rnd.nextLong(1000)
                        : Math.max(0, values[m] + rnd.nextLong(201) - 100);
                SenderWireFormat.set(out, ("d" + d).getBytes(StandardCharsets.UTF_8), values[m]);
            }
            SenderWireFormat.end(out);
        }
        return bytes(out);
    }

    /**
     * One second of every chart as a 2.x child with INTERPOLATED and IEEE754 sends it: BEGIN2 (end
     * time a placeholder, set per invocation), a SET2 per dimension (a counter's value is its rate,
     * a base64 double; a gauge's is {@code #}, its collected value), END2.
     */
    byte[] interpolatedCollection(long[] values, SplittableRandom rnd) {
        ByteBuf out = Unpooled.buffer(METRICS_PER_CHILD * 24);
        for (int c = 0; c < METRICS_PER_CHILD / dimensionsPerChart; c++) {
            SenderWireFormat.begin2(out, ("jmh.chart" + c).getBytes(StandardCharsets.UTF_8), 1, T0, T0, true);
            for (int d = 0; d < dimensionsPerChart; d++) {
                int m = c * dimensionsPerChart + d;
                long previous = values[m];
                values[m] = isCounter(m) ? values[m] + rnd.nextLong(1000)
                        : Math.max(0, values[m] + rnd.nextLong(201) - 100);
                double stored = isCounter(m) ? values[m] - previous : values[m];
                SenderWireFormat.set2(out, ("d" + d).getBytes(StandardCharsets.UTF_8), values[m], stored,
                        StorageNumber.SN_FLAG_NOT_ANOMALOUS, true);
            }
            SenderWireFormat.end2(out);
        }
        return bytes(out);
    }

    /** The offsets of every BEGIN2's end time ({@code BEGIN2 "id" #B } then 7 bytes) in a collection. */
    int[] endTimes(byte[] text) {
        int charts = METRICS_PER_CHILD / dimensionsPerChart;
        int[] at = new int[charts];
        int n = 0;
        for (int i = 0; i + 6 < text.length; i++) {
            if ((i == 0 || text[i - 1] == '\n') && text[i] == 'B' && text[i + 5] == '2') {
                int q = i + 8; // past 'BEGIN2 "'
                while (text[q] != '"') {
                    q++;
                }
                at[n++] = q + 5; // '" #B ' then the end time
            }
        }
        if (n != charts) {
            throw new IllegalStateException("found " + n + " BEGIN2 lines of " + charts);
        }
        return at;
    }

    /** Writes {@code seconds} as {@code #} + 6 base64 digits (2^30 ≤ seconds < 2^36) at each offset. */
    static void setEndTimes(byte[] text, int[] at, long seconds) {
        for (int p : at) {
            text[p] = '#';
            for (int k = 6; k >= 1; k--) {
                text[p + k] = BASE64[(int) (seconds >>> (6 * (6 - k)) & 63)];
            }
        }
    }

    private static final byte[] BASE64 =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".getBytes(StandardCharsets.US_ASCII);

    /** The frames our child sends when COMPRESSION and BINARY are negotiated. */
    static byte[] lz4Frames(byte[] text) {
        EmbeddedChannel encoder = new EmbeddedChannel(new Lz4StreamFrameEncoder(true));
        try {
            encoder.writeOutbound(Unpooled.wrappedBuffer(text));
            ByteBuf all = Unpooled.buffer();
            for (ByteBuf b; (b = encoder.readOutbound()) != null; ) {
                all.writeBytes(b);
                b.release();
            }
            return bytes(all);
        } finally {
            encoder.finishAndReleaseAll();
        }
    }

    static byte[] bytes(ByteBuf b) {
        byte[] out = new byte[b.readableBytes()];
        b.readBytes(out);
        b.release();
        return out;
    }

    /** One second of {@value #CHILDREN} children x {@value #METRICS_PER_CHILD} metrics. */
    @Benchmark
    @OperationsPerInvocation(SAMPLES_PER_INVOCATION)
    public long ingestOneSecond() {
        int k = (int) (invocations++ % CYCLE);
        clockMicros += 1_000_000L;
        for (Child c : children) {
            int[] at = c.endTimeAt[k];
            if (at != null) {
                setEndTimes(c.collections[k], at, clockMicros / 1_000_000L);
            }
            c.receive(c.collections[k]);
        }
        return clockMicros;
    }

    @Setup(Level.Iteration)
    public void startIteration() {
        iterationSamples = stats.samplesCollected.sum();
        iterationProcessCpu = PROCESS.getProcessCpuTime();
        iterationThreadCpu = THREADS.getCurrentThreadCpuTime();
        iterationFlusherCpu = flusherCpu();
    }

    /** CPU time of the engine's flushing thread ("strata-flusher"): encoding sealed pages, writing extents. */
    private static long flusherCpu() {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals("strata-flusher")) {
                return Math.max(0, THREADS.getThreadCpuTime(t.getId()));
            }
        }
        return 0;
    }

    /**
     * Prints, besides the score, what a sample cost in CPU time during the iteration: of the whole
     * JVM (this thread's parsing and storing, the flusher's encoding and writing, the garbage
     * collector, the compiler), of this thread alone and of the flusher. On a machine shared with
     * other work the score (wall-clock rate) drops with the CPU share the benchmark gets; the CPU
     * time a sample takes does so much less, and is what a parent's CPU per sample is made of. A
     * page seals when full, every metric's at about the same invocation here (they all start
     * together), so the flusher's share of an iteration depends on where in the run it falls.
     */
    @TearDown(Level.Iteration)
    public void report() {
        long samples = stats.samplesCollected.sum() - iterationSamples;
        double processNs = (double) (PROCESS.getProcessCpuTime() - iterationProcessCpu) / Math.max(1, samples);
        double threadNs = (double) (THREADS.getCurrentThreadCpuTime() - iterationThreadCpu) / Math.max(1, samples);
        double flusherNs = (double) (flusherCpu() - iterationFlusherCpu) / Math.max(1, samples);
        System.out.printf("  [cpu per sample: %.1f ns process, %.1f ns ingest thread, %.1f ns flusher; so far: %d"
                        + " samples collected, %d points stored, %d pages queued for the flusher]%n", processNs, threadNs,
                flusherNs,
                stats.samplesCollected.sum() - samplesBefore, engine.pointsStored(), engine.pendingPages());
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        try {
            long collected = stats.samplesCollected.sum() - samplesBefore;
            long expected = invocations * SAMPLES_PER_INVOCATION;
            for (Child c : children) {
                if (c.channel != null) {
                    c.channel.finishAndReleaseAll();
                }
            }
            engine.close();
            System.out.printf("%nStreamIngestBenchmark (%s, %s): %d samples ingested, %d points stored, %d rejected%n",
                    compression, form, collected, engine.pointsStored(), engine.pointsRejected());
            if (collected != expected) {
                throw new IllegalStateException("the parser collected " + collected + " samples of the " + expected
                        + " it was given");
            }
        } finally {
            try (Stream<Path> s = Files.walk(dir)) {
                for (Path p : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }
}
