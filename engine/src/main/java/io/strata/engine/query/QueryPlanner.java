package io.strata.engine.query;

import java.util.ArrayList;
import java.util.List;

/**
 * Chooses which tier answers which part of a query, as DBENGINE's planner does: the primary tier
 * is the coarsest one whose resolution is still at least the wanted output step and which holds
 * data in the range (fewest points read for the same answer); where it has no data yet or no
 * more — the start of the range rotated away, or the newest minutes not yet aggregated — the plan
 * stitches in the nearest tier that has them: coarser tiers for older data, finer tiers for newer.
 *
 * <p>A tier-{@code t} point at time {@code T} covers {@code (T − step_t, T]}. Segments are cut so
 * that no interval is counted by two tiers: a coarser tier before a finer one ends at the finer
 * tier's first covered second.
 */
public final class QueryPlanner {

    private QueryPlanner() {
    }

    /**
     * @param first     per tier, the first stored point time (0: the tier holds nothing)
     * @param last      per tier, the last stored point time
     * @param tierStep  per tier, seconds between its points
     * @param outStep   seconds per output point
     * @return segments in time order, non-overlapping, within {@code [after, before]}
     */
    public static List<QueryResult.Segment> plan(long[] first, long[] last, long[] tierStep, long after, long before,
                                                 long outStep) {
        int n = first.length;
        List<QueryResult.Segment> out = new ArrayList<>(2);
        if (before < after) {
            return out;
        }
        int primary = 0;
        for (int t = n - 1; t >= 0; t--) {
            if (tierStep[t] <= outStep && first[t] != 0 && coveredFrom(first, tierStep, t) <= before && last[t] >= after) {
                primary = t;
                break;
            }
        }
        int[] pref = new int[n];
        int k = 0;
        pref[k++] = primary;
        for (int t = primary + 1; t < n; t++) {
            pref[k++] = t;
        }
        for (int t = primary - 1; t >= 0; t--) {
            pref[k++] = t;
        }
        long cur = after;
        // Each round either ends the plan or moves cur past a tier boundary: at most 2n rounds.
        for (int round = 0; round <= 2 * n + 1 && cur <= before; round++) {
            int chosen = -1;
            long end = before;
            for (int i = 0; i < n; i++) {
                int t = pref[i];
                if (first[t] == 0) {
                    continue;
                }
                long from = coveredFrom(first, tierStep, t);
                if (from <= cur && cur <= last[t]) {
                    chosen = t;
                    end = Math.min(end, last[t]);
                    break;
                }
                if (from > cur) {
                    // A preferred tier that begins later takes over from there.
                    end = Math.min(end, from - 1);
                }
            }
            if (chosen < 0) {
                long next = Long.MAX_VALUE;
                for (int t = 0; t < n; t++) {
                    if (first[t] != 0) {
                        long from = coveredFrom(first, tierStep, t);
                        if (from > cur) {
                            next = Math.min(next, from);
                        }
                    }
                }
                if (next == Long.MAX_VALUE || next > before) {
                    break;
                }
                cur = next;
                continue;
            }
            if (end >= cur) {
                QueryResult.Segment prev = out.isEmpty() ? null : out.get(out.size() - 1);
                if (prev != null && prev.tier() == chosen && prev.to() + 1 == cur) {
                    out.set(out.size() - 1, new QueryResult.Segment(chosen, prev.from(), end));
                } else {
                    out.add(new QueryResult.Segment(chosen, cur, end));
                }
            }
            cur = end + 1;
        }
        return out;
    }

    /** The first second tier {@code t} covers: its first point's interval begins after this. */
    private static long coveredFrom(long[] first, long[] tierStep, int t) {
        return Math.max(1, first[t] - tierStep[t] + 1);
    }
}
