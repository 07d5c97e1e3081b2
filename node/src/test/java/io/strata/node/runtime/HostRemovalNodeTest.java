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
 * A parent node removes an obsolete child with {@code DELETE /api/v1/manage/host}: refused while the
 * child streams, done once it has left, and then the host's place under its API key
 * ({@code max hosts per api key = 1}) takes another host; a restart does not bring it back.
 */
class HostRemovalNodeTest {

    static final String KEY = "22222222-3333-4444-5555-6666666600aa";

    @TempDir
    Path tmp;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void aChildIsRemovedOnceItHasLeftAndItsPlaceUnderTheKeyIsFreed() throws Exception {
        Path pconf = Files.createDirectories(tmp.resolve("parent"));
        Files.writeString(pconf.resolve("netdata.conf"), "[global]\n\thostname = parent\n[db]\n\tstorage tiers = 1\n"
                + "[web]\n\tbind to = 127.0.0.1:0\n"
                + "[directories]\n\tcache = " + pconf.resolve("cache") + "\n\tlib = " + pconf.resolve("lib") + "\n");
        Files.writeString(pconf.resolve("stream.conf"), "[stream]\n\tenabled = no\n\n[" + KEY + "]\n\tenabled = yes\n"
                + "\tmax hosts per api key = 1\n");
        try (StrataNode parent = NodeRoles.start(NodeConfig.load(pconf), null)) {
            String base = "http://127.0.0.1:" + parent.listening().get(0).getPort();
            String streamConf = "[stream]\n\tenabled = yes\n\tdestination = 127.0.0.1:"
                    + parent.listening().get(0).getPort() + "\n\tapi key = " + KEY + "\n";
            try (GaugeApp first = child("first-app", streamConf)) {
                waitFor("first-app streams", () -> parent.receivers().connected() == 1
                        && mirrored(base).contains("\"first-app\""));
                HttpResponse<String> live = send("DELETE", base + "/api/v1/manage/host?host=first-app");
                assertEquals(409, live.statusCode());
                assertEquals("The host 'first-app' (" + first.child.machineGuid() + ") is streaming to this node now; it can"
                        + " be removed once its stream has ended.", live.body());
                assertTrue(mirrored(base).contains("\"first-app\""));
            }
            waitFor("the first child's stream ends", () -> parent.receivers().connected() == 0);

            HttpResponse<String> removed = send("DELETE", base + "/api/v1/manage/host?host=first-app");
            assertEquals(200, removed.statusCode(), removed.body());
            assertFalse(mirrored(base).contains("\"first-app\""));
            HttpResponse<String> unknown = send("GET", base + "/host/first-app/api/v1/info");
            assertEquals(404, unknown.statusCode());
            assertEquals("This netdata does not maintain a database for host: first-app", unknown.body());

            // the key allows one host: the removed one's place goes to a new one
            try (GaugeApp second = child("second-app", streamConf)) {
                waitFor("second-app streams in the removed host's place",
                        () -> parent.receivers().connected() == 1 && mirrored(base).contains("\"second-app\""));
            }
        }
        try (StrataNode parent = NodeRoles.start(NodeConfig.load(pconf), null)) {
            String base = "http://127.0.0.1:" + parent.listening().get(0).getPort();
            String hosts = mirrored(base);
            assertFalse(hosts.contains("\"first-app\""), hosts);
            assertTrue(hosts.contains("\"second-app\""), hosts);
        }
    }

    private GaugeApp child(String name, String streamConf) throws Exception {
        return GaugeApp.open(tmp, name, streamConf);
    }

    private String mirrored(String base) throws Exception {
        String info = send("GET", base + "/api/v1/info").body();
        int from = info.indexOf("\"mirrored_hosts\"");
        return info.substring(from, info.indexOf(']', from));
    }

    private HttpResponse<String> send(String method, String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
                .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
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
