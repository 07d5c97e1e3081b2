package io.strata.node.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * netdata.conf's {@code [db] repair holes ...} keys: on by default, read without a warning, and a
 * value that cannot be used (the switch is security-relevant: it makes this parent ask its peers)
 * stops the start naming its line.
 */
class PeerRepairSettingsTest {

    @TempDir
    Path dir;

    private NodeConfig load(String db) throws Exception {
        Files.writeString(dir.resolve("netdata.conf"), "[web]\nbind to = 127.0.0.1:0\n[db]\n" + db);
        Files.writeString(dir.resolve("stream.conf"), "");
        return NodeConfig.load(dir);
    }

    @Test
    void onByDefault() throws Exception {
        assertEquals(PeerRepairSettings.DEFAULTS, load("").peerRepair());
        assertEquals(new PeerRepairSettings(true, 3600, 60), PeerRepairSettings.DEFAULTS);
    }

    @Test
    void keysAreRead() throws Exception {
        NodeConfig c = load("repair holes from peers = no\nrepair holes window seconds = 7200\n"
                + "repair holes every seconds = 30\n");
        assertEquals(new PeerRepairSettings(false, 7200, 30), c.peerRepair());
        assertTrue(c.warnings().stream().noneMatch(w -> w.contains("repair holes")), c.warnings().toString());
    }

    @Test
    void aValueThatCannotBeUsedStopsTheStart() {
        NodeConfig.ConfigException e = assertThrows(NodeConfig.ConfigException.class,
                () -> load("repair holes from peers = maybe\n"));
        assertTrue(e.getMessage().contains("netdata.conf:4") && e.getMessage().contains("must be yes or no"),
                e.getMessage());
        assertThrows(NodeConfig.ConfigException.class, () -> load("repair holes window seconds = 10\n"));
        assertThrows(NodeConfig.ConfigException.class, () -> load("repair holes every seconds = 1h\n"));
    }
}
