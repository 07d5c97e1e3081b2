package io.strata.streaming.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.strata.streaming.config.IniFile;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

import org.junit.jupiter.api.Test;

class StreamConfigTest {

    static final String KEY = "11111111-2222-3333-4444-555555555555";
    static final String GUID = "5b8185c0-e5a4-11f1-9d33-02fc00000001";

    private static StreamConfig conf(String text) throws Exception {
        return StreamConfig.from(IniFile.parse(text, "stream.conf"));
    }

    @Test
    void senderDefaultsOf1371() throws Exception {
        StreamConfig.SenderSettings s = conf("").sender();
        assertEquals(new StreamConfig.SenderSettings(false, "", "", 600, 19999, 10485760, 5, 60, true, "*",
                "/etc/ssl/certs/", "/etc/ssl/certs/certs.pem", false), s);
    }

    @Test
    void senderSettingsFromTheFile() throws Exception {
        StreamConfig c = conf(String.join("\n", "[stream]",
                "enabled = yes",
                "destination = tcp:parent1 parent2:19998:SSL",
                "api key = " + KEY,
                "timeout seconds = 60",
                "default port = 29999",
                "buffer size bytes = 1048576",
                "reconnect delay seconds = 7",
                "initial clock resync iterations = 10",
                "enable compression = no",
                "send charts matching = system.* !apps.*",
                "CApath = /ca/",
                "CAfile = /ca/file.pem",
                "ssl skip certificate verification = yes"));
        assertEquals(new StreamConfig.SenderSettings(true, "tcp:parent1 parent2:19998:SSL", KEY, 60, 29999, 1048576,
                7, 10, false, "system.* !apps.*", "/ca/", "/ca/file.pem", true), c.sender());
        assertTrue(c.ini().unusedEntries().isEmpty(), c.ini().unusedEntries().toString());
        assertTrue(c.warnings().isEmpty(), c.warnings().toString());
    }

    @Test
    void senderWithoutDestinationStaysDisabled() throws Exception {
        StreamConfig c = conf("[stream]\nenabled = yes\napi key = " + KEY + "\n");
        assertFalse(c.sender().enabled());
        assertEquals(List.of("stream.conf:2: [stream] enabled = yes but destination is empty; the sender stays"
                + " disabled (as in Netdata)"), c.warnings());
    }

    @Test
    void badPortFallsBackWithAWarning() throws Exception {
        StreamConfig c = conf("[stream]\ndefault port = 70000\n");
        assertEquals(19999, c.sender().defaultPort());
        assertEquals(List.of("stream.conf:2: [stream] default port = 70000 is not a TCP port; using 19999"),
                c.warnings());
    }

    @Test
    void apiKeySectionDefaultsInheritStreamAndHostDefaults() throws Exception {
        StreamConfig c = conf(String.join("\n", "[stream]", "enabled = yes", "destination = gp", "api key = " + KEY,
                "send charts matching = system.*", "enable compression = no", "", "[" + KEY + "]", "enabled = yes"));
        StreamConfig.KeySection k = c.apiKey(KEY).orElseThrow();
        assertEquals(KEY, k.apiKey());
        assertEquals("api", k.type());
        assertFalse(k.typeExplicit());
        assertTrue(k.enabled());
        assertEquals("*", k.allowFrom());
        assertEquals(3600, k.defaultHistory());
        assertEquals("dbengine", k.defaultMemoryMode());
        assertEquals(HealthSetting.YES, k.healthEnabledByDefault());
        assertEquals(60, k.defaultPostponeAlarmsOnConnectSeconds());
        assertTrue(k.defaultProxyEnabled(), "proxy defaults are the [stream] sender's");
        assertEquals("gp", k.defaultProxyDestination());
        assertEquals(KEY, k.defaultProxyApiKey());
        assertEquals("system.*", k.defaultProxySendChartsMatching());
        assertFalse(k.enableCompression(), "defaults to [stream] enable compression");
        assertTrue(k.enableReplication());
        assertEquals(86400, k.secondsToReplicate());
        assertEquals(600, k.secondsPerReplicationStep());
        assertEquals("stream.conf:8", k.location());
        assertEquals(Optional.empty(), c.apiKey("22222222-2222-3333-4444-555555555555"));
        StreamConfig hex = conf("[aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee]\nenabled = yes\n");
        assertTrue(hex.apiKey("aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee").isPresent());
        assertEquals(hex.apiKey("aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"), hex.apiKey("AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE"),
                "UUIDs are looked up in one canonical form");
        assertTrue(conf("[AAAAAAAA-bbbb-CCCC-dddd-EEEEEEEEEEEE]\nenabled = yes\n")
                .apiKey("aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee").isPresent());
    }

    @Test
    void apiKeySectionValues() throws Exception {
        StreamConfig c = conf(String.join("\n", "[" + KEY + "]",
                "type = api",
                "enabled = yes",
                "allow from = !10.0.0.66 10.*",
                "default history = 7200",
                "default memory mode = ram",
                "health enabled by default = auto",
                "default postpone alarms on connect seconds = 120",
                "default proxy enabled = yes",
                "default proxy destination = grandparent:19999",
                "default proxy api key = 22222222-2222-3333-4444-555555555555",
                "default proxy send charts matching = !apps.* *",
                "enable compression = no",
                "enable replication = no",
                "seconds to replicate = 3600",
                "seconds per replication step = 300"));
        StreamConfig.KeySection k = c.apiKey(KEY).orElseThrow();
        assertEquals(new StreamConfig.KeySection(KEY, "api", true, true, "!10.0.0.66 10.*", k.allowFromPattern(),
                7200, "ram", HealthSetting.AUTO, 120, true, "grandparent:19999",
                "22222222-2222-3333-4444-555555555555", "!apps.* *", false, false, 3600, 300, "stream.conf:1"), k);
        assertTrue(k.allowFromPattern().matches("10.0.0.1"));
        assertFalse(k.allowFromPattern().matches("10.0.0.66"));
        assertTrue(c.ini().unusedEntries().isEmpty(), c.ini().unusedEntries().toString());
    }

    @Test
    void machineSectionOverridesAreOptional() throws Exception {
        StreamConfig c = conf(String.join("\n", "[" + GUID + "]",
                "type = machine",
                "enabled = no",
                "allow from = 192.168.*",
                "update every = 2",
                "history = 100",
                "memory mode = save",
                "health enabled = no",
                "postpone alarms on connect seconds = 5",
                "proxy enabled = yes",
                "proxy destination = gp",
                "proxy api key = " + KEY,
                "proxy send charts matching = system.*",
                "enable compression = yes",
                "enable replication = no",
                "seconds to replicate = 10",
                "seconds per replication step = 5",
                "host tags = rack=1"));
        StreamConfig.MachineSection m = c.machine(GUID).orElseThrow();
        assertEquals(new StreamConfig.MachineSection(GUID, "machine", true, false, "192.168.*", m.allowFromPattern(),
                OptionalLong.of(2), OptionalLong.of(100), Optional.of("save"), Optional.of(HealthSetting.NO),
                OptionalLong.of(5), Optional.of(true), Optional.of("gp"), Optional.of(KEY), Optional.of("system.*"),
                Optional.of(true), Optional.of(false), OptionalLong.of(10), OptionalLong.of(5), Optional.of("rack=1"),
                "stream.conf:1"), m);
        assertTrue(c.ini().unusedEntries().isEmpty(), c.ini().unusedEntries().toString());

        StreamConfig.MachineSection bare = conf("[" + GUID + "]\n").machine(GUID).orElseThrow();
        assertEquals("machine", bare.type());
        assertTrue(bare.enabled(), "a GUID section is enabled unless it says no");
        assertEquals(OptionalLong.empty(), bare.updateEvery());
        assertEquals(Optional.empty(), bare.healthEnabled());
        assertEquals(Optional.empty(), bare.hostTags());
    }

    @Test
    void unknownKeysAreReportedPerRole() throws Exception {
        StreamConfig c = conf(String.join("\n",
                "[stream]", "enabled = no", "destinaton = typo",
                "[" + KEY + "]", "type = api", "enabled = yes", "history = 5", "default history = 10",
                "[" + GUID + "]", "type = machine", "default history = 5", "history = 10",
                "[22222222-2222-3333-4444-555555555555]", "history = 1", "default history = 2", "bogus = 3",
                "[not-a-uuid]", "enabled = yes"));
        List<String> unused = c.ini().unusedEntries().stream()
                .map(e -> e.location() + " [" + e.section() + "] " + e.name()).toList();
        assertEquals(List.of(
                "stream.conf:3 [stream] destinaton",
                "stream.conf:7 [" + KEY + "] history",
                "stream.conf:11 [" + GUID + "] default history",
                "stream.conf:16 [22222222-2222-3333-4444-555555555555] bogus",
                "stream.conf:18 [not-a-uuid] enabled"), unused);
        assertEquals(List.of("stream.conf:17: section [not-a-uuid] is neither [stream] nor a UUID (API key or machine"
                + " GUID); Netdata never uses it"), c.warnings());
    }

    @Test
    void everyUuidSectionIsReadableInBothRoles() throws Exception {
        StreamConfig c = conf("[" + KEY + "]\ntype = machine\nenabled = yes\n[" + GUID + "]\ntype = \n");
        assertEquals("machine", c.apiKey(KEY).orElseThrow().type());
        assertEquals("machine", c.machine(KEY).orElseThrow().type());
        assertEquals("unknown", c.apiKey(GUID).orElseThrow().type(), "an empty type is 'unknown', as in Netdata");
        assertEquals("unknown", c.machine(GUID).orElseThrow().type());
        assertEquals(List.of("stream.conf:5: [" + GUID + "] type = '' is neither 'api' nor 'machine'; Netdata refuses"
                + " it in both roles"), c.warnings());
    }

    @Test
    void oddValuesGetWarnings() throws Exception {
        StreamConfig c = conf(String.join("\n", "[" + KEY + "]", "default memory mode = DBENGINE",
                "health enabled by default = Yes", "enabled = yes", "enabled = no"));
        StreamConfig.KeySection k = c.apiKey(KEY).orElseThrow();
        assertEquals("save", k.defaultMemoryMode(), "Netdata maps unknown modes to save");
        assertEquals(HealthSetting.YES, k.healthEnabledByDefault(), "unrecognised: the default stays");
        assertFalse(k.enabled(), "the later line wins");
        assertEquals(List.of(
                "stream.conf:2: [" + KEY + "] default memory mode = 'DBENGINE' is not ram/save/map/none/alloc/dbengine;"
                        + " Netdata uses 'save'",
                "stream.conf:3: [" + KEY + "] health enabled by default = 'Yes' is not yes/no/auto; Netdata ignores it",
                "stream.conf:4: [" + KEY + "] enabled is set again later in the section; the later value is used"),
                c.warnings());
    }

    @Test
    void hostDefaultsFromNetdataConf() throws Exception {
        IniFile netdataConf = IniFile.parse(String.join("\n", "[db]", "update every = 2", "mode = ram",
                "retention = 1000", "enable replication = no", "seconds to replicate = 7200",
                "seconds per replication step = 60", "[health]", "enabled = no", "[web]", "x = y"), "netdata.conf");
        HostDefaults d = HostDefaults.fromNetdataConf(netdataConf);
        assertEquals(new HostDefaults(2, 1000, "ram", HealthSetting.NO, false, 7200, 60), d);
        assertEquals(List.of("x"), netdataConf.unusedEntries().stream().map(IniFile.Entry::name).toList());
        assertEquals(HostDefaults.NETDATA_1_37_1, HostDefaults.fromNetdataConf(IniFile.parse("", "n")));

        StreamConfig c = StreamConfig.from(IniFile.parse("[" + KEY + "]\nenabled = yes\n", "s"), d);
        assertEquals(1000, c.apiKey(KEY).orElseThrow().defaultHistory());
        assertEquals("ram", c.apiKey(KEY).orElseThrow().defaultMemoryMode());
        assertEquals(HealthSetting.NO, c.apiKey(KEY).orElseThrow().healthEnabledByDefault());
        assertFalse(c.apiKey(KEY).orElseThrow().enableReplication());
        assertEquals(d, c.hostDefaults());
    }

    @Test
    void healthValuesAreExactLowerCase() {
        assertEquals(HealthSetting.YES, HealthSetting.fromConfigValue("on"));
        assertEquals(HealthSetting.NO, HealthSetting.fromConfigValue("off"));
        assertEquals(HealthSetting.AUTO, HealthSetting.fromConfigValue("on demand"));
        assertEquals(null, HealthSetting.fromConfigValue("YES"));
        assertEquals(null, HealthSetting.fromConfigValue(null));
    }
}
