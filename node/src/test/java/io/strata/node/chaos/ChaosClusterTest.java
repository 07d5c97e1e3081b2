package io.strata.node.chaos;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The cluster a chaos run builds (on 127.0.0.1, nothing started): with the defaults, Strata node
 * children, one Micrometer application and no Netdata child (turned off here), each child's
 * stream.conf listing the parents in its own order; the faults' targets include the application.
 */
class ChaosClusterTest {

    @TempDir
    Path dir;

    @Test
    void eightChildrenOneOfThemTheMicrometerApplicationEachWithItsOwnParentOrder() throws Exception {
        ChaosOptions o = new ChaosOptions(1, 7, 3, 8, dir, false, false, "128m", "96m", 60);
        ChaosCluster c = ChaosCluster.build(o, ChaosNetwork.create(false), dir);
        assertEquals(3, c.parents.size());
        assertEquals(8, c.children.size());
        List<ChaosNode> app = c.children.stream().filter(n -> n.kind == ChaosNode.Kind.MICROMETER_CHILD).toList();
        assertEquals(1, app.size(), "one Micrometer application: " + c.children);
        assertEquals("chaos-micrometer-child", app.get(0).name);
        assertEquals(7, c.children.stream().filter(n -> n.kind == ChaosNode.Kind.CHILD).count());
        assertTrue(c.strataChildren().contains(app.get(0)), "the application is a fault target");
        assertEquals(8, c.strataChildren().size());
        // its stream.conf, the only configuration it reads (no netdata.conf: it is not a node)
        assertTrue(Files.exists(app.get(0).dir.resolve("stream.conf")));
        assertTrue(!Files.exists(app.get(0).dir.resolve("netdata.conf")));
        Set<String> orders = new HashSet<>();
        for (ChaosNode child : c.children) {
            String conf = Files.readString(child.dir.resolve("stream.conf"));
            String destination = conf.lines().filter(l -> l.trim().startsWith("destination =")).findFirst()
                    .orElseThrow();
            orders.add(destination);
        }
        assertEquals(6, orders.size(), "8 children list 3 parents in all 6 orders: " + orders);
    }

    @Test
    void aSingleStrataChildStaysANode() throws Exception {
        ChaosOptions o = new ChaosOptions(1, 7, 2, 1, dir, false, false, "128m", "96m", 60);
        ChaosCluster c = ChaosCluster.build(o, ChaosNetwork.create(false), dir);
        assertEquals(ChaosNode.Kind.CHILD, c.children.get(0).kind);
    }
}
