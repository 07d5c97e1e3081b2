package io.strata.node.runtime;

import io.strata.node.config.NodeConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@code max hosts per api key} counts the hosts a parent already holds from before its restart: the
 * key a host streamed with is kept in its stored metadata, so a restart does not reset the count. A
 * host the key already holds is still accepted after the restart; a new one over the limit is
 * refused; a host streaming with another key does not count against this one.
 */
class HostLimitAcrossRestartTest {

    static final String KEY = "33333333-4444-5555-6666-7777777700bb";
    static final String OTHER_KEY = "33333333-4444-5555-6666-7777777700cc";

    @TempDir
    Path tmp;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void aRestartedParentStillCountsTheHostsItHoldsUnderEachKey() throws Exception {
        Path pconf = Files.createDirectories(tmp.resolve("parent"));
        Files.writeString(pconf.resolve("netdata.conf"), "[global]\n\thostname = parent\n[db]\n\tstorage tiers = 1\n"
                + "[web]\n\tbind to = 127.0.0.1:0\n"
                + "[directories]\n\tcache = " + pconf.resolve("cache") + "\n\tlib = " + pconf.resolve("lib") + "\n");
        // the key is written in upper case here and in lower case by the children: one key
        Files.writeString(pconf.resolve("stream.conf"), "[stream]\n\tenabled = no\n\n[" + KEY.toUpperCase()
                + "]\n\tenabled = yes\n\tmax hosts per api key = 1\n\n[" + OTHER_KEY + "]\n\tenabled = yes\n"
                + "\tmax hosts per api key = 1\n");
        try (StrataNode parent = NodeRoles.start(NodeConfig.load(pconf), null)) {
            String base = "http://127.0.0.1:" + parent.listening().get(0).getPort();
            try (GaugeApp first = child("first-app", streamConf(parent, KEY))) {
                waitFor("first-app streams", () -> parent.receivers().connected() == 1
                        && mirrored(base).contains("\"first-app\""));
            }
            waitFor("the first child's stream ends", () -> parent.receivers().connected() == 0);
        }
        try (StrataNode parent = NodeRoles.start(NodeConfig.load(pconf), null)) {
            String base = "http://127.0.0.1:" + parent.listening().get(0).getPort();
            assertEquals(1, parent.authorizer().hostsOfKey(KEY), "hosts counted under the key at start");
            assertEquals(0, parent.authorizer().hostsOfKey(OTHER_KEY), "hosts counted under the other key at start");

            // a new machine GUID is over the key's limit of one: refused, the stored host stays
            try (GaugeApp second = child("second-app", streamConf(parent, KEY))) {
                waitFor("second-app's handshake is answered", () -> parent.stats().connectionsRefused.sum() > 0
                        || mirrored(base).contains("\"second-app\""));
                assertFalse(mirrored(base).contains("\"second-app\""), "a second host under a key limited to one");
                assertEquals(0, parent.receivers().connected());
            }
            // the host the key holds comes back (same directory: same machine GUID)
            try (GaugeApp first = child("first-app", streamConf(parent, KEY))) {
                waitFor("first-app streams again", () -> parent.receivers().connected() == 1);
            }
            waitFor("the first child's stream ends", () -> parent.receivers().connected() == 0);
            // the other key has its own count
            try (GaugeApp third = child("third-app", streamConf(parent, OTHER_KEY))) {
                waitFor("third-app streams under the other key", () -> parent.receivers().connected() == 1
                        && mirrored(base).contains("\"third-app\""));
            }
            assertTrue(mirrored(base).contains("\"first-app\""));
        }
    }

    private static String streamConf(StrataNode parent, String key) {
        return "[stream]\n\tenabled = yes\n\tdestination = 127.0.0.1:" + parent.listening().get(0).getPort()
                + "\n\tapi key = " + key + "\n";
    }

    private GaugeApp child(String name, String streamConf) throws Exception {
        return GaugeApp.open(tmp, name, streamConf);
    }

    private String mirrored(String base) throws Exception {
        String info = send(base + "/api/v1/info").body();
        int from = info.indexOf("\"mirrored_hosts\"");
        return info.substring(from, info.indexOf(']', from));
    }

    private HttpResponse<String> send(String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** A condition that may ask the server. */
    private interface Check {
        boolean holds() throws Exception;
    }

    private static void waitFor(String what, Check condition) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!condition.holds()) {
            if (System.nanoTime() > deadline) {
                fail("not within 30 s: " + what);
            }
            Thread.sleep(100);
        }
    }
}
