package io.strata.node.compare;

import java.nio.file.Path;

/**
 * One comparison: the load (children x charts x dimensions, collections per second per child,
 * LZ4 or not), the warm-up before the measured window and the window, and the engine settings
 * both parents get (3 tiers, the same disk quotas and page cache).
 */
public record CompareSettings(int children, int charts, int dimensions, double rate, int seconds, int warmup,
                              boolean compression, Path scratch, int sampleHosts, int sampleCharts) {

    public static final String API_KEY = "11111111-2222-3333-4444-555555555555";
    public static final int TIERS = 3;
    public static final long[] QUOTA_MB = {1024, 512, 256};
    public static final long PAGE_CACHE_MB = 32;
    /** The load runs this much past the window, so that the window never sees the load stop. */
    static final int TAIL_SECONDS = 10;

    public CompareSettings {
        if (children <= 0 || charts <= 0 || dimensions <= 0 || seconds <= 0 || warmup < 0 || rate <= 0) {
            throw new IllegalArgumentException("children, charts, dimensions, seconds and rate must be positive, "
                    + "warmup not negative");
        }
        if (seconds + warmup > 86_400) {
            throw new IllegalArgumentException("a comparison is bounded to one day");
        }
    }

    public long metrics() {
        return (long) children * charts * dimensions;
    }

    public double offeredPerSecond() {
        return metrics() * rate;
    }
}
