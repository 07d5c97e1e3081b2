package io.strata.node.config;

import io.strata.streaming.server.Listener;
import io.strata.streaming.server.TlsMode;
import io.strata.streaming.server.WebPermission;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WebSettingsTest {

    @TempDir
    Path dir;

    NodeConfig load(String netdataConf) throws Exception {
        Files.writeString(dir.resolve("netdata.conf"), netdataConf);
        return NodeConfig.load(dir);
    }

    @Test
    void bindToModesAndSslOptionsAreRead() throws Exception {
        List<Listener> l = WebSettings.parseBindTo("127.0.0.1:19991=dashboard|registry^SSL=optional "
                + "[::1]:19992=streaming^SSL=force, tcp:127.0.0.1:19993 127.0.0.1=netdata.conf|MANAGEMENT|badges",
                "netdata.conf:3");
        assertEquals(4, l.size());
        assertEquals(EnumSet.of(WebPermission.DASHBOARD, WebPermission.REGISTRY), EnumSet.copyOf(l.get(0).modes()));
        assertEquals(TlsMode.OPTIONAL, l.get(0).tls());
        assertEquals(19992, l.get(1).address().getPort());
        assertEquals(EnumSet.of(WebPermission.STREAMING), EnumSet.copyOf(l.get(1).modes()));
        assertEquals(TlsMode.FORCE, l.get(1).tls());
        assertEquals(WebPermission.all(), EnumSet.copyOf(l.get(2).modes()));
        assertEquals(TlsMode.DEFAULT, l.get(2).tls());
        assertEquals(19999, l.get(3).address().getPort());
        assertEquals(EnumSet.of(WebPermission.NETDATA_CONF, WebPermission.MANAGEMENT, WebPermission.BADGES),
                EnumSet.copyOf(l.get(3).modes()));
    }

    @Test
    void aMalformedBindToIsAConfigurationErrorNamingTheLine() {
        for (String bad : new String[]{"[::1", "[::1]x", "127.0.0.1:http", "127.0.0.1=dashbaord",
                "127.0.0.1^SSL=maybe", "unix:/run/netdata.sock", "::1:19999", "[]:19999"}) {
            NodeConfig.ConfigException e = assertThrows(NodeConfig.ConfigException.class,
                    () -> load("[global]\nhostname = h\n[web]\n\tbind to = " + bad + "\n"), bad);
            assertTrue(e.getMessage().startsWith(dir.resolve("netdata.conf") + ":4: [web] bind to = " + bad),
                    e.getMessage());
        }
    }

    @Test
    void forcingTlsWithoutACertificateIsRefused() {
        NodeConfig.ConfigException e = assertThrows(NodeConfig.ConfigException.class,
                () -> load("[web]\nbind to = 127.0.0.1:0^SSL=force\n"));
        assertTrue(e.getMessage().contains("^SSL=force but no [web] ssl certificate"), e.getMessage());
    }

    @Test
    void timeoutsCapsAndPatternsAreReadAndNotWarnedAbout() throws Exception {
        NodeConfig c = load("[web]\nbind to = 127.0.0.1:0\ntimeout for first request = 3\n"
                + "disconnect idle clients after seconds = 7\nweb server max sockets = 100\n"
                + "max connections per client address = 9\nmax handshakes in progress = 11\n"
                + "max handshakes in progress per client address = 5\nallow connections from = 10.* 127.*\n"
                + "allow dashboard from = *\nallow streaming from = 10.*\nallow netdata.conf from = localhost\n"
                + "allow management from = localhost\nallow badges from = *\nenable gzip compression = no\n"
                + "allow connections by dns = heuristic\nquery timeout ms = 2500\nmax points read per query = 1000\n"
                + "[registry]\nallow from = *\n");
        WebSettings w = c.web();
        assertEquals(3, w.limits().firstRequestTimeoutSeconds());
        assertEquals(7, w.idleTimeoutSeconds());
        assertEquals(100, w.limits().maxConnections());
        assertEquals(9, w.limits().maxConnectionsPerAddress());
        assertEquals(11, w.limits().maxHandshakes());
        assertEquals(5, w.limits().maxHandshakesPerAddress());
        assertFalse(w.gzip());
        assertEquals(2500, w.queryLimits().timeoutMillis());
        assertEquals(1000, w.queryLimits().maxPointsRead());
        assertTrue(w.access().connectionAllowed(java.net.InetAddress.getByName("127.0.0.1")));
        assertFalse(w.access().connectionAllowed(java.net.InetAddress.getByName("192.168.1.1")));
        assertEquals(List.of(), c.warnings().stream().filter(s -> s.contains("netdata.conf")).toList());
    }

    @Test
    void aHostNameInAnAllowPatternIsRefusedUnlessNamesAreOff() throws Exception {
        NodeConfig.ConfigException e = assertThrows(NodeConfig.ConfigException.class,
                () -> load("[web]\nbind to = 127.0.0.1:0\nallow dashboard from = box.example 10.*\n"));
        assertTrue(e.getMessage().contains("'box.example' is a host name"), e.getMessage());
        assertTrue(e.getMessage().startsWith(dir.resolve("netdata.conf") + ":3:"), e.getMessage());
        load("[web]\nbind to = 127.0.0.1:0\nallow dashboard from = box.example 10.*\nallow connections by dns = no\n");
    }

    @Test
    void outOfRangeNumbersAreErrors() {
        assertThrows(NodeConfig.ConfigException.class,
                () -> load("[web]\nbind to = 127.0.0.1:0\ntimeout for first request = 0\n"));
        assertThrows(NodeConfig.ConfigException.class,
                () -> load("[web]\nbind to = 127.0.0.1:0\nmax connections per client address = many\n"));
    }
}
