package io.strata.node.config;

import io.strata.node.config.NodeConfig.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A value that stops the start is named by file and line, whatever the key: the cases
 * {@link NodeConfigFuzzTest} found named the file only, or escaped as another exception.
 */
class ConfigErrorLocationTest {

    @TempDir
    Path dir;

    private NodeConfig load(String netdataConf, String streamConf) throws Exception {
        Files.writeString(dir.resolve("netdata.conf"), "[global]\n    hostname = t\n" + netdataConf);
        Files.writeString(dir.resolve("stream.conf"), streamConf);
        return NodeConfig.load(dir);
    }

    private void refused(String netdataConf, String streamConf, String expectedStart) {
        ConfigException e = assertThrows(ConfigException.class, () -> load(netdataConf, streamConf));
        assertTrue(e.getMessage().startsWith(dir.resolve(expectedStart).toString()), e.getMessage());
    }

    @Test
    void numbersOutOfRangeNameTheirLine() {
        refused("[db]\n    update every = 0\n", "", "netdata.conf:4: [db] update every = 0 must be between 1");
        refused("[db]\n    seconds to replicate = -5\n", "", "netdata.conf:4: [db] seconds to replicate = -5 must not");
        refused("[strata]\n    synthetic charts = many\n", "", "netdata.conf:4: [strata] synthetic charts = many is not");
        refused("[db]\n    mode = ram\n", "", "netdata.conf:4: [db] mode = ram is not supported");
        refused("[db]\n    dbengine fsync = sometimes\n", "", "netdata.conf:4: [db] dbengine fsync = sometimes");
        refused("[db]\n    dbengine tier 0 retention time = 5 fortnights\n", "", "netdata.conf:4: [db] dbengine tier 0");
        refused("[logs]\n    level = loud\n", "", "netdata.conf:4: [logs] level = loud");
        refused("[web]\n    ssl key = /k.pem\n", "", "netdata.conf:4: [web] ssl certificate and ssl key go together");
    }

    @Test
    void aPathWithANulIsAConfigurationErrorNamingItsLine() {
        refused("[directories]\n    cache = /tmp/a\u0000b\n", "", "netdata.conf:4: [directories] cache = ");
        refused("[logs]\n    error = a\u0000b\n", "", "netdata.conf:4: [logs] error = ");
        refused("[db]\n    dbengine tier 1 directory = /x\u0000y\n", "", "netdata.conf:4: [db] dbengine tier 1 directory");
        refused("", "[stream]\n    CAfile = /etc/a\u0000b.pem\n", "stream.conf:2: [stream] CAfile = ");
    }

    @Test
    void theSmallestTierZeroQuotaLeavesTheOtherTiersAQuota() throws Exception {
        NodeConfig c = load("[db]\n    dbengine multihost disk space MB = 1\n", "");
        assertEquals(1L, c.tierDiskSpaceMb()[1]);
    }
}
