package io.strata.engine.bench;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Values for benchmark writers: the value of metric {@code m} at second {@code t}, produced a
 * second at a time for a range of metrics so that the writer's inner loop stays primitive.
 * NaN is a gap (nothing collected).
 */
public interface Dataset {

    /** Fills {@code out[0 .. to-from)} with the values of metrics {@code from..to-1} at second index {@code t}. */
    void fill(long t, int from, int to, double[] out);

    String name();

    /**
     * A dataset by name: {@code random-walk}, {@code counters}, {@code netdata-stresstest}
     * ({@link NetdataStressTestDataset}), or the path of a wide CSV (plain or gzipped) as
     * {@link WideCsvDataset} reads it.
     */
    static Dataset named(String spec, long seed) throws IOException {
        switch (spec) {
            case "random-walk":
                return new RandomWalkDataset(seed);
            case "counters":
                return new CounterDataset(seed);
            case "netdata-stresstest":
                return new NetdataStressTestDataset();
            default:
                return WideCsvDataset.load(Path.of(spec));
        }
    }
}
