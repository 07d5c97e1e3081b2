package io.strata.node.chaos;

import io.strata.node.netdata.NetdataAgentConfig;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Collections;

/**
 * The nodes of a chaos run and their configuration: parents that receive the API key and forward
 * every host to the other parents (an active-active cluster), Strata children with synthetic
 * charts, a JVM application streaming through the Micrometer registry ({@link MicrometerChaosChild}),
 * and a real Netdata 1.37.1 child when it is installed, each child listing the parents in a
 * different order.
 */
final class ChaosCluster {

    static final String API_KEY = "11111111-2222-3333-4444-555555555555";
    /** The parents' {@code [db] repair holes every seconds}. */
    static final int REPAIR_INTERVAL_SECONDS = 15;
    /** stream.conf {@code timeout seconds} of every sender: a silent partition ends a connection in this time. */
    static final int TIMEOUT_SECONDS = 10;
    static final int CHARTS = 8;
    static final int DIMENSIONS = 4;

    final List<ChaosNode> parents = new ArrayList<>();
    /** Strata node children first, then the Micrometer application, then the Netdata child if any. */
    final List<ChaosNode> children = new ArrayList<>();

    private ChaosCluster() {
    }

    static ChaosCluster build(ChaosOptions o, ChaosNetwork net, Path base) throws IOException {
        ChaosCluster c = new ChaosCluster();
        List<String> parentJava = javaCommand(o.parentHeap());
        List<String> childJava = javaCommand(o.childHeap());
        List<String[]> parentPlaces = new ArrayList<>();
        for (int p = 0; p < o.parents(); p++) {
            parentPlaces.add(net.place("p" + (p + 1)));
        }
        for (int p = 0; p < o.parents(); p++) {
            String[] at = parentPlaces.get(p);
            List<String> peers = new ArrayList<>();
            for (int q = 1; q < o.parents(); q++) {
                String[] peer = parentPlaces.get((p + q) % o.parents());
                peers.add(peer[1] + ":" + peer[2]);
            }
            String name = "chaos-parent-" + (p + 1);
            Path dir = base.resolve(name);
            writeParent(dir, name, at[1], Integer.parseInt(at[2]), peers);
            c.parents.add(new ChaosNode(name, ChaosNode.Kind.PARENT, dir, at[1], Integer.parseInt(at[2]), at[0],
                    parentJava, null));
        }
        boolean netdata = o.netdataChild() && NetdataAgentConfig.installed() && o.children() > 0;
        int strata = o.children() - (netdata ? 1 : 0);
        // the last child Strata runs is the Micrometer application, when a Strata node child remains
        int micrometer = strata >= 2 ? strata - 1 : -1;
        for (int i = 0; i < o.children(); i++) {
            boolean real = netdata && i == o.children() - 1;
            boolean app = i == micrometer;
            String[] at = net.place("c" + (i + 1));
            List<String> order = new ArrayList<>();
            for (int p : parentOrder(i, o.parents())) {
                order.add(parentPlaces.get(p)[1] + ":" + parentPlaces.get(p)[2]);
            }
            String name = real ? "chaos-netdata-child" : app ? "chaos-micrometer-child" : "chaos-child-" + (i + 1);
            Path dir = base.resolve(name);
            int port = Integer.parseInt(at[2]);
            if (real) {
                new NetdataAgentConfig(dir, name, at[1], port)
                        .sendTo(order, API_KEY, TIMEOUT_SECONDS, true, false)
                        // its side of every stream in its error.log: 1.37.1 stops logging after 200
                        // lines in 20 minutes, and its start and first reconnections write that many
                        .appendNetdataConf("[logs]\n\terrors flood protection period = 0\n")
                        .write();
            } else if (app) {
                Files.createDirectories(dir);
                Files.writeString(dir.resolve("stream.conf"), senderStreamConf(order));
            } else {
                writeChild(dir, name, at[1], port, order);
            }
            ChaosNode.Kind kind = real ? ChaosNode.Kind.NETDATA_CHILD : app ? ChaosNode.Kind.MICROMETER_CHILD
                    : ChaosNode.Kind.CHILD;
            c.children.add(new ChaosNode(name, kind, dir, at[1], port, at[0], childJava,
                    Duration.ofMinutes((long) Math.ceil(o.minutes()) + 60)));
        }
        assert strata == c.strataChildren().size();
        return c;
    }

    /** The children Strata runs, node children and the Micrometer application (the faults' targets). */
    List<ChaosNode> strataChildren() {
        return children.stream().filter(n -> n.kind != ChaosNode.Kind.NETDATA_CHILD).toList();
    }

    List<ChaosNode> all() {
        List<ChaosNode> all = new ArrayList<>(parents);
        all.addAll(children);
        return all;
    }

    /**
     * The parents in child {@code i}'s order: the permutations of the parents, one after the other
     * (with 3 parents, 6 children list them 6 different ways).
     */
    static List<Integer> parentOrder(int i, int parents) {
        List<Integer> left = new ArrayList<>();
        for (int p = 0; p < parents; p++) {
            left.add(p);
        }
        long k = i;
        List<Integer> order = new ArrayList<>();
        for (int n = parents; n > 0; n--) {
            order.add(left.remove((int) (k % n)));
            k /= n;
        }
        if ((i / factorial(parents)) % 2 == 1) {
            Collections.reverse(order);
        }
        return order;
    }

    private static long factorial(int n) {
        long f = 1;
        for (int i = 2; i <= n; i++) {
            f *= i;
        }
        return f;
    }

    private static void writeParent(Path dir, String name, String bind, int port, List<String> peers)
            throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("netdata.conf"), "[global]\n"
                + "\thostname = " + name + "\n"
                + "[db]\n\tmode = dbengine\n\tstorage tiers = 2\n"
                + "\tdbengine multihost disk space MB = 64\n"
                // the hole repair asks the peers every 15 s instead of 60: a run's quiet catch-up lasts minutes
                + "\trepair holes every seconds = " + REPAIR_INTERVAL_SECONDS + "\n"
                + "[web]\n\tbind to = " + bind + ":" + port + "\n"
                + "[directories]\n\tcache = " + dir.resolve("cache") + "\n\tlib = " + dir.resolve("lib") + "\n");
        Files.writeString(dir.resolve("stream.conf"), "[stream]\n\tenabled = no\n"
                + "\treconnect delay seconds = 1\n"
                + "\ttimeout seconds = " + TIMEOUT_SECONDS + "\n\n"
                + "[" + API_KEY + "]\n\tenabled = yes\n\tallow from = *\n"
                + (peers.isEmpty() ? "" : "\tdefault proxy enabled = yes\n\tdefault proxy destination = "
                + String.join(" ", peers) + "\n\tdefault proxy api key = " + API_KEY + "\n"));
    }

    private static void writeChild(Path dir, String name, String bind, int port, List<String> parents)
            throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("netdata.conf"), "[global]\n"
                + "\thostname = " + name + "\n"
                + "[db]\n\tmode = dbengine\n\tstorage tiers = 1\n"
                + "\tdbengine multihost disk space MB = 32\n"
                + "[web]\n\tbind to = " + bind + ":" + port + "\n"
                + "[directories]\n\tcache = " + dir.resolve("cache") + "\n\tlib = " + dir.resolve("lib") + "\n"
                + "[strata]\n\tsynthetic charts = " + CHARTS + "\n\tsynthetic dimensions per chart = " + DIMENSIONS
                + "\n[plugins]\n\tproc = no\n");
        Files.writeString(dir.resolve("stream.conf"), senderStreamConf(parents));
    }

    /** A child's stream.conf: the parents in its order. */
    private static String senderStreamConf(List<String> parents) {
        return "[stream]\n\tenabled = yes\n"
                + "\tdestination = " + String.join(" ", parents) + "\n"
                + "\tapi key = " + API_KEY + "\n"
                + "\treconnect delay seconds = 1\n"
                + "\ttimeout seconds = " + TIMEOUT_SECONDS + "\n";
    }

    /**
     * The JVM command line of a node: this JVM's java, the flags it was started with that the node
     * needs (the module flags Chronicle Bytes needs, {@code ./strata}'s -XX options), the heap, this
     * JVM's class path and StrataMain. Under {@code ./strata} that is {@code ./strata}'s own command
     * line; under a test JVM (no -XX options) the node gets a small serial-GC, C1-only JVM.
     */
    static List<String> javaCommand(String heap) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        boolean xx = false;
        for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (a.startsWith("--add-") || a.startsWith("--enable-native-access") || a.startsWith("-Dchronicle.")
                    || a.startsWith("--sun-misc-unsafe")) {
                cmd.add(a);
            } else if (a.startsWith("-XX:") && !a.contains("HeapDump") && !a.contains("ErrorFile")) {
                cmd.add(a);
                xx = true;
            }
        }
        if (!xx) {
            cmd.add("-XX:+UseSerialGC");
            cmd.add("-XX:TieredStopAtLevel=1");
        }
        cmd.add("-Xmx" + heap);
        // test only: a replay of a failing seed can run every node with another log configuration
        // (a receiver at DEBUG logs its replication requests; docs/chaos.md, "Diagnosing a run")
        if (System.getProperty("strata.chaos.logback") != null) {
            cmd.add("-Dlogback.configurationFile=" + System.getProperty("strata.chaos.logback"));
        }
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add("io.strata.node.cli.StrataMain");
        return cmd;
    }
}
