package io.strata.query.data;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Netdata's window rules on the cases recorded from 1.37.1 (docs/protocol/netdata-query-api.md §5.5-5.6): the
 * recorded parent's database held 1795262837..113; "now" is the wall clock minus one second.
 */
class QueryWindowTest {

    static final long FIRST = 1795262837L;

    static QueryWindow w(long after, long before, long points, long options, long gtime, long last, long wall) {
        return QueryWindow.compute(after, before, points, options, gtime, 0, FIRST, last, 1, wall - 1);
    }

    static void check(QueryWindow w, long after, long before, long points, long vue) {
        assertEquals(after, w.after(), "after");
        assertEquals(before, w.before(), "before");
        assertEquals(points, w.points(), "points");
        assertEquals(vue, w.viewUpdateEvery(), "view_update_every");
    }

    @Test
    void relativeAfterAnchorsOnTheDatabaseEndShiftedToNow() {
        // data-opt-jsonwrap: after=-60 points=60, db end 113 one second in the future of "now" 112
        QueryWindow q = w(-60, 0, 60, 0, 0, 1795263113L, 1795263113L);
        check(q, 1795263053L, 1795263112L, 60, 1);
        assertTrue((q.options() & DataOptions.NATURAL_POINTS) != 0);
        assertTrue(q.relative());
    }

    @Test
    void groupsAlignDownWhenBeforeIsTheDatabaseEnd() {
        // data-group-average: after=-60 points=6 at wall 114
        check(w(-60, 0, 6, 0, 0, 1795263113L, 1795263114L), 1795263051L, 1795263110L, 6, 10);
        // data-gtime-0-60pts: after=-120 points=12
        check(w(-120, 0, 12, 0, 0, 1795263113L, 1795263114L), 1795262991L, 1795263110L, 12, 10);
        // data-context: after=-10 points=5
        check(w(-10, 0, 5, 0, 0, 1795263113L, 1795263114L), 1795263103L, 1795263112L, 5, 2);
    }

    @Test
    void absoluteWindowsUseVirtualPointsAndAlignUp() {
        // data-absolute-after-before: 080..110 in 10 points: group 3, before aligned up to 111
        QueryWindow q = w(1795263080L, 1795263110L, 10, 0, 0, 1795263113L, 1795263114L);
        check(q, 1795263082L, 1795263111L, 10, 3);
        assertTrue((q.options() & DataOptions.VIRTUAL_POINTS) != 0);
        // data-absolute-odd: 33 s in 7 points: group 5 (34 / 7 rounded)
        check(w(1795263076L, 1795263109L, 7, 0, 0, 1795263113L, 1795263114L), 1795263076L, 1795263110L, 7, 5);
    }

    @Test
    void futureWindowsShiftBackToNow() {
        // data-future: 213..313 is shifted to end at now (112)
        check(w(1795263213L, 1795263313L, 10, 0, 0, 1795263113L, 1795263113L), 1795263021L, 1795263120L, 10, 10);
    }

    @Test
    void relativeBeforeCountsFromNow() {
        // data-relative-before: after=-30 before=-10 points=5
        check(w(-30, -10, 5, 0, 0, 1795263113L, 1795263113L), 1795263073L, 1795263102L, 5, 6);
    }

    @Test
    void pointsAreCappedByWhatTheWindowHolds() {
        // data-points-0, data-no-points, data-points-more-than-avail
        check(w(-10, 0, 0, 0, 0, 1795263113L, 1795263113L), 1795263103L, 1795263112L, 10, 1);
        check(w(-10, 0, 100, 0, 0, 1795263113L, 1795263113L), 1795263103L, 1795263112L, 10, 1);
        check(w(-10, 0, -5, 0, 0, 1795263113L, 1795263113L), 1795263103L, 1795263112L, 10, 1);
    }

    @Test
    void longRangesGroupIntoMinutes() {
        // data-long-range: after=-3600 points=60 on a 5-minute-old database
        check(w(-3600, 0, 60, 0, 0, 1795263113L, 1795263113L), 1795259461L, 1795263060L, 60, 60);
    }

    @Test
    void gtimeRaisesTheGroupToItsMultipleAndScalesAverages() {
        QueryWindow q = w(-120, 0, 12, 0, 10, 1795263113L, 1795263114L);
        check(q, 1795262991L, 1795263110L, 12, 10);
        assertEquals(1.0, q.resamplingDivisor(), 0);
        // 60 points over 120 s would be groups of 2; gtime=10 forces groups of 10 (divisor 1)
        QueryWindow r = w(-120, 0, 60, 0, 10, 1795263113L, 1795263114L);
        assertEquals(10, r.group());
        // gtime=5 over groups of 10 seconds: sums per 5 s, the divisor is 2
        QueryWindow s = w(-120, 0, 12, 0, 5, 1795263113L, 1795263114L);
        assertEquals(2.0, s.resamplingDivisor(), 0);
    }

    @Test
    void selectedTierUsesTheTierGranularity() {
        // data-tier-1: after=-600 points=10 with tier 1 (60 s per point)
        QueryWindow q = QueryWindow.compute(-600, 0, 10, DataOptions.SELECTED_TIER, 0, 60, FIRST, 1795263113L, 1,
                1795263113L - 1);
        check(q, 1795262520L, 1795263060L, 10, 60);
        // data-tier-2: the 3600 s tier leaves a single row
        QueryWindow t2 = QueryWindow.compute(-600, 0, 10, 0, 0, 3600, FIRST, 1795263113L, 1, 1795263113L - 1);
        check(t2, 1795262400L, 1795262400L, 1, 3600);
    }

    @Test
    void unalignedKeepsTheRequestedEnd() {
        QueryWindow q = w(-60, 0, 6, DataOptions.NOT_ALIGNED, 0, 1795263113L, 1795263114L);
        check(q, 1795263054L, 1795263113L, 6, 10);
    }

    @Test
    void extremeInputsStayInTheClampedRange() {
        long now = 1795263113L;
        for (long v : new long[] {Long.MIN_VALUE, Long.MAX_VALUE, -1, 1, 0, 1L << 50, -(1L << 50)}) {
            QueryWindow q = QueryWindow.compute(v, -v, v, 0, v, 0, FIRST, now, 1, now - 1);
            // Netdata caps at 86400 before recomputing the count that covers the window, which may add one
            assertTrue(q.points() >= 1 && q.points() <= QueryWindow.MAX_POINTS + 1, "points " + q.points());
            assertTrue(q.group() >= 1);
            assertTrue(q.before() <= now + 365L * 86400 + q.viewUpdateEvery(), "before " + q.before());
        }
    }
}
