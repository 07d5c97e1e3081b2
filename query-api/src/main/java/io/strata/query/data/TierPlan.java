package io.strata.query.data;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Netdata 1.37.1's per-metric query plan ({@code query_plan} and
 * {@code query_metric_best_tier_for_timeframe}): which tier answers which part of a window.
 * Every tier gets a weight, how much of the window it covers, scaled down when it holds fewer
 * points there than the rows want; the highest tier with the best weight answers (so among tiers
 * that serve the resolution equally, the coarsest), coarser tiers fill in where it starts after
 * the window's start, finer ones where it ends before the window's end.
 */
final class TierPlan {

    private TierPlan() {
    }

    /**
     * @param first        per tier, the metric's first point time (0: nothing stored)
     * @param last         per tier, its last point time
     * @param step         per tier, seconds per point
     * @param selectedTier the tier {@code selected-tier} names, or -1
     * @return {tier, after, before} parts in time order; empty when the chosen tier holds nothing
     */
    static long[][] plan(long[] first, long[] last, long[] step, long afterWanted, long beforeWanted, long points,
                         int selectedTier) {
        int tiers = first.length;
        int selected;
        boolean onlySelected = selectedTier >= 0 && selectedTier < tiers && valid(first, last, step, selectedTier);
        if (onlySelected) {
            selected = selectedTier;
        } else {
            selected = bestTier(first, last, step, afterWanted, beforeWanted, points);
        }
        List<long[]> parts = new ArrayList<>();
        parts.add(new long[]{selected, first[selected], last[selected]});
        if (!onlySelected) {
            long selectedFirst = first[selected];
            long selectedLast = last[selected];
            if (selectedFirst > afterWanted) {
                for (int t = selected + 1; t < tiers; t++) {
                    if (!valid(first, last, step, t)) {
                        continue;
                    }
                    if (first[t] < selectedFirst) {
                        long a = Math.max(first[t], afterWanted);
                        parts.add(new long[]{t, a, selectedFirst});
                        selectedFirst = a;
                        if (a <= afterWanted) {
                            break;
                        }
                    }
                }
            }
            if (selectedLast < beforeWanted) {
                for (int t = selected - 1; t >= 0; t--) {
                    if (!valid(first, last, step, t)) {
                        continue;
                    }
                    if (last[t] > selectedLast) {
                        long b = Math.min(last[t], beforeWanted);
                        parts.add(new long[]{t, selectedLast, b});
                        selectedLast = b;
                        if (b >= beforeWanted) {
                            break;
                        }
                    }
                }
            }
        }
        parts.sort(Comparator.comparingLong(p -> p[1]));
        if (parts.get(0)[1] < afterWanted) {
            parts.get(0)[1] = afterWanted;
        }
        if (parts.get(parts.size() - 1)[2] > beforeWanted) {
            parts.get(parts.size() - 1)[2] = beforeWanted;
        }
        if (!valid(first, last, step, (int) parts.get(0)[0])) {
            return new long[0][];
        }
        return parts.toArray(new long[0][]);
    }

    static boolean valid(long[] first, long[] last, long[] step, int tier) {
        return first[tier] != 0 && last[tier] != 0 && step[tier] != 0;
    }

    /** {@code query_metric_best_tier_for_timeframe}: the last tier with the highest weight. */
    static int bestTier(long[] first, long[] last, long[] step, long afterWanted, long beforeWanted, long points) {
        int tiers = first.length;
        if (tiers < 2) {
            return 0;
        }
        if (afterWanted == beforeWanted || points <= 0) {
            for (int t = 0; t < tiers; t++) {
                if (valid(first, last, step, t)) {
                    return t;
                }
            }
            return 0;
        }
        long[] weight = new long[tiers];
        for (int t = 0; t < tiers; t++) {
            weight[t] = valid(first, last, step, t)
                    ? weight(first[t], last[t], step[t], afterWanted, beforeWanted, points)
                    : -Long.MAX_VALUE;
        }
        int best = 0;
        for (int t = 1; t < tiers; t++) {
            if (weight[t] >= weight[best]) {
                best = t;
            }
        }
        if (weight[best] == -Long.MAX_VALUE) {
            // No tier holds a whole point inside the window (a window narrower than the points).
            // Netdata then plans on a tier that is still open and fills the window from the
            // finer tiers; the answer is tier 0's (the first tier holding the metric).
            for (int t = 0; t < tiers; t++) {
                if (valid(first, last, step, t)) {
                    return t;
                }
            }
        }
        return best;
    }

    /** {@code query_plan_points_coverage_weight}: coverage of the window in millionths, less when points are short. */
    static long weight(long dbFirst, long dbLast, long dbStep, long afterWanted, long beforeWanted, long points) {
        long commonFirst = Math.max(dbFirst, afterWanted);
        long commonLast = Math.min(dbLast, beforeWanted);
        long timeCoverage = (commonLast - commonFirst) * 1_000_000L / (beforeWanted - afterWanted);
        long available = (commonLast - commonFirst) / dbStep;
        if (available <= 0) {
            return -Long.MAX_VALUE;
        }
        long wantedInCoverage = points * timeCoverage / 1_000_000L;
        long delta = available - wantedInCoverage;
        return delta < 0 ? available * timeCoverage / wantedInCoverage : timeCoverage;
    }
}
