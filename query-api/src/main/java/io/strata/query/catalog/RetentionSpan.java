package io.strata.query.catalog;

import io.strata.engine.registry.MetricRegistry;

/** What a metric's tiers hold, as Netdata reports retention: the oldest and newest point over all tiers. */
public final class RetentionSpan {

    private RetentionSpan() {
    }

    /** The oldest point time in any tier, or 0 when no tier holds the metric. */
    public static long first(MetricRegistry r, int metric) {
        long first = 0;
        for (int t = 0; t < r.tiers(); t++) {
            long f = r.firstTime(metric, t);
            if (f != MetricRegistry.NO_TIME && (first == 0 || f < first)) {
                first = f;
            }
        }
        return first;
    }

    /** The newest point time in any tier, or 0. */
    public static long last(MetricRegistry r, int metric) {
        long last = 0;
        for (int t = 0; t < r.tiers(); t++) {
            if (r.firstTime(metric, t) != MetricRegistry.NO_TIME) {
                last = Math.max(last, r.lastTime(metric, t));
            }
        }
        return last;
    }
}
