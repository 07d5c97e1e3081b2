package io.strata.node.demo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The demo cluster's four nodes on 127.0.0.1 and the {@code netdata.conf} / {@code stream.conf}
 * each one gets under the data directory: two parents forwarding to each other (an active-active
 * pair, Netdata's proxy keys) and two children streaming this machine's {@code /proc} charts to the
 * parents as a failover list.
 */
public final class DemoLayout {

    /** The first parent's port: Netdata's own, so that the dashboard is where a user expects it. */
    public static final int DEFAULT_BASE_PORT = 19999;
    /**
     * Port offsets from the base port of parent-a, parent-b, child-1, child-2. The base + 1 is
     * left out so that the default layout skips 20000, a port other software often holds.
     */
    static final int[] PORT_OFFSETS = {0, 2, 3, 4};
    /** The API key of the demo: it only ever travels over 127.0.0.1. */
    public static final String API_KEY = "5e4a7a00-de70-4c1a-9000-000000000001";

    public static final String PARENT_A = "demo-parent-a";
    public static final String PARENT_B = "demo-parent-b";
    public static final String CHILD_1 = "demo-child-1";
    public static final String CHILD_2 = "demo-child-2";

    /** One node of the layout: its hostname, whether it is a parent, its port and its directory. */
    public record Node(String name, boolean parent, int port, Path dir) {
        public Path netdataConf() {
            return dir.resolve("netdata.conf");
        }

        public Path streamConf() {
            return dir.resolve("stream.conf");
        }

        public String url() {
            return "http://127.0.0.1:" + port + "/";
        }
    }

    private final Path dataDir;
    private final List<Node> nodes;

    private DemoLayout(Path dataDir, int parentA, int parentB, int child1, int child2) {
        this.dataDir = dataDir;
        this.nodes = List.of(new Node(PARENT_A, true, parentA, dataDir.resolve(PARENT_A)),
                new Node(PARENT_B, true, parentB, dataDir.resolve(PARENT_B)),
                new Node(CHILD_1, false, child1, dataDir.resolve(CHILD_1)),
                new Node(CHILD_2, false, child2, dataDir.resolve(CHILD_2)));
    }

    /** The default ports from {@code basePort}: parents on base and base + 2, children on base + 3 and + 4. */
    public static DemoLayout fromBasePort(Path dataDir, int basePort) {
        int last = basePort + PORT_OFFSETS[PORT_OFFSETS.length - 1];
        if (basePort < 1 || last > 65535) {
            throw new IllegalArgumentException("base port " + basePort + " leaves no room for the ports "
                    + basePort + ".." + last + " of the four nodes (1..65535)");
        }
        return new DemoLayout(dataDir, basePort + PORT_OFFSETS[0], basePort + PORT_OFFSETS[1],
                basePort + PORT_OFFSETS[2], basePort + PORT_OFFSETS[3]);
    }

    /** Explicit ports (tests pick free ones). */
    public static DemoLayout withPorts(Path dataDir, int parentA, int parentB, int child1, int child2) {
        return new DemoLayout(dataDir, parentA, parentB, child1, child2);
    }

    public Path dataDir() {
        return dataDir;
    }

    /** parent-a, parent-b, child-1, child-2, in that order. */
    public List<Node> nodes() {
        return nodes;
    }

    public List<Node> parents() {
        return nodes.subList(0, 2);
    }

    public List<Node> children() {
        return nodes.subList(2, 4);
    }

    /**
     * Writes each node's configuration files that do not exist yet, and leaves existing ones alone
     * so that a user's edits survive the next start. Returns the files written.
     */
    public List<Path> writeMissingConfigs() throws IOException {
        List<Path> written = new ArrayList<>();
        Node a = nodes.get(0);
        Node b = nodes.get(1);
        for (Node n : nodes) {
            Files.createDirectories(n.dir());
            String netdata = n.parent() ? parentNetdataConf(n) : childNetdataConf(n);
            String stream = n.parent() ? parentStreamConf(n == a ? b : a) : childStreamConf(a, b);
            if (writeIfAbsent(n.netdataConf(), netdata)) {
                written.add(n.netdataConf());
            }
            if (writeIfAbsent(n.streamConf(), stream)) {
                written.add(n.streamConf());
            }
        }
        return written;
    }

    private static boolean writeIfAbsent(Path file, String text) throws IOException {
        if (Files.exists(file)) {
            return false;
        }
        Files.writeString(file, text);
        return true;
    }

    private static String parentNetdataConf(Node n) {
        return "# Written by ./strata demo (a parent of the demo cluster). Edit freely: the demo only\n"
                + "# writes this file when it is missing. Data lives in cache/dbengine next to it.\n"
                + "[global]\n"
                + "\thostname = " + n.name() + "\n"
                + "[db]\n"
                + "\tmode = dbengine\n"
                + "\tstorage tiers = 2\n"
                + "\tdbengine multihost disk space MB = 128\n"
                + "\tdbengine tier 1 multihost disk space MB = 32\n"
                + "[web]\n"
                + "\tbind to = 127.0.0.1:" + n.port() + "\n";
    }

    private static String childNetdataConf(Node n) {
        return "# Written by ./strata demo (a child of the demo cluster: it collects this machine from\n"
                + "# /proc every second and streams it to the parents). Edit freely: the demo only writes\n"
                + "# this file when it is missing.\n"
                + "[global]\n"
                + "\thostname = " + n.name() + "\n"
                + "[db]\n"
                + "\tmode = dbengine\n"
                + "\tstorage tiers = 1\n"
                + "\tdbengine multihost disk space MB = 32\n"
                + "[web]\n"
                + "\tbind to = 127.0.0.1:" + n.port() + "\n"
                + "[plugins]\n"
                + "\tproc = yes\n";
    }

    private static String parentStreamConf(Node peer) {
        return "# The parent receives the demo's API key and forwards every host it receives to its peer,\n"
                + "# which forwards back: both parents hold every child (an active-active pair).\n"
                + "[stream]\n"
                + "\tenabled = no\n"
                + "\treconnect delay seconds = 1\n"
                + "\n"
                + "[" + API_KEY + "]\n"
                + "\tenabled = yes\n"
                + "\tallow from = *\n"
                + "\tdefault proxy enabled = yes\n"
                + "\tdefault proxy destination = 127.0.0.1:" + peer.port() + "\n"
                + "\tdefault proxy api key = " + API_KEY + "\n";
    }

    private static String childStreamConf(Node a, Node b) {
        return "# The child streams to the first parent that answers, in this order (a failover list).\n"
                + "[stream]\n"
                + "\tenabled = yes\n"
                + "\tdestination = 127.0.0.1:" + a.port() + " 127.0.0.1:" + b.port() + "\n"
                + "\tapi key = " + API_KEY + "\n"
                + "\treconnect delay seconds = 1\n";
    }
}
