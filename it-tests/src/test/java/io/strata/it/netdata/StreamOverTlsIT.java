package io.strata.it.netdata;

import io.strata.engine.meta.MetadataStore;
import io.strata.node.config.NodeConfig;
import io.strata.node.runtime.NodeRoles;
import io.strata.node.runtime.StrataNode;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Streams over TLS on the node's one port: the port sniffs the ClientHello, decrypts, then sniffs
 * {@code STREAM} again. A real Netdata 1.37.1 child with a {@code :SSL} destination, and a Strata
 * child the same way.
 */
class StreamOverTlsIT {

    @TempDir
    Path tmp;

    private String tlsLines() throws Exception {
        Path cert = tmp.resolve("cert.pem");
        Path key = tmp.resolve("key.pem");
        Process p;
        try {
            p = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout",
                    key.toString(), "-out", cert.toString(), "-days", "2", "-subj", "/CN=localhost")
                    .redirectErrorStream(true).redirectOutput(tmp.resolve("openssl.log").toFile()).start();
        } catch (java.io.IOException e) {
            System.out.println("SKIPPED: openssl is not installed; it makes the test's certificate");
            Assumptions.abort("openssl is not installed");
            return null;
        }
        assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, "openssl failed: "
                + Files.readString(tmp.resolve("openssl.log")));
        return "\tssl certificate = " + cert + "\n\tssl key = " + key + "\n";
    }

    @Test
    void realNetdataChildStreamsOverTls() throws Exception {
        RealNetdata.assumeInstalled();
        try (StrataTestParent parent = StrataTestParent.start(tmp.resolve("strata-parent"), true, tlsLines());
             RealNetdata child = RealNetdata.child(tmp.resolve("ndchild"), "ndchild-tls", RealNetdata.freePort(),
                     "127.0.0.1:" + parent.port() + ":SSL", true)) {
            child.start(Duration.ofSeconds(120));
            assertTrue(child.waitForLog("established link with negotiated capabilities", Duration.ofSeconds(40)),
                    "the child did not connect over TLS: " + child.errorLog());
            long deadline = System.nanoTime() + Duration.ofSeconds(40).toNanos();
            while (System.nanoTime() < deadline && parent.stats().samplesCollected.sum() < 2000) {
                Thread.sleep(250);
            }
            assertTrue(parent.stats().samplesCollected.sum() >= 2000, "samples over TLS: "
                    + parent.stats().samplesCollected.sum());
            assertEquals(0, parent.stats().protocolErrors.sum());
            MetadataStore meta = parent.engine().metadata();
            int host = meta.hostId(UUID.fromString(child.machineGuid()));
            assertTrue(host >= 0 && meta.charts(host).size() > 50, "charts of the TLS child");
        }
    }

    @Test
    void strataChildStreamsOverTls() throws Exception {
        try (StrataTestParent parent = StrataTestParent.start(tmp.resolve("strata-parent"), true, tlsLines())) {
            Path conf = tmp.resolve("strata-child");
            Files.createDirectories(conf);
            Files.writeString(conf.resolve("netdata.conf"), "[global]\n\thostname = strata-tls-child\n"
                    + "[web]\n\tbind to = 127.0.0.1:0\n"
                    + "[directories]\n\tcache = " + conf.resolve("cache") + "\n\tlib = " + conf.resolve("lib") + "\n"
                    + "[strata]\n\tsynthetic charts = 3\n[plugins]\n\tproc = no\n");
            Files.writeString(conf.resolve("stream.conf"), "[stream]\n\tenabled = yes\n"
                    + "\tdestination = 127.0.0.1:" + parent.port() + ":SSL\n"
                    + "\tapi key = " + RealNetdata.API_KEY + "\n"
                    + "\tssl skip certificate verification = yes\n");
            try (StrataNode child = NodeRoles.start(NodeConfig.load(conf), null)) {
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (System.nanoTime() < deadline && parent.stats().samplesCollected.sum() < 60) {
                    Thread.sleep(250);
                }
                assertTrue(parent.stats().samplesCollected.sum() >= 60, "samples over TLS: "
                        + parent.stats().samplesCollected.sum());
                MetadataStore meta = parent.engine().metadata();
                assertEquals(3, meta.charts(meta.hostId(child.machineGuid())).size());
            }
        }
    }
}
