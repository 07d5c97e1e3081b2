package io.strata.query.data;

import java.util.ArrayList;
import java.util.Arrays;
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
     * @param firstRowEnd  the end of the window's first row
     * @param rowStep      seconds between rows ({@code view_update_every})
     * @return the {tier, after, before} parts the query reads, in order; empty when the plan's first
     *         part is a tier holding nothing
     */
    static long[][] plan(long[] first, long[] last, long[] step, long afterWanted, long beforeWanted, long points,
                         int selectedTier, long firstRowEnd, long rowStep) {
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
        long[][] sorted = parts.toArray(new long[0][]);
        mergeSortByStart(sorted);
        if (sorted[0][1] < afterWanted) {
            sorted[0][1] = afterWanted;
        }
        if (sorted[sorted.length - 1][2] > beforeWanted) {
            sorted[sorted.length - 1][2] = beforeWanted;
        }
        if (!valid(first, last, step, (int) sorted[0][0])) {
            return new long[0][];
        }
        return used(sorted, first, last, step, beforeWanted, firstRowEnd, rowStep);
    }

    /**
     * The parts the query actually reads, as {@code rrd2rrdr_do_dimension} switches plans: at the
     * first row end at or after a part's end ({@code query_plan_should_switch_plan}), the next part
     * ending after that moment takes over ({@code query_planer_next_plan}); when none does (the
     * parts left end at or before it) the current part stays to the window's end and is read on
     * after its own end, where it holds nothing. The first part is not read at all when the plan
     * switches at the first row, before any point is fetched.
     */
    private static long[][] used(long[][] parts, long[] first, long[] last, long[] step, long beforeWanted,
                                 long firstRowEnd, long rowStep) {
        List<long[]> out = new ArrayList<>();
        int current = 0;
        long now = firstRowEnd;
        boolean read = false;
        while (true) {
            long expire = parts[current][2];
            if (expire > now) {
                // the first row end at or after the part's end
                now += Math.floorDiv(expire - now + rowStep - 1, rowStep) * rowStep;
                read = true;
            }
            if (now > beforeWanted) {
                break; // the rows end before the plan would switch
            }
            int next = current + 1;
            while (next < parts.length && now >= parts[next][2]) {
                next++;
            }
            if (next >= parts.length || !valid(first, last, step, (int) parts[next][0])) {
                read = true; // the current part stays to the end
                break;
            }
            if (read) {
                out.add(parts[current]);
            }
            current = next;
            read = false;
        }
        if (read) {
            out.add(parts[current]);
        }
        return out.toArray(new long[0][]);
    }

    /**
     * glibc's merge sort ({@code msort_with_tmp}: halves of n/2 and the rest, the left element
     * taken when the comparison is not positive) with 1.37.1's comparator, which never answers
     * "equal" ({@code after < after ? -1 : 1}): parts starting at the same second come out in the
     * order this merge gives them, which decides the plan's first part when a tier holding nothing
     * is planned (its part starts at 0, as does the part of the tier helping it).
     */
    static void mergeSortByStart(long[][] a) {
        if (a.length < 2) {
            return;
        }
        int n1 = a.length / 2;
        long[][] left = Arrays.copyOfRange(a, 0, n1);
        long[][] right = Arrays.copyOfRange(a, n1, a.length);
        mergeSortByStart(left);
        mergeSortByStart(right);
        int i = 0;
        int j = 0;
        int k = 0;
        while (i < left.length && j < right.length) {
            a[k++] = left[i][1] < right[j][1] ? left[i++] : right[j++];
        }
        while (i < left.length) {
            a[k++] = left[i++];
        }
        while (j < right.length) {
            a[k++] = right[j++];
        }
    }

    static boolean valid(long[] first, long[] last, long[] step, int tier) {
        return first[tier] != 0 && last[tier] != 0 && step[tier] != 0;
    }

    /** {@code query_metric_best_tier_for_timeframe}: the last tier with the highest weight (-LONG_MAX included). */
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
        // No tier holding a whole point inside the window (a window narrower than the points)
        // leaves every weight at -LONG_MAX and the last tier chosen, holding the metric or not
        // (unlike rrddim_find_best_tier_for_timeframe, this one does not fall back to tier 0):
        // query_plan then adds the tiers that help it, and the sort decides which part comes first.
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
