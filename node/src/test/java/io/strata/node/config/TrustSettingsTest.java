package io.strata.node.config;

import io.strata.streaming.server.TlsContexts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** stream.conf's CAfile and CApath: used, or refused at start; never a quiet fall back. */
class TrustSettingsTest {

    @TempDir
    Path dir;

    NodeConfig load(String streamConf) throws Exception {
        Files.writeString(dir.resolve("netdata.conf"), "[web]\nbind to = 127.0.0.1:0\n");
        Files.writeString(dir.resolve("stream.conf"), streamConf);
        return NodeConfig.load(dir);
    }

    @Test
    void aCaFileThatCannotBeReadStopsTheStartNamingItsLine() {
        NodeConfig.ConfigException e = assertThrows(NodeConfig.ConfigException.class, () -> load(
                "[stream]\nenabled = yes\ndestination = 127.0.0.1:1:SSL\napi key = 11111111-2222-3333-4444-555555555555\n"
                        + "CAfile = " + dir.resolve("no-such-ca.pem") + "\n"));
        assertTrue(e.getMessage().contains("stream.conf:5: [stream] CAfile = "), e.getMessage());
        assertTrue(e.getMessage().endsWith("cannot be read"), e.getMessage());
    }

    @Test
    void aCaPathIsRefusedRatherThanIgnored() {
        NodeConfig.ConfigException e = assertThrows(NodeConfig.ConfigException.class,
                () -> load("[stream]\nCApath = " + dir + "\n"));
        assertTrue(e.getMessage().contains("stream.conf:2: [stream] CApath = "), e.getMessage());
        assertTrue(e.getMessage().contains("set CAfile"), e.getMessage());
    }

    @Test
    void netdatasDefaultsAreAccepted() throws Exception {
        load("[stream]\nCAfile = /etc/ssl/certs/certs.pem\nCApath = /etc/ssl/certs/\n");
        load("");
    }

    @Test
    void theClientContextRefusesAnUnreadableOrEmptyCaFile() throws Exception {
        IOException missing = assertThrows(IOException.class,
                () -> TlsContexts.client(false, dir.resolve("missing.pem").toString()));
        assertTrue(missing.getMessage().contains("cannot be read (no such file)"), missing.getMessage());
        Path empty = Files.writeString(dir.resolve("empty.pem"), "not a certificate\n");
        IOException bad = assertThrows(IOException.class, () -> TlsContexts.client(false, empty.toString()));
        assertTrue(bad.getMessage().contains("from CAfile " + empty), bad.getMessage());
        // skipping verification needs no CA at all
        TlsContexts.client(true, dir.resolve("missing.pem").toString());
    }
}
