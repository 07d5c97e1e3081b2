package io.strata.engine.bench;

/**
 * Per-second rates of counters (packets, bytes, interrupts): integers that vary around a
 * per-metric level, a quarter of the metrics idle at zero, as a parent receives them after
 * the incremental algorithm.
 */
public final class CounterDataset implements Dataset {
    private final long seed;

    public CounterDataset(long seed) {
        this.seed = seed;
    }

    public double value(int m, long t) {
        long k = RandomWalkDataset.mix(seed ^ m * 0x9E3779B97F4A7C15L);
        if ((k & 3) == 0) {
            return 0;
        }
        long level = (k >>> 8) % 10_000;
        long noise = RandomWalkDataset.mix(k ^ t) % (level / 4 + 1);
        return level + noise;
    }

    @Override
    public void fill(long t, int from, int to, double[] out) {
        for (int m = from; m < to; m++) {
            out[m - from] = value(m, t);
        }
    }

    @Override
    public String name() {
        return "counters";
    }
}
