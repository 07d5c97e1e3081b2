package io.strata.engine;

import io.strata.engine.query.AggregateSink;
import io.strata.engine.query.QueryPlanner;
import io.strata.engine.query.QueryResult;
import io.strata.engine.registry.MetricRegistry;

import java.io.IOException;
import java.util.List;

/**
 * Runs a planned query: reads each segment of the plan from its tier and folds the stored points
 * into output points of a fixed step, aligned to multiples of the step (the output point at
 * {@code t} aggregates the stored points in {@code (t − step, t]}). Gaps stay gaps: an output point
 * that no stored value reached has count 0. One instance per query; not thread-safe.
 */
final class QueryExecutor implements TierReader.PointSink {

    private final AggregateSink out;
    private final long step;
    private final long lastBucket;
    private long bucket;
    private double sum;
    private double min;
    private double max;
    private long count;
    private long anomalies;
    private long emitted;
    private long read;

    private QueryExecutor(AggregateSink out, long step, long firstBucket, long lastBucket) {
        this.out = out;
        this.step = step;
        this.bucket = firstBucket;
        this.lastBucket = lastBucket;
    }

    static QueryResult run(TierReader reader, MetricRegistry registry, EngineConfig cfg, int metric, int updateEvery,
                           long after, long before, int points, AggregateSink out) throws IOException {
        if (updateEvery <= 0) {
            throw new IllegalArgumentException("update_every must be positive, got " + updateEvery);
        }
        if (after < 0 || before < after) {
            throw new IllegalArgumentException("bad range [" + after + ", " + before + "]");
        }
        // Netdata's convention: the answer covers (after, before]; its points end at multiples of
        // the step after "after", each aggregating the stored points of the step before it.
        long span = before - after;
        long step;
        if (points <= 0 || span == 0) {
            step = updateEvery;
        } else {
            step = Math.max(updateEvery, (span + points - 1) / points);
            step = (step + updateEvery - 1) / updateEvery * updateEvery;
        }
        int tiers = registry.tiers();
        long[] first = new long[tiers];
        long[] last = new long[tiers];
        long[] tierStep = new long[tiers];
        for (int t = 0; t < tiers; t++) {
            first[t] = registry.firstTime(metric, t);
            last[t] = registry.lastTime(metric, t);
            tierStep[t] = cfg.tierStep(t, updateEvery);
        }
        List<QueryResult.Segment> plan = QueryPlanner.plan(first, last, tierStep, after, before, step);
        long firstBucket = (after / step + 1) * step;
        long lastBucket = before / step * step;
        long[] perTier = new long[tiers];
        if (lastBucket < firstBucket) {
            return new QueryResult(step, 0, plan, perTier);
        }
        QueryExecutor q = new QueryExecutor(out, step, firstBucket, lastBucket);
        // Points after the last bucket belong to no output point; reading stops at it.
        long readBefore = Math.min(before, lastBucket);
        long readAfter = firstBucket - step + 1;
        long done = readAfter - 1;
        for (QueryResult.Segment s : plan) {
            long from = Math.max(s.from(), readAfter);
            long to = Math.min(s.to(), readBefore);
            if (to < from) {
                continue;
            }
            long before0 = q.read;
            done = reader.read(s.tier(), metric, from, to, Math.max(done, from - 1), q);
            perTier[s.tier()] += q.read - before0;
        }
        q.finish();
        return new QueryResult(step, q.emitted, plan, perTier);
    }

    @Override
    public void point(long time, long pageStep, double s, double mn, double mx, int c, int a) {
        read++;
        if (time > bucket) {
            if (time > lastBucket) {
                return;
            }
            emit();
            bucket += step;
            if (time > bucket) {
                long target = (time + step - 1) / step * step;
                while (bucket < target) {
                    out.point(bucket, 0, 0, 0, 0, 0);
                    emitted++;
                    bucket += step;
                }
            }
        }
        if (c == 0) {
            return;
        }
        if (count == 0) {
            sum = s;
            min = mn;
            max = mx;
        } else {
            sum += s;
            if (mn < min) {
                min = mn;
            }
            if (mx > max) {
                max = mx;
            }
        }
        count += c;
        anomalies += a;
    }

    private void emit() {
        out.point(bucket, sum, min, max, count, anomalies);
        emitted++;
        sum = 0;
        min = 0;
        max = 0;
        count = 0;
        anomalies = 0;
    }

    private void finish() {
        while (bucket <= lastBucket) {
            emit();
            bucket += step;
        }
    }
}
