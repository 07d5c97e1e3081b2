package io.strata.engine.query;

import java.util.List;

/**
 * What a query did: its output step, the plan (which tier answered which time range) and how
 * many stored points it read from each tier.
 *
 * @param step       seconds per output point
 * @param points     output points delivered (gaps included)
 * @param segments   the plan, in time order
 * @param pointsRead stored points read, per tier
 */
public record QueryResult(long step, long points, List<Segment> segments, long[] pointsRead) {

    /** Tier {@code tier} answered the stored points with times in {@code [from, to]}. */
    public record Segment(int tier, long from, long to) {
    }

    public long totalPointsRead() {
        long s = 0;
        for (long p : pointsRead) {
            s += p;
        }
        return s;
    }
}
