package io.strata.it.cluster;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** netdata.conf and stream.conf of the nodes of a test cluster (on 127.0.0.1, or in network namespaces). */
final class ClusterLayout {

    static final String API_KEY = "11111111-2222-3333-4444-555555555555";

    private ClusterLayout() {
    }

    /** A fresh directory under the module's target/ for one run of a test. */
    static Path runDirectory(String test) throws IOException {
        Path dir = Path.of("target", "cluster-runs", test + "-" + System.currentTimeMillis()).toAbsolutePath();
        Files.createDirectories(dir);
        return dir;
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /**
     * A parent that receives {@link #API_KEY} and forwards every host it receives to {@code peers}
     * (Netdata's proxy keys): an active-active cluster when the peers forward back.
     */
    static NodeProcess parent(Path base, String name, int port, List<Integer> peers) throws IOException {
        return parent(base, name, "127.0.0.1", port, peers.stream().map(p -> "127.0.0.1:" + p).toList(), 0);
    }

    /**
     * A parent bound to {@code bind}:{@code port} forwarding to {@code peers} ({@code host:port});
     * {@code timeoutSeconds} > 0 sets stream.conf's {@code timeout seconds} of its forwarding.
     */
    static NodeProcess parent(Path base, String name, String bind, int port, List<String> peers, int timeoutSeconds)
            throws IOException {
        return parent(base, name, bind, port, peers, timeoutSeconds, "\tdbengine multihost disk space MB = 64\n");
    }

    /**
     * A parent on 127.0.0.1 forwarding to {@code peers}, with {@code db} (lines of netdata.conf's
     * {@code [db]}, e.g. its disk space and {@code seconds to replicate}) in place of the 64 MiB default.
     */
    static NodeProcess parent(Path base, String name, int port, List<Integer> peers, String db) throws IOException {
        return parent(base, name, "127.0.0.1", port, peers.stream().map(p -> "127.0.0.1:" + p).toList(), 0, db);
    }

    private static NodeProcess parent(Path base, String name, String bind, int port, List<String> peers,
                                      int timeoutSeconds, String db) throws IOException {
        Path dir = base.resolve(name);
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("netdata.conf"), "[global]\n"
                + "\thostname = " + name + "\n"
                + "[db]\n\tmode = dbengine\n\tstorage tiers = 2\n"
                + db
                + "[web]\n\tbind to = " + bind + ":" + port + "\n"
                + "[directories]\n\tcache = " + dir.resolve("cache") + "\n\tlib = " + dir.resolve("lib") + "\n");
        String destination = String.join(" ", peers);
        Files.writeString(dir.resolve("stream.conf"), "[stream]\n\tenabled = no\n"
                + "\treconnect delay seconds = 1\n"
                + (timeoutSeconds > 0 ? "\ttimeout seconds = " + timeoutSeconds + "\n" : "") + "\n"
                + "[" + API_KEY + "]\n\tenabled = yes\n\tallow from = *\n"
                + (peers.isEmpty() ? "" : "\tdefault proxy enabled = yes\n\tdefault proxy destination = " + destination
                + "\n\tdefault proxy api key = " + API_KEY + "\n"));
        return new NodeProcess(name, dir, port);
    }

    /** A child with synthetic charts streaming to {@code parents} (a failover list, in order). */
    static NodeProcess child(Path base, String name, int port, List<Integer> parents, int charts, int dimensions)
            throws IOException {
        return child(base, name, "127.0.0.1", port, parents.stream().map(p -> "127.0.0.1:" + p).toList(), charts,
                dimensions, 0);
    }

    /** A child bound to {@code bind}:{@code port} streaming to {@code parents} ({@code host:port}, in order). */
    static NodeProcess child(Path base, String name, String bind, int port, List<String> parents, int charts,
                             int dimensions, int timeoutSeconds) throws IOException {
        Path dir = base.resolve(name);
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("netdata.conf"), "[global]\n"
                + "\thostname = " + name + "\n"
                + "[db]\n\tmode = dbengine\n\tstorage tiers = 1\n"
                + "\tdbengine multihost disk space MB = 32\n"
                + "[web]\n\tbind to = " + bind + ":" + port + "\n"
                + "[directories]\n\tcache = " + dir.resolve("cache") + "\n\tlib = " + dir.resolve("lib") + "\n"
                + "[strata]\n\tsynthetic charts = " + charts + "\n\tsynthetic dimensions per chart = " + dimensions
                + "\n[plugins]\n\tproc = no\n");
        Files.writeString(dir.resolve("stream.conf"), "[stream]\n\tenabled = yes\n"
                + "\tdestination = " + String.join(" ", parents) + "\n"
                + "\tapi key = " + API_KEY + "\n"
                + "\treconnect delay seconds = 1\n"
                + (timeoutSeconds > 0 ? "\ttimeout seconds = " + timeoutSeconds + "\n" : ""));
        return new NodeProcess(name, dir, port);
    }
}
