package io.strata.engine.bench;

/**
 * The values of Netdata 1.37.1's DBENGINE stress test ({@code netdata -W stresstest}), so that
 * {@code bench engine} can store what that test stores: charts of {@value #DIMENSIONS}
 * dimensions, and dimension {@code d} of chart {@code c} at time {@code t} is
 * {@code (t * (c + 1) + t * (d + 1)) mod 1024} (its {@code generate_dbengine_chart_value}), an
 * integer 0..1023. Metric {@code m} is dimension {@code m mod 128} of chart {@code m / 128}, and
 * second index {@code t} is the time {@code EngineBench.T0 + t}.
 */
public final class NetdataStressTestDataset implements Dataset {

    /** Dimensions of each chart of Netdata's stress test (its {@code DSET_DIMS}). */
    public static final int DIMENSIONS = 128;

    /** The value of dimension {@code dim} of chart {@code chart} at time {@code time}, as Netdata computes it. */
    public static long value(int chart, int dim, long time) {
        long v = time * (chart + 1);
        v += time * (dim + 1);
        return Long.remainderUnsigned(v, 1024);
    }

    @Override
    public void fill(long t, int from, int to, double[] out) {
        long time = EngineBench.T0 + t;
        for (int m = from; m < to; m++) {
            out[m - from] = value(m / DIMENSIONS, m % DIMENSIONS, time);
        }
    }

    @Override
    public String name() {
        return "netdata-stresstest";
    }
}
