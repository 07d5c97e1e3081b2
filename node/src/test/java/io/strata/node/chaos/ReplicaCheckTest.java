package io.strata.node.chaos;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The check's verdict on one chart, from the child's own answer and the parents': what it counts
 * missing and what it excepts, and under which reason.
 */
class ReplicaCheckTest {

    private static final long AFTER = 1_795_798_700L;
    private static final long BEFORE = AFTER + 30;
    /** The second a chart was created at on the child: its first collected second. */
    private static final long FIRST = AFTER + 21;
    private static final List<String> PARENTS = List.of("chaos-parent-1", "chaos-parent-2", "chaos-parent-3");
    private static final List<String> DIMS = List.of("received", "sent");
    private static final ReplicaCheck.ChildHistory QUIET = new ReplicaCheck.ChildHistory(List.of(), List.of());

    @Test
    void aNetdataChildsFirstSecondOfAChartOnNoParentIsExceptedUnderItsOwnReason() {
        ReplicaCheck check = new ReplicaCheck();
        Series child = series(FIRST, Set.of());
        List<Series> parents = List.of(series(FIRST, Set.of(FIRST)), series(FIRST, Set.of(FIRST)),
                series(FIRST, Set.of(FIRST)));

        check.compare("chaos-netdata-child", true, "ipv4.tcperrors", FIRST, QUIET, child, PARENTS, parents);

        assertEquals(0, check.missing, check.firstDifferences::toString);
        assertEquals(0, check.different);
        assertEquals(Map.of(ReplicaCheck.FIRST_SECOND_NOT_REPLAYED, (long) DIMS.size() * PARENTS.size()),
                check.excepted);
        assertEquals((long) (BEFORE - FIRST) * DIMS.size() * PARENTS.size(), check.checked);
        assertTrue(check.ok());
    }

    @Test
    void aNetdataChildsSecondSecondOnNoParentIsStillMissing() {
        ReplicaCheck check = new ReplicaCheck();
        Series child = series(FIRST, Set.of());
        List<Series> parents = List.of(series(FIRST, Set.of(FIRST, FIRST + 1)),
                series(FIRST, Set.of(FIRST, FIRST + 1)), series(FIRST, Set.of(FIRST, FIRST + 1)));

        check.compare("chaos-netdata-child", true, "ipv4.tcperrors", FIRST, QUIET, child, PARENTS, parents);

        assertEquals((long) DIMS.size() * PARENTS.size(), check.missing);
        assertEquals(Map.of(ReplicaCheck.FIRST_SECOND_NOT_REPLAYED, (long) DIMS.size() * PARENTS.size()),
                check.excepted);
        assertEquals(Set.of(FIRST + 1), check.gaps.get("chaos-parent-2 lacks chaos-netdata-child"));
        assertTrue(!check.ok());
    }

    @Test
    void aNetdataChildsFirstSecondMissingOnSomeParentsIsMissing() {
        ReplicaCheck check = new ReplicaCheck();
        Series child = series(FIRST, Set.of());
        List<Series> parents = List.of(series(FIRST, Set.of(FIRST)), series(FIRST, Set.of()),
                series(FIRST, Set.of(FIRST)));

        check.compare("chaos-netdata-child", true, "ipv4.tcperrors", FIRST, QUIET, child, PARENTS, parents);

        assertEquals((long) DIMS.size() * 2, check.missing);
        assertEquals(Map.of(), check.excepted);
        assertEquals(Set.of("chaos-parent-1 lacks chaos-netdata-child", "chaos-parent-3 lacks chaos-netdata-child"),
                check.gaps.keySet());
    }

    @Test
    void aStrataChildsFirstSecondOfAChartOnNoParentIsMissing() {
        ReplicaCheck check = new ReplicaCheck();
        Series child = series(FIRST, Set.of());
        List<Series> parents = List.of(series(FIRST, Set.of(FIRST)), series(FIRST, Set.of(FIRST)),
                series(FIRST, Set.of(FIRST)));

        check.compare("chaos-child-1", false, "strata.synthetic_0", FIRST, QUIET, child, PARENTS, parents);

        assertEquals((long) DIMS.size() * PARENTS.size(), check.missing);
        assertEquals(Map.of(), check.excepted);
    }

    @Test
    void aSecondOnNoParentIsMissingWhenTheChartBeganBeforeIt() {
        // the chart's first second lies before the window: the window's first second is an ordinary one
        ReplicaCheck check = new ReplicaCheck();
        Series child = series(AFTER + 1, Set.of());
        List<Series> parents = List.of(series(AFTER + 1, Set.of(AFTER + 1)), series(AFTER + 1, Set.of(AFTER + 1)),
                series(AFTER + 1, Set.of(AFTER + 1)));

        check.compare("chaos-netdata-child", true, "ipv4.tcperrors", AFTER - 600, QUIET, child, PARENTS, parents);

        assertEquals((long) DIMS.size() * PARENTS.size(), check.missing);
        assertEquals(Map.of(), check.excepted);
    }

    /** Every dimension valued from {@code from} to the end of the window, but at the seconds {@code lacking}. */
    private static Series series(long from, Set<Long> lacking) {
        Map<String, double[]> values = new LinkedHashMap<>();
        for (int d = 0; d < DIMS.size(); d++) {
            double[] v = new double[(int) (BEFORE - AFTER)];
            Arrays.fill(v, Double.NaN);
            for (long t = from; t <= BEFORE; t++) {
                if (!lacking.contains(t)) {
                    v[(int) (t - AFTER - 1)] = 100 * d + (t - AFTER);
                }
            }
            values.put(DIMS.get(d), v);
        }
        return Series.of(AFTER, BEFORE, values);
    }
}
