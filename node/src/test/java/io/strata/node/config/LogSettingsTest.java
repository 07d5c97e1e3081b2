package io.strata.node.config;

import io.strata.node.config.LogSettings.Level;
import io.strata.node.config.LogSettings.Target;
import io.strata.node.config.NodeConfig.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** netdata.conf's {@code [logs]} keys: level, the node's log and the access log. */
class LogSettingsTest {

    @TempDir
    Path tmp;

    private NodeConfig load(String logs) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("conf"));
        Files.writeString(dir.resolve("netdata.conf"), "[global]\n    hostname = t\n[logs]\n" + logs
                + "[directories]\n    cache = " + tmp.resolve("cache") + "\n    lib = " + tmp.resolve("lib") + "\n");
        return NodeConfig.load(dir);
    }

    @Test
    void withoutKeysInfoGoesToStderrAndTheAccessLogIsOff() throws Exception {
        NodeConfig cfg = load("");
        assertEquals(LogSettings.defaults(), cfg.logs());
        assertTrue(cfg.warnings().isEmpty(), cfg.warnings().toString());
    }

    @Test
    void netdataLevelNamesMapToStrataLevels() throws Exception {
        assertEquals(Level.WARN, load("    level = warning\n").logs().level());
        assertEquals(Level.ERROR, load("    level = critical\n").logs().level());
        assertEquals(Level.ERROR, load("    level = emergency\n").logs().level());
        assertEquals(Level.INFO, load("    level = notice\n").logs().level());
        assertEquals(Level.DEBUG, load("    level = DEBUG\n").logs().level());
    }

    @Test
    void anUnknownLevelStopsTheStartNamingTheKey() {
        ConfigException e = assertThrows(ConfigException.class, () -> load("    level = loud\n"));
        assertTrue(e.getMessage().endsWith("netdata.conf:4: [logs] level = loud is not a level;"
                + " use one of emergency, alert, critical, error, warning, notice, info, debug"), e.getMessage());
    }

    @Test
    void targetsAreFilesStreamsOrNone() throws Exception {
        NodeConfig cfg = load("    error = stdout\n    access = /var/log/strata/access.log\n");
        assertEquals(Target.of(Target.Kind.STDOUT), cfg.logs().main());
        assertEquals(new Target(Target.Kind.FILE, Path.of("/var/log/strata/access.log")), cfg.logs().access());

        cfg = load("    error = none\n    access = system\n");
        assertEquals(Target.of(Target.Kind.NONE), cfg.logs().main());
        assertEquals(Target.of(Target.Kind.STDOUT), cfg.logs().access(), "system: the access log's own stream");
        assertEquals(Target.of(Target.Kind.STDERR), load("    error = system\n").logs().main());
    }

    @Test
    void aRelativeFileIsInTheConfigurationDirectory() throws Exception {
        NodeConfig cfg = load("    error = log/strata.log\n");
        assertEquals(new Target(Target.Kind.FILE, tmp.resolve("conf").resolve("log/strata.log")), cfg.logs().main());
    }

    @Test
    void syslogIsRefusedRatherThanIgnored() {
        ConfigException e = assertThrows(ConfigException.class, () -> load("    access = syslog\n"));
        assertTrue(e.getMessage().endsWith("[logs] access = syslog is not supported; use a file, stdout, stderr or none"),
                e.getMessage());
    }

    @Test
    void netdataKeysStrataDoesNotImplementAreWarnedAbout() throws Exception {
        NodeConfig cfg = load("    errors flood protection period = 1200\n");
        assertEquals(1, cfg.warnings().size());
        assertTrue(cfg.warnings().get(0).endsWith("[logs] errors flood protection period is not a key Strata knows;"
                + " ignored"), cfg.warnings().get(0));
    }
}
