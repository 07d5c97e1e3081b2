package io.strata.jmh.streaming;

import io.strata.engine.time.Clocks;
import io.strata.jmh.engine.EngineBenchmarkBase;
import io.strata.streaming.receiver.ReceiverContext;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.function.LongSupplier;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What one reading of the wall clock costs the receiver: {@code micros} is the parent's clock for
 * {@code BEGIN} and {@code END} ({@link ReceiverContext#wallClockMicros()}, an {@code Instant} of
 * {@code Clock.systemUTC()}), {@code millis} {@link Clocks#wallMillis()} (what the receiver reads once a socket read) for comparison.
 * Besides the score it prints the thread's CPU time a reading: on a shared machine the score
 * (wall-clock rate) follows the CPU share the benchmark gets, the CPU time much less.
 */
@State(Scope.Thread)
public class ReceiverClockBenchmark extends EngineBenchmarkBase {

    static final int READS = 1000;

    @Param({"micros", "millis"})
    public String clock;

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private LongSupplier micros;
    private long reads;
    private long iterationReads;
    private long iterationCpu;

    @Setup(Level.Trial)
    public void setup() {
        micros = ReceiverContext.wallClockMicros();
    }

    @Benchmark
    @OperationsPerInvocation(READS)
    public long read() {
        long sum = 0;
        if (clock.equals("micros")) {
            for (int i = 0; i < READS; i++) {
                sum += micros.getAsLong();
            }
        } else {
            for (int i = 0; i < READS; i++) {
                sum += Clocks.wallMillis();
            }
        }
        reads += READS;
        return sum;
    }

    @Setup(Level.Iteration)
    public void startIteration() {
        iterationReads = reads;
        iterationCpu = THREADS.getCurrentThreadCpuTime();
    }

    @TearDown(Level.Iteration)
    public void report() {
        double ns = (double) (THREADS.getCurrentThreadCpuTime() - iterationCpu) / Math.max(1, reads - iterationReads);
        System.out.printf("  [cpu per reading: %.1f ns]%n", ns);
    }
}
