package io.strata.engine;

import io.strata.engine.page.HotAggregateTable;
import io.strata.engine.registry.MetricRegistry;

import java.io.IOException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Completes the higher tiers at start, as DBENGINE's backfill does: where tier {@code t} lacks a
 * range that a lower tier still holds — the windows aggregated in memory when the process
 * stopped, a tier added by configuration, a tier whose files were lost — its points are computed
 * from the lower tiers and written like live ones. The window still open at the newest point is
 * left open with what it has aggregated, so live collection continues it without a hole.
 *
 * <p>For each missing stretch the coarsest lower tier that holds it is read (tier 1 for most of a
 * tier-2 window, tier 0 for the last minutes), so a normal restart reads at most a window's worth
 * of points per metric and tier.
 */
final class Backfill {

    private static final Logger log = LoggerFactory.getLogger(Backfill.class);
    private static final long PROGRESS_NANOS = 10_000_000_000L;

    private Backfill() {
    }

    /**
     * Outcome, for logs and tests: metrics backfilled, points read from the lower tiers, points
     * (windows) of the higher tiers computed from them.
     */
    record Stats(long metrics, long pointsRead, long pointsComputed) {
    }

    static Stats run(MetricRegistry registry, EngineConfig cfg, TierReader reader, HotAggregateTable[] hotN)
            throws IOException {
        int tiers = registry.tiers();
        if (tiers < 2) {
            return new Stats(0, 0, 0);
        }
        int n = registry.size();
        long began = System.nanoTime();
        long lastLog = began;
        long metrics = 0;
        // [0] points read, [1] windows of the higher tiers computed
        long[] read = new long[2];
        if (n > 0) {
            log.info("backfill: checking {} metrics for the points tiers 1..{} lack", n, tiers - 1);
        }
        for (int m = 0; m < n; m++) {
            long last0 = registry.lastTime(m, 0);
            if (last0 == MetricRegistry.NO_TIME) {
                continue;
            }
            boolean touched = false;
            for (int t = 1; t < tiers; t++) {
                // Tiers 2+ are fed live with the windows tier t-1 closes (HotAggregateTable.setUpper):
                // they stop where its open window starts, which reaches them when it closes.
                long until = last0;
                long lowerOpen = t >= 2 ? hotN[t - 1].openWindowStart(m) : 0;
                if (lowerOpen != 0) {
                    until = Math.min(until, lowerOpen);
                }
                long lastT = registry.lastTime(m, t);
                if (lastT != MetricRegistry.NO_TIME && lastT >= until) {
                    continue;
                }
                touched = true;
                fill(registry, cfg, reader, hotN[t], m, t, lastT == MetricRegistry.NO_TIME ? 1 : lastT + 1, until, read);
            }
            if (touched) {
                metrics++;
            }
            long now = System.nanoTime();
            if (now - lastLog > PROGRESS_NANOS) {
                lastLog = now;
                log.info("backfill: {} of {} metrics checked ({}%), {} backfilled, {} points read, {} points computed,"
                        + " {} s so far", m + 1, n, (m + 1) * 100L / n, metrics, read[0], read[1],
                        (now - began) / 1_000_000_000L);
            }
        }
        if (n > 0) {
            log.info("backfill: done in {} ms: {} of {} metrics backfilled, {} points computed from {} points read",
                    (System.nanoTime() - began) / 1_000_000, metrics, n, read[1], read[0]);
        }
        return new Stats(metrics, read[0], read[1]);
    }

    private static void fill(MetricRegistry registry, EngineConfig cfg, TierReader reader, HotAggregateTable target,
                             int metric, int tier, long from, long until, long[] read) throws IOException {
        // Every round reads one lower tier up to its last point and moves "from" past it, or jumps
        // over a stretch no tier holds: at most 2 × tier rounds.
        for (int round = 0; round < 2 * tier + 2 && from <= until; round++) {
            int source = -1;
            long nextStart = Long.MAX_VALUE;
            for (int s = tier - 1; s >= 0; s--) {
                long first = registry.firstTime(metric, s);
                long last = registry.lastTime(metric, s);
                if (first == MetricRegistry.NO_TIME) {
                    continue;
                }
                // A point at "first" covers up to one step of its tier before it (its interval
                // ends at "first"), so the tier holds "from" when first < from + step.
                if (first < from + cfg.tierStep(s, 1) && from <= last) {
                    source = s;
                    break;
                }
                if (first > from) {
                    nextStart = Math.min(nextStart, first);
                }
            }
            if (source < 0) {
                if (nextStart == Long.MAX_VALUE || nextStart > until) {
                    return;
                }
                from = nextStart;
                continue;
            }
            long groupingPow = cfg.tierStep(source, 1);
            long targetStep = cfg.tierStep(tier, 1);
            long end = Math.min(until, registry.lastTime(metric, source));
            long[] window = {Long.MIN_VALUE};
            long done = reader.read(source, metric, from, end, from - 1, (time, step, sum, min, max, count, anomalies) -> {
                read[0]++;
                // a point of the target tier ends each window that the source points fall in
                long w = Math.floorDiv(time - 1, targetStep);
                if (w != window[0]) {
                    window[0] = w;
                    read[1]++;
                }
                int ue = (int) Math.max(1, step / groupingPow);
                target.addAggregate(metric, time, ue, sum, min, max, count, anomalies);
            });
            from = Math.max(end, done) + 1;
        }
    }
}
