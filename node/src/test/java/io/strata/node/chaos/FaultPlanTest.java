package io.strata.node.chaos;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FaultPlanTest {

    @Test
    void theSameSeedDrawsTheSamePlanAndAnotherSeedAnother() {
        assertEquals(FaultPlan.draw(42, 600, 3, 7), FaultPlan.draw(42, 600, 3, 7));
        assertTrue(!FaultPlan.draw(42, 600, 3, 7).equals(FaultPlan.draw(43, 600, 3, 7)));
    }

    @Test
    void neverAllParentsAtOnceOneFaultPerNodeAndEveryFaultEndsBeforeTheSchedule() {
        for (long seed = 0; seed < 200; seed++) {
            int seconds = 180 + (int) (seed * 37 % 3600);
            List<FaultPlan.Fault> plan = FaultPlan.draw(seed, seconds, 3, 4);
            assertTrue(!plan.isEmpty(), "seed " + seed + ": no fault");
            for (int t = 0; t < seconds; t++) {
                int parents = 0;
                for (FaultPlan.Fault f : plan) {
                    if (f.startSecond() <= t && t < f.endSecond() + FaultPlan.SETTLE_SECONDS) {
                        parents += f.kind().parent ? 1 : 0;
                        for (FaultPlan.Fault g : plan) {
                            if (g != f && g.kind().parent == f.kind().parent && g.target() == f.target()
                                    && g.startSecond() <= t && t < g.endSecond()) {
                                throw new AssertionError("seed " + seed + ": two faults on one node at " + t + ": "
                                        + f + " " + g);
                            }
                        }
                    }
                }
                assertTrue(parents < 3, "seed " + seed + ": every parent faulted at " + t);
            }
            for (FaultPlan.Fault f : plan) {
                assertTrue(f.endSecond() <= seconds - 10 && f.seconds() >= 2, "seed " + seed + ": " + f);
                if (f.kind() == FaultPlan.Kind.CHILD_CLOCK_SHIFT) {
                    assertEquals(30, Math.abs(f.clockOffset()));
                }
            }
        }
    }

    @Test
    void everyKindIsDrawnInAnHour() {
        List<FaultPlan.Fault> plan = FaultPlan.draw(7, 3600, 3, 7);
        for (FaultPlan.Kind k : FaultPlan.Kind.values()) {
            assertTrue(plan.stream().anyMatch(f -> f.kind() == k), k + " never drawn");
        }
    }

    @Test
    void childrenListTheParentsInDifferentOrders() {
        java.util.Set<List<Integer>> orders = new java.util.HashSet<>();
        for (int i = 0; i < 6; i++) {
            List<Integer> o = ChaosCluster.parentOrder(i, 3);
            assertEquals(java.util.Set.of(0, 1, 2), new java.util.HashSet<>(o));
            orders.add(o);
        }
        assertEquals(6, orders.size());
    }
}
