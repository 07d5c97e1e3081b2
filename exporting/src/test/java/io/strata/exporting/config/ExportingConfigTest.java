package io.strata.exporting.config;

import io.strata.streaming.config.IniFile;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ExportingConfigTest {

    private static ExportingConfig parse(String text) throws Exception {
        return ExportingConfig.from(IniFile.parse(text, "exporting.conf"), "node-a");
    }

    private static String fails(String text) {
        return assertThrows(ExportingConfigException.class, () -> parse(text)).getMessage();
    }

    @Test
    void readsAnInstanceWithNetdatasDefaults() throws Exception {
        ExportingConfig c = parse("""
                [exporting:global]
                    enabled = yes
                [prometheus_remote_write:vm]
                    enabled = yes
                    destination = 127.0.0.1:8428
                """);
        assertTrue(c.exports());
        TargetConfig t = c.targets().get(0);
        assertEquals("vm", t.name());
        assertFalse(t.tls());
        assertEquals(List.of(new Destination("127.0.0.1", 8428)), t.destinations());
        assertEquals("/receive", t.path());
        assertEquals(DataSource.AVERAGE, t.dataSource());
        assertEquals("netdata", t.prefix());
        assertEquals("node-a", t.hostname());
        assertEquals(10, t.updateEvery());
        assertEquals(10, t.bufferOnFailures());
        assertEquals(10_000, t.timeoutMillis());
        assertTrue(t.sendNames());
        assertTrue(t.charts().matches("system.cpu"));
        assertTrue(t.hosts().matches("localhost"));
        assertTrue(t.sendConfiguredLabels());
        assertFalse(t.sendAutomaticLabels());
        assertEquals(List.of(), c.warnings());
    }

    @Test
    void takesMissingInstanceKeysFromTheGlobalSectionAndReadsEveryKey() throws Exception {
        ExportingConfig c = parse("""
                [exporting:global]
                    enabled = yes
                    hostname = edge-1
                    update every = 5
                    prefix = strata
                [prometheus_remote_write:https:mimir]
                    enabled = yes
                    destination = mimir-a.example:9009 tcp:mimir-b.example [2001:db8::1]:9009
                    remote write URL path = /api/v1/push
                    username = tenant
                    password = secret
                    data source = sum
                    buffer on failures = 3
                    timeout ms = 2500
                    send names instead of ids = no
                    send charts matching = system.* !*
                    send hosts matching = child-*
                    send configured labels = no
                    send automatic labels = yes
                    max samples per request = 5000
                    max samples per second = 200000
                """);
        TargetConfig t = c.targets().get(0);
        assertEquals("mimir", t.name());
        assertTrue(t.tls());
        assertEquals(List.of(new Destination("mimir-a.example", 9009), new Destination("mimir-b.example", 443),
                new Destination("2001:db8::1", 9009)), t.destinations());
        assertEquals("[2001:db8::1]:9009", t.destinations().get(2).authority());
        assertEquals("/api/v1/push", t.path());
        assertEquals("tenant", t.username());
        assertEquals("secret", t.password());
        assertEquals(DataSource.SUM, t.dataSource());
        assertEquals("strata", t.prefix());
        assertEquals("edge-1", t.hostname());
        assertEquals(5, t.updateEvery());
        assertEquals(3, t.bufferOnFailures());
        assertEquals(2500, t.timeoutMillis());
        assertFalse(t.sendNames());
        assertTrue(t.charts().matches("system.cpu"));
        assertFalse(t.charts().matches("disk.sda"));
        assertTrue(t.hosts().matches("child-7"));
        assertFalse(t.hosts().matches("localhost"));
        assertFalse(t.sendConfiguredLabels());
        assertTrue(t.sendAutomaticLabels());
        assertEquals(5000, t.maxSamplesPerRequest());
        assertEquals(200_000, t.maxSamplesPerSecond());
        assertFalse(t.toString().contains("secret"), t.toString());
        assertEquals(List.of(), c.warnings());
    }

    @Test
    void reportsUnknownKeysAndSectionsWithFileAndLine() throws Exception {
        ExportingConfig c = parse("""
                [exporting:global]
                    enabled = yes
                    sned hosts matching = *
                [prometheus_remote_write:vm]
                    enabled = yes
                    destination = 127.0.0.1:8428
                    remote write path = /api/v1/write
                [graphite:old]
                    enabled = no
                [prometheus:exporter]
                    send names instead of ids = yes
                [something]
                    a = b
                """);
        assertEquals(1, c.targets().size());
        String all = String.join("\n", c.warnings());
        assertTrue(all.contains("exporting.conf:3: [exporting:global] sned hosts matching is not a key Strata knows"), all);
        assertTrue(all.contains("exporting.conf:7: [prometheus_remote_write:vm] remote write path is not a key"), all);
        assertTrue(all.contains("exporting.conf:8: [graphite:old] is a graphite instance"), all);
        assertTrue(all.contains("exporting.conf:10: [prometheus:exporter]"), all);
        assertTrue(all.contains("exporting.conf:12: [something] is not a section Strata knows"), all);
    }

    @Test
    void disabledInstancesAndADisabledEngineExportNothing() throws Exception {
        ExportingConfig off = parse("""
                [prometheus_remote_write:vm]
                    enabled = no
                    destination = 127.0.0.1:1
                """);
        assertFalse(off.exports());
        assertEquals(List.of(), off.warnings());
        ExportingConfig noGlobal = parse("""
                [prometheus_remote_write:vm]
                    enabled = yes
                    destination = 127.0.0.1:1
                """);
        assertFalse(noGlobal.exports());
        assertTrue(noGlobal.warnings().get(0).contains("[exporting:global] enabled is not yes"), noGlobal.warnings().toString());
    }

    @Test
    void badValuesStopTheStartNamingFileLineAndKey() {
        String head = "[exporting:global]\nenabled = yes\n[prometheus_remote_write:vm]\nenabled = yes\n";
        assertEquals("exporting.conf:5: [prometheus_remote_write:vm] update every = 0: must be between 1 and 86400",
                fails(head + "update every = 0\n"));
        assertEquals("exporting.conf:5: [prometheus_remote_write:vm] timeout ms = soon: is not a number",
                fails(head + "timeout ms = soon\n"));
        assertEquals("exporting.conf:5: [prometheus_remote_write:vm] data source = median: must be average or sum",
                fails(head + "data source = median\n"));
        assertTrue(fails(head + "data source = as collected\n").contains("raw counters"));
        assertEquals("exporting.conf:5: [prometheus_remote_write:vm] destination = 127.0.0.1:99999: '127.0.0.1:99999':"
                + " '99999' is not a port", fails(head + "destination = 127.0.0.1:99999\n"));
        assertTrue(fails(head + "destination = udp:127.0.0.1:9\n").contains("remote write needs TCP"));
        assertTrue(fails(head + "remote write URL path = receive\n").contains("must start with '/'"));
        assertTrue(fails(head + "send names instead of ids = maybe\n").contains("must be yes or no"));
        assertTrue(fails(head + "prefix = 9lives\n").contains("Prometheus metric name"));
        assertTrue(fails("[exporting:global]\nenabled = yes\n[prometheus_remote_write:a/b]\nenabled = yes\n")
                .contains("instance name"));
        assertTrue(fails("[exporting:global]\nenabled = yes\n[graphite:g]\nenabled = yes\n")
                .contains("graphite connector is not supported"));
    }

    @Test
    void credentialsAreUsedOrRefusedNeverIgnored() throws Exception {
        String head = "[exporting:global]\nenabled = yes\n";
        assertTrue(fails(head + "[prometheus_remote_write:vm]\nenabled = yes\ndestination = 127.0.0.1:1\npassword = p\n")
                .contains("a password needs a username"));
        String clear = fails(head + "[prometheus_remote_write:vm]\nenabled = yes\ndestination = tsdb.example:80\n"
                + "username = u\npassword = p\n");
        assertTrue(clear.contains("clear text") && clear.contains("prometheus_remote_write:https:vm"), clear);
        assertFalse(clear.contains("= p"), clear);
        // over TLS, or to this machine, basic authentication is sent
        TargetConfig tls = parse(head + "[prometheus_remote_write:https:vm]\nenabled = yes\n"
                + "destination = tsdb.example\nusername = u\npassword = p\n").targets().get(0);
        assertEquals("u", tls.username());
        TargetConfig local = parse(head + "[prometheus_remote_write:vm]\nenabled = yes\ndestination = 127.0.0.1:8428\n"
                + "username = u\npassword = p\n").targets().get(0);
        assertEquals("p", local.password());
    }
}
