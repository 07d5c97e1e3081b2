package io.strata.it.cluster;

import io.strata.engine.StorageEngine;
import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.HostInfo;
import io.strata.engine.page.StorageNumber;
import io.strata.node.config.NodeConfig;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two parent processes, each the other's peer. Both hold a host's chart of the last ten minutes;
 * parent-a lacks 100 s of it in the middle, behind seconds it holds after them: what a parent keeps
 * when the host lost those seconds (a SIGKILL) while only a peer received them live, and no stream
 * request reaches them (a receiver asks from its newest second). Written into both engines before the
 * processes start. parent-a's hole repair ({@code [db] repair holes every seconds = 5}) asks parent-b
 * over its peer replay and stores what it holds: parent-a then answers every second as parent-b does.
 */
class HoleBehindNewerSecondsRepairedFromPeerIT {

    static final UUID HOST = UUID.fromString("5e1f0000-1111-2222-3333-444455556666");
    static final String CHART = "repair.chart";

    @Test
    void aParentGetsAHoleBehindItsNewestSecondFromItsPeer() throws Exception {
        Path tmp = ClusterLayout.runDirectory("HoleBehindNewerSecondsRepairedFromPeerIT");
        int pa = ClusterLayout.freePort();
        int pb = ClusterLayout.freePort();
        String db = "\tdbengine multihost disk space MB = 64\n\trepair holes every seconds = 5\n";
        NodeProcess a = ClusterLayout.parent(tmp, "parent-a", pa, List.of(pb), db);
        NodeProcess b = ClusterLayout.parent(tmp, "parent-b", pb, List.of(pa), db);
        long end = System.currentTimeMillis() / 1000 - 2;
        long from = end - 599;
        long holeFrom = from + 250;
        long holeTo = holeFrom + 99;
        write(b.dir, from, end, -1, -1);
        write(a.dir, from, end, holeFrom, holeTo);
        try (a; b) {
            a.start();
            b.start();
            double[][] onB = ClusterApi.perSecond(b, HOST.toString(), CHART, from, end);
            assertEquals(599, onB.length, "parent-b holds every second of (from, end]");
            for (double[] row : onB) {
                assertTrue(!Double.isNaN(row[1]) && !Double.isNaN(row[2]), "parent-b holds " + (long) row[0]);
            }
            ClusterChecks.waitForCatchUp(a, HOST.toString(), CHART, from, end, onB, Duration.ofSeconds(120));
            ClusterChecks.same("the chart on parent-a against parent-b", onB,
                    ClusterApi.perSecond(a, HOST.toString(), CHART, from, end));
            assertTrue(a.log().contains("hole repair: 200 samples filled from peers"), a.tail(30));
        }
    }

    /** The host's chart (2 dimensions) at every second of {@code [from, end]} but {@code [skipFrom, skipTo]}. */
    private static void write(Path nodeDir, long from, long end, long skipFrom, long skipTo) throws Exception {
        NodeConfig config = NodeConfig.load(nodeDir);
        try (StorageEngine e = StorageEngine.open(config.engineConfig())) {
            e.metadata().upsertHost(new HostInfo(HOST, "lost-child", "linux", "UTC", 1, Map.of()));
            e.metadata().upsertChart(ChartInfo.of(HOST, CHART, 1));
            int[] m = {e.metadata().upsertDimension(DimensionInfo.of(HOST, CHART, "d0")),
                e.metadata().upsertDimension(DimensionInfo.of(HOST, CHART, "d1"))};
            for (long t = from; t <= end; t++) {
                if (t >= skipFrom && t <= skipTo) {
                    continue;
                }
                for (int d = 0; d < m.length; d++) {
                    e.store(m[d], t, 1, (t % 911) * 0.75 + d * 100, StorageNumber.SN_DEFAULT_FLAGS);
                }
            }
            e.flush();
        }
    }
}
