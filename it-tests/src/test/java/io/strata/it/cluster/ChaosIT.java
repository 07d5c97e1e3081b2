package io.strata.it.cluster;

import io.strata.node.chaos.ChaosOptions;
import io.strata.node.chaos.ChaosReport;
import io.strata.node.chaos.ChaosRunner;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code strata chaos} at CI size: 3 parents forwarding to each other and 4 children (one a real
 * Netdata 1.37.1 child when it is installed) under faults drawn from a seed for 3 minutes (every
 * kind: SIGKILL and restart of parents and children, SIGSTOP/SIGCONT of a parent, a parent
 * restarted with an empty disk, a child restarted with its clock shifted, a parent partitioned in
 * network namespaces when the machine allows), then every sample of every child checked on every
 * parent. Longer: {@code -Dstrata.chaos.minutes=N}; replay: {@code -Dstrata.chaos.seed=S}.
 */
class ChaosIT {

    @Test
    void aClusterUnderRandomFaultsLosesNothing() throws Exception {
        double minutes = Double.parseDouble(System.getProperty("strata.chaos.minutes", "3"));
        long seed = Long.getLong("strata.chaos.seed", System.currentTimeMillis() % 1_000_000);
        int children = Integer.getInteger("strata.chaos.children", 4);
        Path dir = ClusterLayout.runDirectory("ChaosIT-seed-" + seed);
        ChaosOptions o = new ChaosOptions(minutes, seed, 3, children, dir, true, true, "192m", "96m", 300);
        System.out.println("[ChaosIT] seed " + seed + " (replay with -Dstrata.chaos.seed=" + seed + ")");
        ChaosReport r = new ChaosRunner(o, System.out).run();
        System.out.println(r.table());
        System.out.println("[ChaosIT] " + r.json());
        assertTrue(r.ok(), "chaos run with seed " + seed + " failed:\n" + r.table());
        assertTrue(r.samplesChecked() > 0, "nothing checked");
    }
}
