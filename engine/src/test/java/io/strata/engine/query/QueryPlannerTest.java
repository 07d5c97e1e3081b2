package io.strata.engine.query;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class QueryPlannerTest {

    static final long[] STEPS = {1, 60, 3600};

    static QueryResult.Segment seg(int tier, long from, long to) {
        return new QueryResult.Segment(tier, from, to);
    }

    @Test
    void fineQueryOnTier0WhenItHoldsTheRange() {
        long[] first = {100_000, 99_960, 97_200};
        long[] last = {200_000, 199_980, 198_000};
        assertEquals(List.of(seg(0, 150_000, 150_600)),
                QueryPlanner.plan(first, last, STEPS, 150_000, 150_600, 1));
    }

    @Test
    void coarseQueryTakesTheCoarsestTierThatIsFineEnough() {
        long[] first = {100_000, 99_960, 97_200};
        long[] last = {200_000, 199_980, 198_000};
        List<QueryResult.Segment> p = QueryPlanner.plan(first, last, STEPS, 120_000, 190_000, 60);
        assertEquals(List.of(seg(1, 120_000, 190_000)), p);
        p = QueryPlanner.plan(first, last, STEPS, 120_000, 190_000, 7200);
        assertEquals(List.of(seg(2, 120_000, 190_000)), p);
    }

    @Test
    void stitchesOlderDataFromCoarserAndNewerFromFinerTiers() {
        // tier 0 rotated away before 150 000; tier 2 lags behind by its open window
        long[] first = {150_000, 99_960, 97_200};
        long[] last = {200_000, 199_980, 198_000};
        List<QueryResult.Segment> p = QueryPlanner.plan(first, last, STEPS, 120_000, 200_000, 1);
        assertEquals(List.of(seg(1, 120_000, 149_999), seg(0, 150_000, 200_000)), p);
        p = QueryPlanner.plan(first, last, STEPS, 100_000, 200_000, 3600);
        assertEquals(List.of(seg(2, 100_000, 198_000), seg(1, 198_001, 199_980), seg(0, 199_981, 200_000)), p);
    }

    @Test
    void segmentsNeverOverlapAndStayInRange() {
        java.util.Random r = new java.util.Random(7);
        for (int i = 0; i < 5000; i++) {
            long[] first = new long[3];
            long[] last = new long[3];
            for (int t = 0; t < 3; t++) {
                if (r.nextInt(5) == 0) {
                    continue;
                }
                first[t] = 1 + r.nextInt(100_000);
                last[t] = first[t] + r.nextInt(100_000);
            }
            long after = 1 + r.nextInt(150_000);
            long before = after + r.nextInt(100_000);
            long step = new long[]{1, 60, 3600, 17}[r.nextInt(4)];
            List<QueryResult.Segment> p = QueryPlanner.plan(first, last, STEPS, after, before, step);
            long prev = after - 1;
            for (QueryResult.Segment s : p) {
                assertTrue(s.from() > prev && s.from() <= s.to() && s.to() <= before, p::toString);
                assertTrue(first[s.tier()] != 0 && s.from() <= last[s.tier()], p::toString);
                prev = s.to();
            }
        }
    }
}
