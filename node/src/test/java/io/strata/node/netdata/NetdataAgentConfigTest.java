package io.strata.node.netdata;

import io.strata.streaming.config.IniFile;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a real Netdata 1.37.1 is given: its directories under its base, its web port, the stream
 * sections of a child, a parent, or a parent that forwards, and the system-info.sh the Debian
 * package lacks. Read back with the same INI reader the node uses for Netdata's files.
 */
class NetdataAgentConfigTest {

    static final String KEY = "11111111-2222-3333-4444-555555555555";

    @TempDir
    Path dir;

    static void assumePluginsInstalled() {
        boolean ok = Files.isDirectory(Path.of("/usr/lib/netdata/plugins.d"));
        if (!ok) {
            System.out.println("SKIPPED: /usr/lib/netdata/plugins.d is absent (apt-get install -y netdata-core)");
        }
        Assumptions.assumeTrue(ok, "netdata-core is not installed");
    }

    static IniFile read(Path p) throws Exception {
        return IniFile.parse(Files.readString(p), p.getFileName().toString());
    }

    @Test
    void aChildStreamsToItsParentsInOrder() throws Exception {
        assumePluginsInstalled();
        Path base = dir.resolve("child");
        NetdataAgentConfig c = new NetdataAgentConfig(base, "nd-child", "127.0.0.1", 19999)
                .sendTo(List.of("127.0.0.1:1", "127.0.0.1:2"), KEY, 10, true, false)
                .appendNetdataConf("[host labels]\n\tlabel = a b\n");
        c.write();
        IniFile conf = read(c.netdataConf());
        assertEquals("nd-child", conf.get("global", "hostname", null));
        assertEquals("127.0.0.1:19999", conf.get("web", "bind to", null));
        assertEquals(base.resolve("cache").toString(), conf.get("directories", "cache", null));
        assertEquals("1", conf.get("db", "storage tiers", null));
        assertEquals("no", conf.get("health", "enabled", null));
        assertEquals("a b", conf.get("host labels", "label", null));
        IniFile stream = read(base.resolve("etc/stream.conf"));
        assertEquals("yes", stream.get("stream", "enabled", null));
        assertEquals("127.0.0.1:1 127.0.0.1:2", stream.get("stream", "destination", null));
        assertEquals(KEY, stream.get("stream", "api key", null));
        assertEquals("10", stream.get("stream", "timeout seconds", null));
        assertEquals("yes", stream.get("stream", "enable compression", null));
        assertFalse(stream.sections().contains(KEY), "a child accepts no children");
        assertFalse(stream.entry("stream", "ssl skip certificate verification").isPresent());
        Path sysinfo = base.resolve("plugins/system-info.sh");
        assertTrue(Files.isExecutable(sysinfo));
        assertTrue(Files.readString(sysinfo).contains("NETDATA_SYSTEM_KERNEL_NAME"));
        try (Stream<Path> plugins = Files.list(base.resolve("plugins"))) {
            assertTrue(plugins.anyMatch(Files::isSymbolicLink), "no links to the packaged plugins");
        }
    }

    @Test
    void aParentAcceptsTheKeyWithReplicationAndAForwardingParentAlsoSends() throws Exception {
        assumePluginsInstalled();
        Path parent = dir.resolve("parent");
        new NetdataAgentConfig(parent, "nd-parent", "127.0.0.1", 19998).accept(KEY, false).write();
        IniFile stream = read(parent.resolve("etc/stream.conf"));
        assertEquals("no", stream.get("stream", "enabled", null));
        assertEquals("yes", stream.get(KEY, "enabled", null));
        assertEquals("*", stream.get(KEY, "allow from", null));
        assertEquals("no", stream.get(KEY, "enable compression", null));
        assertEquals("yes", stream.get(KEY, "enable replication", null));

        Path forwarding = dir.resolve("forwarding");
        new NetdataAgentConfig(forwarding, "nd-fwd", "127.0.0.1", 19997).tiers(3)
                .sendTo(List.of("127.0.0.1:3"), KEY, 60, true, true).accept(KEY, true).write();
        stream = read(forwarding.resolve("etc/stream.conf"));
        assertEquals("yes", stream.get("stream", "enabled", null));
        assertEquals("yes", stream.get("stream", "ssl skip certificate verification", null));
        assertEquals("yes", stream.get(KEY, "enabled", null));
        assertEquals("3", read(forwarding.resolve("etc/netdata.conf")).get("db", "storage tiers", null));
    }
}
