package io.strata.engine.bench;

/**
 * A gauge per metric that walks randomly with two decimals, like a temperature or a memory
 * figure; a pure function of (metric, t) so that readers can check what they get.
 */
public final class RandomWalkDataset implements Dataset {
    private final long seed;

    public RandomWalkDataset(long seed) {
        this.seed = seed;
    }

    /** The value of metric {@code m} at second index {@code t}. */
    public double value(int m, long t) {
        // A walk computed from a hash of the 64-second block and the offset inside it keeps the
        // function pure and cheap while neighbouring values stay close.
        long block = t >>> 6;
        long base = mix(seed ^ (m * 0x9E3779B97F4A7C15L) ^ block);
        double level = 1000 + (base & 0xFFFF) / 10.0;
        long step = mix(base ^ (t & 63));
        return Math.round((level + (t & 63) * ((step & 0xFF) - 128) / 64.0) * 100) / 100.0;
    }

    static long mix(long h) {
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h;
    }

    @Override
    public void fill(long t, int from, int to, double[] out) {
        for (int m = from; m < to; m++) {
            out[m - from] = value(m, t);
        }
    }

    @Override
    public String name() {
        return "random-walk";
    }
}
