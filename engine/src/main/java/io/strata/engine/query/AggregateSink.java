package io.strata.engine.query;

/**
 * Receives the output points of a query, in time order, one call per output point (no objects
 * per point). A point at {@code time} aggregates the stored points in {@code (time − step, time]}.
 */
@FunctionalInterface
public interface AggregateSink {
    /**
     * @param count     collected (tier-0) values represented; 0 means a gap: nothing was stored
     *                  for that interval, and sum, min and max are then 0 and meaningless
     * @param anomalies how many of those values were flagged anomalous
     */
    void point(long time, double sum, double min, double max, long count, long anomalies);
}
