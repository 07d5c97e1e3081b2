package io.strata.node.chaos;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the quiet catch-up finds a parent lacking, and how its failure names it. */
class QuietCatchUpTest {

    private static final long AFTER = 1_000;
    private static final long BEFORE = 1_060;
    private static final List<String> PARENTS = List.of("chaos-parent-1", "chaos-parent-2", "chaos-parent-3");

    @Test
    void aHoleBehindTheParentsNewestSecondThatOnlyAPeerHoldsIsNamedAsOneNoRequestFills() {
        // the child lost 1001-1040 at its SIGKILL; parent-1 holds them, parent-2 lacks 1031-1040,
        // parent-3 1001-1040, and both hold every second after
        Series child = series(1041, BEFORE);
        List<Series> parents = List.of(series(1001, BEFORE), series(1001, 1030, 1041, BEFORE),
                series(1041, BEFORE));

        List<QuietCatchUp.Hole> holes = QuietCatchUp.holes(child, PARENTS, parents);

        assertEquals(List.of(
                new QuietCatchUp.Hole("chaos-parent-2", 1031, 1040, List.of("chaos-parent-1"), false, BEFORE),
                new QuietCatchUp.Hole("chaos-parent-3", 1001, 1030, List.of("chaos-parent-1", "chaos-parent-2"),
                        false, BEFORE),
                new QuietCatchUp.Hole("chaos-parent-3", 1031, 1040, List.of("chaos-parent-1"), false, BEFORE)),
                holes);
        assertTrue(holes.stream().allMatch(QuietCatchUp.Hole::behindNewest));
        assertEquals("chaos-parent-2 lacks 1031-1040 (10 s), held by chaos-parent-1 (not the child), behind the"
                + " newest second it holds (1060): no request fills it", holes.get(0).describe());
    }

    @Test
    void secondsAfterTheParentsNewestAreStillArriving() {
        Series child = series(1001, BEFORE);
        List<Series> parents = List.of(series(1001, BEFORE), series(1001, BEFORE), series(1001, 1050));

        List<QuietCatchUp.Hole> holes = QuietCatchUp.holes(child, PARENTS, parents);

        assertEquals(List.of(new QuietCatchUp.Hole("chaos-parent-3", 1051, BEFORE,
                List.of("chaos-parent-1", "chaos-parent-2"), true, 1050)), holes);
        assertFalse(holes.get(0).behindNewest());
        assertEquals("chaos-parent-3 lacks 1051-1060 (10 s), held by chaos-parent-1 and chaos-parent-2 and the child,"
                + " after the newest second it holds (1050): still arriving", holes.get(0).describe());
    }

    @Test
    void parentsHoldingWhatTheChildHoldsAndEachOtherHaveNoHole() {
        Series child = series(1011, BEFORE);
        // every parent holds 1001-1010 too, which the child lost: not a hole
        List<Series> parents = List.of(series(1001, BEFORE), series(1001, BEFORE), series(1001, BEFORE));

        assertEquals(List.of(), QuietCatchUp.holes(child, PARENTS, parents));
    }

    @Test
    void theFailureNamesWhatTheWaitWasForAndEveryHoleFound() {
        ChaosRunner.QuietLag lag = new ChaosRunner.QuietLag(List.of(
                "chaos-child-1 strata.synthetic_0: chaos-parent-3 lacks 1001-1040 (40 s), held by chaos-parent-1"
                        + " (not the child), behind the newest second it holds (1060): no request fills it"), true);

        String failure = ChaosRunner.quietCatchUpFailure(lag, AFTER, BEFORE, 31.2);

        assertEquals("the parents did not catch up in 31 s of quiet: the wait was for every parent to hold every"
                + " second in (1000, 1060] of each child's first chart that the child or another parent holds; the"
                + " wait ended early: every hole left lies behind the newest second its parent holds, unchanged for"
                + " 75 s, through the parents' hole repair from their peers, and no replication request fills such"
                + " a hole (a parent asks streams from its newest second; docs/chaos.md, finding 6). Left:\n"
                + "  chaos-child-1 strata.synthetic_0: chaos-parent-3 lacks 1001-1040 (40 s), held by chaos-parent-1"
                + " (not the child), behind the newest second it holds (1060): no request fills it", failure);
    }

    /** A series valued at the seconds of the given inclusive ranges (pairs), NaN elsewhere. */
    private static Series series(long... ranges) {
        double[] v = new double[(int) (BEFORE - AFTER)];
        Arrays.fill(v, Double.NaN);
        for (int r = 0; r < ranges.length; r += 2) {
            for (long t = ranges[r]; t <= ranges[r + 1]; t++) {
                v[(int) (t - AFTER - 1)] = t;
            }
        }
        return Series.of(AFTER, BEFORE, Map.of("dim0", v));
    }
}
