package io.strata.jmh.streaming;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.strata.jmh.engine.EngineBenchmarkBase;
import io.strata.streaming.sender.SenderWireFormat;
import io.strata.streaming.wire.Lz4StreamFrameDecoder;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The receiver's LZ4 stage alone: {@link Lz4StreamFrameDecoder} in an {@link EmbeddedChannel}
 * decoding what one child of {@link StreamIngestBenchmark} sends for one second (250 charts of 8
 * dimensions, {@code BEGIN}/{@code SET}/{@code END}, every third chart a counter), framed by
 * {@link StreamIngestBenchmark#lz4Frames}; the decoded blocks are released unread. Score: samples
 * decoded per second; it also prints the thread's CPU time a sample.
 */
@State(Scope.Thread)
public class Lz4StreamDecodeBenchmark extends EngineBenchmarkBase {

    static final int CHARTS = 250;
    static final int DIMENSIONS = 8;
    static final int SAMPLES = CHARTS * DIMENSIONS;
    static final int CYCLE = 60;

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private final byte[][] seconds = new byte[CYCLE][];
    private EmbeddedChannel channel;
    private long invocations;
    private long iterationInvocations;
    private long iterationCpu;
    private long iterationBytes;
    private long decodedBytes;

    @Setup(Level.Trial)
    public void setup() {
        SplittableRandom rnd = new SplittableRandom(0x5EED);
        long[] values = new long[SAMPLES];
        for (int m = 0; m < SAMPLES; m++) {
            values[m] = (m / DIMENSIONS) % 3 == 0 ? rnd.nextLong(1L << 40) : rnd.nextLong(100_000);
        }
        for (int k = 0; k < CYCLE; k++) {
            ByteBuf out = Unpooled.buffer(SAMPLES * 24);
            for (int c = 0; c < CHARTS; c++) {
                SenderWireFormat.begin(out, ("jmh.chart" + c).getBytes(StandardCharsets.UTF_8), 1_000_000);
                for (int d = 0; d < DIMENSIONS; d++) {
                    int m = c * DIMENSIONS + d;
                    values[m] = c % 3 == 0 ? values[m] + rnd.nextLong(1000) : Math.max(0, values[m] + rnd.nextLong(201) - 100);
                    SenderWireFormat.set(out, ("d" + d).getBytes(StandardCharsets.UTF_8), values[m]);
                }
                SenderWireFormat.end(out);
            }
            seconds[k] = StreamIngestBenchmark.lz4Frames(StreamIngestBenchmark.bytes(out));
        }
        channel = new EmbeddedChannel(new Lz4StreamFrameDecoder(), new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ByteBuf decoded = (ByteBuf) msg;
                decodedBytes += decoded.readableBytes();
                decoded.release();
            }
        });
    }

    @Benchmark
    @OperationsPerInvocation(SAMPLES)
    public long decodeOneSecond() {
        channel.writeInbound(Unpooled.wrappedBuffer(seconds[(int) (invocations++ % CYCLE)]));
        return decodedBytes;
    }

    @Setup(Level.Iteration)
    public void startIteration() {
        iterationInvocations = invocations;
        iterationBytes = decodedBytes;
        iterationCpu = THREADS.getCurrentThreadCpuTime();
    }

    @TearDown(Level.Iteration)
    public void report() {
        long samples = (invocations - iterationInvocations) * SAMPLES;
        double cpu = THREADS.getCurrentThreadCpuTime() - iterationCpu;
        System.out.printf("  [cpu per sample: %.2f ns, %.3f ns a decoded byte]%n", cpu / Math.max(1, samples),
                cpu / Math.max(1, decodedBytes - iterationBytes));
    }

    @TearDown(Level.Trial)
    public void close() {
        channel.finishAndReleaseAll();
    }
}
