package io.strata.jmh.engine;

import io.strata.engine.page.StorageNumber;

import java.util.SplittableRandom;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * {@link StorageNumber#pack} and {@link StorageNumber#unpack}: the per-point conversion between
 * a collected {@code double} and the 4-byte tier-0 storage number. {@code pack} runs once for
 * every point a collector stores ({@code StorageEngine.store}); {@code unpack} once for every
 * point a query turns back into a value.
 *
 * <p>Input: {@value #N} values drawn once (fixed seed) in a shuffled mix meant to look like what
 * a Netdata agent collects: 30% integers (0..100 000: counts, rates), 40% percentages 0..100
 * rounded to 2..7 decimals, 20% large integral counters (1e9..1e13: bytes, packets), 10% zeros.
 * The mix keeps pack's branches (scaling up small values, dividing large ones by 10 or 100) as
 * unpredictable as they are on a real node.
 *
 * <p>Score: values converted per second (ops/s, one op = one value). Results are written into a
 * preallocated array that the method returns (cheaper than a Blackhole call per value, and the
 * JIT cannot drop stores into an array it hands out).
 */
@State(Scope.Thread)
public class StorageNumberBenchmark extends EngineBenchmarkBase {

    /** Values per invocation: large enough to amortise the call, small enough to stay in L1/L2. */
    static final int N = 4096;

    private double[] values;
    private int[] packed;
    private int[] packedOut;
    private double[] unpacked;

    @Setup
    public void setup() {
        SplittableRandom rnd = new SplittableRandom(0x5EED);
        values = new double[N];
        for (int i = 0; i < N; i++) {
            int kind = rnd.nextInt(100);
            double v;
            if (kind < 30) {
                v = rnd.nextInt(100_001);
            } else if (kind < 70) {
                double scale = Math.pow(10, 2 + rnd.nextInt(6));
                v = Math.round(rnd.nextDouble() * 100 * scale) / scale;
            } else if (kind < 90) {
                v = (double) rnd.nextLong(1_000_000_000L, 10_000_000_000_000L);
            } else {
                v = 0;
            }
            values[i] = v;
        }
        packed = new int[N];
        for (int i = 0; i < N; i++) {
            packed[i] = StorageNumber.pack(values[i], StorageNumber.SN_DEFAULT_FLAGS);
        }
        packedOut = new int[N];
        unpacked = new double[N];
    }

    /** Packs {@value #N} doubles into storage numbers; the score is values packed per second. */
    @Benchmark
    @OperationsPerInvocation(N)
    public int[] pack() {
        double[] in = values;
        int[] out = packedOut;
        for (int i = 0; i < in.length; i++) {
            out[i] = StorageNumber.pack(in[i], StorageNumber.SN_DEFAULT_FLAGS);
        }
        return out;
    }

    /** Unpacks {@value #N} storage numbers into doubles; the score is values unpacked per second. */
    @Benchmark
    @OperationsPerInvocation(N)
    public double[] unpack() {
        int[] in = packed;
        double[] out = unpacked;
        for (int i = 0; i < in.length; i++) {
            out[i] = StorageNumber.unpack(in[i]);
        }
        return out;
    }
}
