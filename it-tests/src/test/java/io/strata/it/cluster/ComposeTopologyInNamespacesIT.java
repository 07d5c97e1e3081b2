package io.strata.it.cluster;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.opentest4j.AssertionFailedError;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * docker/compose.yaml's cluster without Docker: every service of the file is a node process in a
 * network namespace of its own, configured by docker/entrypoint.sh from the environment the file
 * gives that service, and reaching the others by the same service names (an /etc/hosts per
 * namespace, as Compose's DNS). The same checks as the Testcontainers test
 * ({@code io.strata.it.docker.ComposeClusterIT}): both parents hold all 3 children; parent-a is
 * killed with SIGKILL and the children's data keeps arriving at parent-b. Then more than that
 * test can see: the children move within seconds, parent-b holds every second the children
 * collected, and parent-a, started again, catches up from its peer.
 */
class ComposeTopologyInNamespacesIT {

    private static final List<String> PARENTS = List.of("parent-a", "parent-b");
    private static final List<String> CHILDREN = List.of("child-1", "child-2", "child-3");
    /** The port every container of the Compose file listens on. */
    private static final int PORT = 19999;
    /** Charts of the children's /proc collection compared second by second (a few: each query is a curl). */
    private static final List<String> COMPARED = List.of("system.uptime", "system.cpu", "system.load", "system.ram");
    /** How soon after the kill every child must stream to parent-b (Netdata reconnects after 1 s here). */
    private static final double FAILOVER_BOUND_SECONDS = 10;

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void composeClusterInNamespacesFailsOverAndTheKilledParentCatchesUp() throws Exception {
        String why = NetnsLab.unavailable();
        if (why == null && !Files.isExecutable(Path.of("/bin/sh"))) {
            why = "/bin/sh is missing: docker/entrypoint.sh cannot write the nodes' configuration";
        }
        if (why != null) {
            System.out.println("[ComposeTopologyInNamespacesIT] SKIPPED: " + why);
        }
        Assumptions.assumeTrue(why == null, why);

        Path root = repositoryRoot();
        ComposeFile compose = ComposeFile.read(root.resolve("docker/compose.yaml"));
        List<String> all = new ArrayList<>(PARENTS);
        all.addAll(CHILDREN);
        assertEquals(all, compose.services(), "docker/compose.yaml's services");
        Path tmp = ClusterLayout.runDirectory("ComposeTopologyInNamespacesIT");
        long began = System.nanoTime();
        try (NetnsLab lab = new NetnsLab()) {
            Map<String, String> namespaces = new LinkedHashMap<>();
            Map<String, String> addresses = new LinkedHashMap<>();
            for (String service : all) {
                // short namespace names: a veth name is at most 15 characters
                String ns = lab.host(service.startsWith("parent") ? "p" + service.charAt(7) : "c" + service.charAt(6));
                namespaces.put(service, ns);
                addresses.put(service, lab.address(ns));
            }
            String client = lab.host("q");
            lab.names(addresses);
            Map<String, NodeProcess> nodes = new LinkedHashMap<>();
            for (String service : all) {
                Path conf = configure(root, compose, service, tmp.resolve(service));
                nodes.put(service, new NodeProcess(service, conf, PORT)
                        .inNamespace(lab, namespaces.get(service), addresses.get(service), client));
            }
            NodeProcess a = nodes.get("parent-a");
            NodeProcess b = nodes.get("parent-b");
            List<NodeProcess> children = CHILDREN.stream().map(nodes::get).toList();
            try (a; b; NodeProcess c1 = children.get(0); NodeProcess c2 = children.get(1);
                 NodeProcess c3 = children.get(2)) {
                // Compose's depends_on: the parents first
                a.start();
                b.start();
                for (NodeProcess c : children) {
                    c.start();
                }
                for (NodeProcess p : List.of(a, b)) {
                    ClusterChecks.waitForHosts(p, CHILDREN, Duration.ofSeconds(90));
                }
                System.out.printf(Locale.ROOT, "[ComposeTopologyInNamespacesIT] both parents hold %s (%.0f s after the"
                        + " lab was made)%n", CHILDREN, (System.nanoTime() - began) / 1e9);
                long t0 = System.currentTimeMillis() / 1000 + 3;
                Thread.sleep(8_000);

                long newestBeforeKill = Long.MAX_VALUE;
                for (NodeProcess c : children) {
                    newestBeforeKill = Math.min(newestBeforeKill, newestUptimeSecond(b, c.name));
                }
                int[] logFrom = new int[children.size()];
                for (int i = 0; i < children.size(); i++) {
                    logFrom[i] = children.get(i).log().length();
                }
                long killed = System.nanoTime();
                a.kill9();
                List<String> failover = new ArrayList<>();
                for (int i = 0; i < children.size(); i++) {
                    NodeProcess c = children.get(i);
                    int at = c.waitForLog("[send to parent-b:" + PORT + "]: established link", logFrom[i],
                            Duration.ofSeconds(60));
                    assertTrue(at >= 0, c.name + " did not move to parent-b: " + c.tail(30));
                    double s = (System.nanoTime() - killed) / 1e9;
                    failover.add(String.format(Locale.ROOT, "%s %.1f s", c.name, s));
                    assertTrue(s <= FAILOVER_BOUND_SECONDS, c.name + " streamed to parent-b only " + s
                            + " s after the kill of parent-a");
                }
                System.out.println("[ComposeTopologyInNamespacesIT] children streaming to parent-b after the SIGKILL of"
                        + " parent-a: " + failover + " (upper bounds: the logs are polled every 50 ms)");

                // parent-a stays down a while, so that its catch-up below has more than a few seconds to fetch
                Thread.sleep(10_000);
                // as the Testcontainers test: what came through parent-a stopped with it, so seconds
                // newer than that on parent-b came from the children themselves
                long wanted = newestBeforeKill + 15;
                for (NodeProcess c : children) {
                    waitForSecond(b, c.name, wanted, Duration.ofMinutes(2));
                }
                long tb = System.currentTimeMillis() / 1000 - 3;
                int onB = 0;
                for (NodeProcess c : children) {
                    for (String chart : compared(c)) {
                        onB += waitUntilSame(c, b, c.name, chart, t0, tb, Duration.ofSeconds(60));
                    }
                }
                System.out.println("[ComposeTopologyInNamespacesIT] parent-b holds every second of (" + t0 + ", " + tb
                        + "] of the children: " + onB + " values compared, none missing, none different");

                a.start();
                long restarted = System.nanoTime();
                long t1 = System.currentTimeMillis() / 1000 - 3;
                int onA = 0;
                for (NodeProcess c : children) {
                    for (String chart : compared(c)) {
                        onA += waitUntilSame(c, a, c.name, chart, t0, t1, Duration.ofSeconds(90));
                    }
                }
                System.out.printf(Locale.ROOT, "[ComposeTopologyInNamespacesIT] parent-a, started again, caught up with"
                        + " (%d, %d] from parent-b in %.1f s: %d values compared, none missing, none different%n",
                        t0, t1, (System.nanoTime() - restarted) / 1e9, onA);
                ClusterChecks.waitForHosts(a, CHILDREN, Duration.ofSeconds(30));
                assertTrue(onB >= CHILDREN.size() * (tb - t0 - 5), "too few values compared on parent-b: " + onB);
                assertTrue(onA >= CHILDREN.size() * (t1 - t0 - 5), "too few values compared on parent-a: " + onA);
                System.out.printf(Locale.ROOT, "[ComposeTopologyInNamespacesIT] done in %.0f s%n",
                        (System.nanoTime() - began) / 1e9);
            }
        }
    }

    /**
     * Runs docker/entrypoint.sh with the service's environment from the Compose file (its defaults:
     * no variables set), its data under {@code data}, and returns the configuration it wrote.
     */
    private static Path configure(Path root, ComposeFile compose, String service, Path data) throws Exception {
        Files.createDirectories(data);
        ProcessBuilder pb = new ProcessBuilder("/bin/sh", root.resolve("docker/entrypoint.sh").toString())
                .redirectErrorStream(true);
        Map<String, String> env = pb.environment();
        // only what the container would have: nothing of the test's own STRATA_* variables
        env.keySet().removeIf(k -> k.startsWith("STRATA_"));
        env.putAll(compose.environment(service, Map.of()));
        env.put("STRATA_DATA", data.toString());
        env.put("STRATA_CONFIG_ONLY", "yes");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "docker/entrypoint.sh did not end");
        assertEquals(0, p.exitValue(), "docker/entrypoint.sh for " + service + ": " + out);
        Path conf = Path.of(out);
        assertTrue(Files.isRegularFile(conf.resolve("netdata.conf")) && Files.isRegularFile(conf.resolve("stream.conf")),
                "docker/entrypoint.sh wrote no configuration for " + service + " in " + out);
        return conf;
    }

    /** The charts of {@link #COMPARED} the child has (a container may lack one, e.g. no swap). */
    private static List<String> compared(NodeProcess child) throws Exception {
        List<String> has = ClusterApi.charts(child, child.name);
        List<String> out = COMPARED.stream().filter(has::contains).toList();
        assertTrue(out.contains("system.uptime"), child.name + " has no system.uptime: " + has);
        return out;
    }

    /**
     * Until {@code replica} holds the child's every second of (from, until] of {@code chart} that the
     * child itself holds (a second its /proc collection missed is missing at the source too); returns
     * the values compared.
     */
    private static int waitUntilSame(NodeProcess child, NodeProcess replica, String host, String chart, long from,
                                     long until, Duration timeout) throws Exception {
        double[][] truth = ClusterApi.perSecond(child, host, chart, from, until);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                return ClusterChecks.same(host + " " + chart + " on " + replica.name, truth,
                        ClusterApi.perSecond(replica, host, chart, from, until), true);
            } catch (AssertionFailedError | IOException e) {
                if (System.nanoTime() > deadline) {
                    fail(replica.name + " does not hold " + host + "'s " + chart + " of (" + from + ", " + until
                            + "]: " + e.getMessage() + "\n" + replica.tail(30));
                }
                Thread.sleep(1_000);
            }
        }
    }

    private static void waitForSecond(NodeProcess parent, String child, long second, Duration timeout)
            throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        long newest = -1;
        while (System.nanoTime() < deadline) {
            try {
                newest = newestUptimeSecond(parent, child);
                if (newest >= second) {
                    return;
                }
            } catch (IOException e) {
                // the child is moving over; ask again
            }
            Thread.sleep(500);
        }
        fail(parent + " has " + child + "'s system.uptime only up to " + newest + ", not " + second
                + ": the child did not fail over\n" + parent.tail(30));
    }

    /** The newest second of a child's system.uptime with a value on a parent, -1 when none. */
    private static long newestUptimeSecond(NodeProcess parent, String child) throws Exception {
        var rows = ClusterApi.get(parent, "/host/" + child + "/api/v1/data?chart=system.uptime&after=-60&points=60"
                + "&group=average&format=json&options=seconds").get("data");
        long newest = -1;
        for (var row : rows) {
            if (row.size() > 1 && !row.get(1).isNull()) {
                newest = Math.max(newest, row.get(0).asLong());
            }
        }
        return newest;
    }

    /** The repository root: failsafe runs in it-tests/. */
    private static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        for (Path p = dir; p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("docker/compose.yaml")) && Files.isRegularFile(p.resolve("mvnw"))) {
                return p;
            }
        }
        throw new IllegalStateException("no repository root (with docker/compose.yaml) above " + dir);
    }
}
