package io.strata.node.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.strata.engine.io.FileChannelIo;
import io.strata.engine.verify.DbVerifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The demo cluster in this JVM on free ports: the children's /proc charts reach both parents
 * (one directly, the other through the first parent's forwarding), and after close every engine
 * left its files intact.
 */
class DemoClusterTest {

    /** Dropped after the class: before Java 21 a client cannot be closed; its selector goes with it. */
    private static HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @AfterAll
    static void dropClient() {
        HTTP = null;
    }
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    // a guard against a hang, beyond the waits' budget of 150 s, the start and the close
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void bothParentsHoldBothChildrenAndTheClusterStopsCleanly(@TempDir Path tmp) throws Exception {
        int[] ports = distinctFreePorts(4);
        DemoLayout layout = DemoLayout.withPorts(tmp.resolve("data"), ports[0], ports[1], ports[2], ports[3]);
        List<Path> written = layout.writeMissingConfigs();
        assertEquals(8, written.size(), "netdata.conf and stream.conf for each of the four nodes: " + written);

        try (DemoCluster cluster = DemoCluster.start(layout)) {
            // one budget for every wait below, well inside the test's timeout: the close after
            // them must not be cut short by it
            long deadline = System.nanoTime() + Duration.ofSeconds(150).toNanos();
            for (DemoLayout.Node p : layout.parents()) {
                waitForMirroredHosts(cluster.url(p.name()), List.of(DemoLayout.CHILD_1, DemoLayout.CHILD_2),
                        deadline);
            }
            // the charts are the proc collector's, on the parent that received the child only through its peer too
            // (a host is listed from its handshake on; its charts follow it, a moment later on a busy machine)
            for (DemoLayout.Node p : layout.parents()) {
                for (DemoLayout.Node c : layout.children()) {
                    String url = cluster.url(p.name()) + "host/" + c.name() + "/api/v1/charts";
                    JsonNode charts = get(url).get("charts");
                    while (!charts.has("system.cpu") && System.nanoTime() < deadline) {
                        Thread.sleep(250);
                        charts = get(url).get("charts");
                    }
                    assertTrue(charts.has("system.cpu"), p.name() + " has no system.cpu of " + c.name() + ": "
                            + fieldNames(charts));
                }
            }
            assertTrue(cluster.awaitChildrenOnBothParents(Duration.ofNanos(Math.max(0, deadline - System.nanoTime()))));
        }

        for (DemoLayout.Node n : layout.nodes()) {
            Path db = n.dir().resolve("cache").resolve("dbengine");
            DbVerifier.Result r = DbVerifier.verify(FileChannelIo.INSTANCE, db);
            assertTrue(r.intact(), n.name() + " left a damaged database: " + r.errors());
            if (n.parent()) {
                assertTrue(r.hosts() >= 2, n.name() + " stored " + r.hosts() + " hosts, expected both children");
                assertTrue(r.charts() > 0, n.name() + " stored no charts");
            }
        }
    }

    @Test
    void existingConfigurationIsKeptAndAPortInUseIsNamed(@TempDir Path tmp) throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int busy = taken.getLocalPort();
            int[] free = distinctFreePorts(3);
            DemoLayout layout = DemoLayout.withPorts(tmp, free[0], busy, free[1], free[2]);
            Path edited = layout.nodes().get(0).netdataConf();
            Files.createDirectories(edited.getParent());
            String mine = "[global]\n\thostname = " + DemoLayout.PARENT_A + "\n[web]\n\tbind to = 127.0.0.1:"
                    + layout.nodes().get(0).port() + "\n# my edit\n";
            Files.writeString(edited, mine);

            List<Path> written = layout.writeMissingConfigs();
            assertEquals(7, written.size());
            assertEquals(mine, Files.readString(edited));

            DemoCluster.DemoException e = null;
            try (DemoCluster c = DemoCluster.start(layout)) {
                fail("started although port " + busy + " is taken");
            } catch (DemoCluster.DemoException ex) {
                e = ex;
            }
            assertTrue(e.getMessage().contains("port " + busy + " (" + DemoLayout.PARENT_B + ") is in use"),
                    e.getMessage());
            assertTrue(e.getMessage().contains("--base-port"), e.getMessage());
            // nothing was started, so nothing holds the other ports
            for (DemoLayout.Node n : layout.nodes()) {
                if (n.port() != busy) {
                    try (ServerSocket s = new ServerSocket(n.port(), 1, InetAddress.getLoopbackAddress())) {
                        assertEquals(n.port(), s.getLocalPort());
                    }
                }
            }
        }
    }

    @Test
    void basePortLaysOutTheDefaultPortsAndRefusesOnesThatDoNotFit() {
        DemoLayout d = DemoLayout.fromBasePort(Path.of("data"), DemoLayout.DEFAULT_BASE_PORT);
        List<Integer> ports = new ArrayList<>();
        d.nodes().forEach(n -> ports.add(n.port()));
        assertEquals(List.of(19999, 20001, 20002, 20003), ports);
        assertEquals(Path.of("data", DemoLayout.CHILD_2), d.nodes().get(3).dir());
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> DemoLayout.fromBasePort(Path.of("data"), 65533));
        assertTrue(e.getMessage().contains("65533..65537"), e.getMessage());
    }

    private static void waitForMirroredHosts(String url, List<String> hosts, long deadline) throws Exception {
        List<String> seen = List.of();
        while (System.nanoTime() < deadline) {
            try {
                List<String> now = new ArrayList<>();
                get(url + "api/v1/info").get("mirrored_hosts").forEach(h -> now.add(h.asText()));
                seen = now;
                if (now.containsAll(hosts)) {
                    return;
                }
            } catch (IOException e) {
                seen = List.of(e.toString());
            }
            Thread.sleep(250);
        }
        fail(url + " does not list " + hosts + " in mirrored_hosts: " + seen);
    }

    private static JsonNode get(String url) throws IOException, InterruptedException {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20))
                .build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException(url + " answered " + r.statusCode() + ": " + r.body());
        }
        return JSON.readTree(r.body());
    }

    private static List<String> fieldNames(JsonNode o) {
        List<String> out = new ArrayList<>();
        o.fieldNames().forEachRemaining(out::add);
        return out;
    }

    /**
     * Ports free now, all different: the kernel may hand out a port just released again, and the
     * demo's configuration must name its ports before the nodes bind them.
     */
    private static int[] distinctFreePorts(int n) throws IOException {
        int[] out = new int[n];
        List<Integer> seen = new ArrayList<>();
        for (int i = 0; i < n; ) {
            int p = freePort();
            if (!seen.contains(p)) {
                seen.add(p);
                out[i++] = p;
            }
        }
        return out;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
