package io.strata.query.data;

/**
 * The time window, number of rows and grouping of a data query, computed from the request exactly
 * as Netdata 1.37 does ({@code rrdr_relative_window_to_absolute} and
 * {@code query_target_calculate_window}), so that dashboards stitching consecutive answers by
 * {@code after}/{@code before}/{@code view_update_every} see the same grid.
 *
 * <p>Row {@code i} (0 = oldest) ends at {@code after + (i + 1) * viewUpdateEvery() - granularity}
 * and holds the stored points of the {@code viewUpdateEvery()} seconds up to its end.
 *
 * @param after              first second covered
 * @param before             last second covered, the end of the newest row
 * @param points             rows
 * @param group              stored points (of {@code granularity} seconds) per row
 * @param granularity        seconds per stored point the query counts in: the database's
 *                           update_every (natural points), or 1 (virtual points)
 * @param resamplingGroup    stored points per gtime period, 1 without gtime (then averages are
 *                           sums divided by {@code resamplingDivisor}, as Netdata does)
 * @param resamplingDivisor  gtime's divisor of averages, 1 without gtime
 * @param options            the request's options with natural-points or virtual-points set
 * @param relative           true when the request was relative to now or to the database's end
 */
public record QueryWindow(long after, long before, long points, long group, long granularity,
                          long resamplingGroup, double resamplingDivisor, long options, boolean relative) {

    /** Netdata's API_RELATIVE_TIME_MAX: up to 3 years, a time is relative; beyond, it is a unix timestamp. */
    public static final long RELATIVE_TIME_MAX = 3L * 365 * 86400;
    public static final long MAX_POINTS = 86400;
    /** Inputs are clamped to this magnitude first, so that no sum below can overflow. */
    private static final long INPUT_LIMIT = 1L << 40;

    public long viewUpdateEvery() {
        return group * granularity;
    }

    /** The end time of row {@code i}, 0 being the oldest. */
    public long rowEnd(long i) {
        return after + (i + 1) * viewUpdateEvery() - granularity;
    }

    /**
     * @param afterRequested    {@code after=} (0 when absent: Netdata's data API defaults it to -600 before calling this)
     * @param beforeRequested   {@code before=}, 0 meaning the database's last point
     * @param pointsRequested   {@code points=}, 0 meaning every stored point; negative means as many as possible
     * @param options           {@link DataOptions} bits
     * @param resamplingTime    {@code gtime=} seconds, 0 for none
     * @param tierUpdateEvery   with {@code selected-tier}, that tier's seconds per point; else 0
     * @param dbFirst           oldest point of the queried metrics (0 when none)
     * @param dbLast            newest point of the queried metrics
     * @param updateEvery       the metrics' collection interval
     * @param now               the wall clock minus one second, as Netdata takes it
     */
    public static QueryWindow compute(long afterRequested, long beforeRequested, long pointsRequested, long options,
                                      long resamplingTime, long tierUpdateEvery, long dbFirst, long dbLast,
                                      long updateEvery, long now) {
        long after = clamp(afterRequested);
        long before = clamp(beforeRequested);
        long resampling = Math.min(clamp(resamplingTime), INPUT_LIMIT);
        long pointsWanted = pointsRequested < 0 ? Long.MAX_VALUE / 4 : pointsRequested;
        long ue = Math.max(1, updateEvery);

        boolean aligned = (options & DataOptions.NOT_ALIGNED) == 0;
        boolean automaticNaturalPoints = pointsWanted == 0;
        boolean relative = false;
        boolean natural = (options & DataOptions.NATURAL_POINTS) != 0 || automaticNaturalPoints;
        boolean beforeIsDbEnd = false;

        if (Math.abs(before) <= RELATIVE_TIME_MAX || Math.abs(after) <= RELATIVE_TIME_MAX) {
            relative = true;
            natural = true;
        }
        if ((options & DataOptions.VIRTUAL_POINTS) != 0) {
            natural = false;
        }
        if (natural) {
            options = (options | DataOptions.NATURAL_POINTS) & ~DataOptions.VIRTUAL_POINTS;
        } else {
            options = (options | DataOptions.VIRTUAL_POINTS) & ~DataOptions.NATURAL_POINTS;
        }

        if ((after == 0 || before == 0) && dbFirst != 0 && dbLast != 0) {
            relative = true;
            if (after == 0) {
                after = dbFirst;
            }
            if (before == 0) {
                before = dbLast;
                beforeIsDbEnd = true;
            }
            if (pointsWanted == 0) {
                pointsWanted = (dbLast - dbFirst) / ue;
            }
        }
        if (pointsWanted == 0) {
            pointsWanted = 600;
        }

        long[] w = toAbsolute(after, before, now);
        after = w[0];
        before = w[1];

        long granularity = natural ? (tierUpdateEvery > 0 ? tierUpdateEvery : ue) : 1;
        before -= Math.floorMod(before, granularity);
        after -= Math.floorMod(after, granularity);

        if (automaticNaturalPoints) {
            pointsWanted = Math.max(1, (before - after + 1) / granularity);
        }

        long duration = before - after;
        if (resampling > duration) {
            after = before - resampling;
            duration = before - after;
        }
        if (resampling > granularity && duration % resampling != 0) {
            // widen into the past to a whole number of gtime periods, unless only a sliver is missing
            long delta = duration % resampling;
            if (delta > resampling / 10) {
                after -= resampling - delta;
                duration = before - after;
            }
        }

        long available = Math.max(1, (duration + 1) / granularity);
        pointsWanted = Math.min(pointsWanted, available);
        pointsWanted = Math.min(pointsWanted, MAX_POINTS);

        long group = Math.max(1, available / pointsWanted);
        if (available % pointsWanted > pointsWanted / 2) {
            group++;
        }
        if (pointsWanted * group * granularity < duration) {
            // the grouping would not cover the window: fewer, fuller rows
            pointsWanted = available / group;
            if (pointsWanted * group < available) {
                pointsWanted++;
            }
            pointsWanted = Math.max(1, pointsWanted);
        }

        double resamplingDivisor = 1.0;
        long resamplingGroup = 1;
        if (resampling > granularity) {
            resamplingGroup = resampling / granularity + (resampling % granularity != 0 ? 1 : 0);
            if (group < resamplingGroup) {
                group = resamplingGroup;
            }
            if (group % resamplingGroup != 0) {
                group += resamplingGroup - group % resamplingGroup;
            }
            resamplingDivisor = (double) (group * granularity) / (double) resampling;
        }

        long step = group * granularity;
        if (aligned && Math.floorMod(before, step) != 0) {
            if (beforeIsDbEnd) {
                before -= Math.floorMod(before, step);
            } else {
                before += step - Math.floorMod(before, step);
            }
        }
        after = before - pointsWanted * step + granularity;
        return new QueryWindow(after, before, pointsWanted, group, granularity, resamplingGroup, resamplingDivisor,
                options, relative);
    }

    /**
     * Netdata's relative-to-absolute rule: values up to {@link #RELATIVE_TIME_MAX} are relative
     * (positive ones negated), {@code before} to now, {@code after} to before (+1 so that -60
     * means 60 seconds); swapped when reversed; shifted back when reaching into the future;
     * clamped to [now − 10 years, now + 1 year]. Returns {after, before}.
     */
    public static long[] toAbsolute(long after, long before, long now) {
        after = clamp(after);
        before = clamp(before);
        if (Math.abs(before) <= RELATIVE_TIME_MAX) {
            if (before > 0) {
                before = -before;
            }
            before = now + before;
        }
        if (Math.abs(after) <= RELATIVE_TIME_MAX) {
            if (after > 0) {
                after = -after;
            }
            if (after == 0) {
                after = -600;
            }
            after = before + after + 1;
        }
        if (after > before) {
            long t = before;
            before = after;
            after = t;
        }
        if (before > now) {
            long delta = before - now;
            before -= delta;
            after -= delta;
        }
        long min = now - 10L * 365 * 86400;
        long max = now + 365L * 86400;
        after = Math.max(min, Math.min(max, after));
        before = Math.max(min, Math.min(max, before));
        return new long[] {after, before};
    }

    private static long clamp(long v) {
        return Math.max(-INPUT_LIMIT, Math.min(INPUT_LIMIT, v));
    }
}
