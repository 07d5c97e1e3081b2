package io.strata.node.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** exporting.conf is read from the node's configuration directory and reported as netdata.conf is. */
class NodeConfigExportingTest {

    @TempDir
    Path dir;

    @Test
    void readsExportingConfBesideNetdataConf() throws Exception {
        Files.writeString(dir.resolve("netdata.conf"), "[global]\n\thostname = edge\n");
        Files.writeString(dir.resolve("exporting.conf"), "[exporting:global]\n\tenabled = yes\n"
                + "[prometheus_remote_write:vm]\n\tenabled = yes\n\tdestination = 127.0.0.1:8428\n\tbogus = 1\n");
        NodeConfig c = NodeConfig.load(dir);
        assertTrue(c.exporting().exports());
        assertEquals("edge", c.exporting().targets().get(0).hostname());
        assertTrue(c.warnings().stream().anyMatch(w -> w.endsWith("exporting.conf:6: [prometheus_remote_write:vm] bogus"
                + " is not a key Strata knows; ignored")), c.warnings().toString());
    }

    @Test
    void withoutExportingConfNothingIsExported() throws Exception {
        assertFalse(NodeConfig.load(dir).exporting().exports());
    }

    @Test
    void aBadValueStopsTheStart() throws Exception {
        Files.writeString(dir.resolve("exporting.conf"), "[exporting:global]\n\tenabled = yes\n"
                + "[prometheus_remote_write:vm]\n\tenabled = yes\n\tupdate every = -1\n");
        NodeConfig.ConfigException e = assertThrows(NodeConfig.ConfigException.class, () -> NodeConfig.load(dir));
        assertTrue(e.getMessage().endsWith("exporting.conf:5: [prometheus_remote_write:vm] update every = -1: must be"
                + " between 1 and 86400"), e.getMessage());
    }
}
