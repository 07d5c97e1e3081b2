package io.strata.node.config;

import io.strata.engine.EngineConfig;
import io.strata.engine.FsyncPolicy;
import io.strata.engine.StorageEngine;
import io.strata.node.config.NodeConfig.ConfigException;
import io.strata.node.runtime.NodeDirectories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The {@code [db]} engine keys of netdata.conf reach the engine's configuration, and bad values stop the start. */
class DbEngineSettingsTest {

    @TempDir
    Path tmp;

    private NodeConfig load(String db) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("conf"));
        Files.writeString(dir.resolve("netdata.conf"), "[global]\n    hostname = t\n[db]\n" + db
                + "[directories]\n    cache = " + tmp.resolve("cache") + "\n    lib = " + tmp.resolve("lib") + "\n");
        return NodeConfig.load(dir);
    }

    @Test
    void withoutKeysTheEngineGetsItsDefaults() throws Exception {
        NodeConfig cfg = load("");
        EngineConfig ec = cfg.engineConfig();
        EngineConfig defaults = EngineConfig.defaults(cfg.dbDir());
        assertEquals(3, ec.tiers());
        assertEquals(defaults.fsync(), ec.fsync());
        assertFalse(ec.directReads());
        assertEquals(0, ec.cacheBytes(), "0: sized from the number of metrics");
        assertEquals(EngineConfig.DEFAULT_TIER_GROUPING, ec.tierGrouping());
        assertEquals(256L << 20, ec.quotaBytes(0));
        assertEquals(0, ec.maxAgeSeconds(0));
        assertEquals(EngineConfig.DEFAULT_FUTURE_MARGIN_SECONDS, ec.futureMarginSeconds());
        assertEquals(cfg.dbDir().resolve("tier1"), ec.tierDir(1));
        assertTrue(cfg.warnings().isEmpty(), cfg.warnings().toString());
    }

    @Test
    void everyKeyReachesTheEngine() throws Exception {
        Path far = tmp.resolve("other-disk/tier2");
        NodeConfig cfg = load("""
                    storage tiers = 3
                    dbengine page cache size MB = 64
                    dbengine use direct io = yes
                    dbengine fsync = per extent
                    dbengine tier 1 update every iterations = 30
                    dbengine tier 2 update every iterations = 30
                    dbengine tier 0 retention time = 14d
                    dbengine tier 1 retention time = 3mo
                    dbengine tier 2 retention time = 3600
                    dbengine tier 2 directory = %s
                    dbengine max future time = 30d
                """.formatted(far));
        EngineConfig ec = cfg.engineConfig();
        assertTrue(ec.directReads());
        assertEquals(64L << 20, ec.cacheBytes());
        assertEquals(FsyncPolicy.PER_EXTENT, ec.fsync());
        assertEquals(30, ec.tierGrouping());
        assertEquals(14 * 86_400L, ec.maxAgeSeconds(0));
        assertEquals(90 * 86_400L, ec.maxAgeSeconds(1));
        assertEquals(3600, ec.maxAgeSeconds(2));
        assertEquals(far, ec.tierDir(2));
        assertEquals(30 * 86_400L, ec.futureMarginSeconds());
        assertEquals(cfg.dbDir().resolve("tier0"), ec.tierDir(0));
        assertTrue(cfg.warnings().isEmpty(), "known keys are not warned about: " + cfg.warnings());

        // the node's start checks the tier's own directory, and the engine opens there
        NodeDirectories.requireWritable(cfg);
        try (StorageEngine engine = StorageEngine.open(ec)) {
            assertTrue(engine.config().directReads());
        }
        assertTrue(Files.isDirectory(far));
    }

    @Test
    void datafilesAreSizedFromTheNodesQuotas() throws Exception {
        EngineConfig ec = load("    dbengine multihost disk space MB = 102400\n").engineConfig();
        assertEquals(512L << 20, ec.datafileMaxBytes(0), "100 GiB: datafiles of 512 MiB, 200 of them");
        assertEquals(512L << 20, ec.datafileMaxBytes(1), "tier 1's default quota, 50 GiB");
        EngineConfig small = load("").engineConfig();
        assertEquals((256L << 20) / 50, small.datafileMaxBytes(0), "the default 256 MiB quota: 50 datafiles");
    }

    @Test
    void badValuesNameTheirKey() {
        assertMessage("dbengine fsync = sometimes\n", "[db] dbengine fsync = sometimes must be one of: never, per extent, per datafile");
        assertMessage("dbengine page cache size MB = lots\n", "[db] dbengine page cache size MB = lots is not a number");
        assertMessage("dbengine tier 1 update every iterations = 1\n",
                "[db] dbengine tier 1 update every iterations = 1 must be between 2 and 255");
        assertMessage("dbengine tier 1 update every iterations = 60\ndbengine tier 2 update every iterations = 24\n",
                "[db] dbengine tier 2 update every iterations = 24 differs from tier 1's 60; Strata groups every tier by the same number of points");
        assertMessage("dbengine tier 0 retention time = 2 fortnights\n",
                "[db] dbengine tier 0 retention time = 2 fortnights is not a duration (a number with s, m, h, d, w, mo or y)");
        assertMessage("storage tiers = 5\ndbengine tier 1 update every iterations = 255\n",
                "[db] storage tiers = 5 with dbengine tier N update every iterations = 255: tier 4 would aggregate "
                        + "255^4 collections per point");
        assertMessage("dbengine max future time = soon\n",
                "[db] dbengine max future time = soon is not a duration");
        assertMessage("dbengine tier 0 retention time = d\n",
                "[db] dbengine tier 0 retention time = d is not a duration");
        // 999999999999 years is past the range of seconds in a long: refused, not wrapped around
        assertMessage("dbengine tier 0 retention time = 999999999999y\n",
                "[db] dbengine tier 0 retention time = 999999999999y is not a duration");
    }

    @Test
    void aTierDirectoryThatCannotBeCreatedIsRefusedWithItsKey() throws Exception {
        Path file = Files.writeString(tmp.resolve("a-file"), "x");
        NodeConfig cfg = load("    dbengine tier 1 directory = " + file.resolve("t1") + "\n");
        NodeDirectories.NotWritableException e = assertThrows(NodeDirectories.NotWritableException.class,
                () -> NodeDirectories.requireWritable(cfg));
        assertEquals(file.resolve("t1"), e.directory());
        assertTrue(e.setBy().startsWith("[db] dbengine tier 1 directory in "), e.setBy());
    }

    @Test
    void aKeyForATierThatDoesNotExistIsNotUsed() throws Exception {
        NodeConfig cfg = load("    storage tiers = 2\n    dbengine tier 3 directory = /nowhere\n");
        assertNull(cfg.dbEngine().tierDirectories()[1]);
        assertEquals(2, cfg.dbEngine().tierDirectories().length);
        assertTrue(cfg.warnings().stream().anyMatch(w -> w.contains("dbengine tier 3 directory is not a key Strata knows")),
                cfg.warnings().toString());
    }

    private void assertMessage(String db, String expectedPart) {
        ConfigException e = assertThrows(ConfigException.class, () -> load("    " + db.replace("\n", "\n    ").trim() + "\n"));
        assertTrue(e.getMessage().contains(expectedPart), e.getMessage());
    }
}
