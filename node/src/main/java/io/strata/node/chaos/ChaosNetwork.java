package io.strata.node.chaos;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.slf4j.LoggerFactory;
import org.slf4j.Logger;

/**
 * Where the chaos cluster's nodes live. On 127.0.0.1 (each node its own port) when this machine
 * cannot make network namespaces; else every node in a network namespace of its own, all on a
 * bridge in a "switch" namespace, addresses in a /24 of 10.231.0.0/16, for which the root
 * namespace gets a blackhole route before anything else (no packet of the run can leave the
 * machine). The runner reaches the nodes through one more port of the switch whose other end is in
 * the root namespace (the /24's first address): the only route into the lab, more specific than the
 * blackhole. Namespace and interface names start with {@code chaos} and three random characters.
 *
 * <p>Several runs on one machine (engineers sharing it) each take names and a subnet of their own
 * with the test-only system properties {@code strata.chaos.netnsPrefix} (e.g. {@code rf}: names
 * {@code rfsw}, {@code rfp1}, ...) and {@code strata.chaos.subnet} (a /24, e.g. {@code 10.233.0.0/24}):
 * the blackhole route is then for that /24, and the lab is its lower /25 (more specific than the
 * blackhole, as the default /24 is more specific than the default /16).
 *
 * <p>Partitions: a node's switch port taken down (a silent partition from everyone, the runner
 * included), or iptables DROP rules inside the node's own namespace against chosen addresses (a
 * partition from its peers, or from some children), removed to heal.
 */
final class ChaosNetwork implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ChaosNetwork.class);

    static final String SUBNET = "10.231.0.0/16";
    static final String PREFIX_PROPERTY = "strata.chaos.netnsPrefix";
    static final String SUBNET_PROPERTY = "strata.chaos.subnet";
    /** The port every node uses inside its namespace. */
    static final int NAMESPACE_PORT = 19999;

    private final boolean namespaces;
    private final String why;
    private final String prefix;
    /** The route that keeps every packet of the run on this machine. */
    private final String blackhole;
    /** The lab's first three octets with a trailing dot, and its mask length. */
    private final String lab;
    private final int labMask;
    private final String sw;
    private final List<String> created = new ArrayList<>();
    private boolean addedBlackhole;
    private int nextHost = 10;

    private ChaosNetwork(boolean namespaces, String why) throws IOException {
        this.namespaces = namespaces;
        this.why = why;
        SplittableRandom r = new SplittableRandom();
        String givenPrefix = System.getProperty(PREFIX_PROPERTY);
        this.prefix = givenPrefix != null ? givenPrefix
                : "chaos" + Integer.toString(36 * 36 + r.nextInt(36 * 36 * 35), 36);
        String givenSubnet = System.getProperty(SUBNET_PROPERTY);
        if (givenSubnet != null) {
            if (!givenSubnet.matches("(\\d{1,3}\\.){3}0/24")) {
                throw new IllegalArgumentException(SUBNET_PROPERTY + " must be a /24 such as 10.233.0.0/24, got "
                        + givenSubnet);
            }
            this.blackhole = givenSubnet;
            this.lab = givenSubnet.substring(0, givenSubnet.length() - "0/24".length());
            this.labMask = 25;
        } else {
            this.blackhole = SUBNET;
            this.lab = "10.231." + (1 + r.nextInt(250)) + ".";
            this.labMask = 24;
        }
        this.sw = prefix + "sw";
        if (!namespaces) {
            return;
        }
        try {
            if (!Cmd.run("ip", "route", "show", blackhole).contains("blackhole")) {
                Cmd.run("ip", "route", "add", "blackhole", blackhole);
                addedBlackhole = true;
            }
            Cmd.run("ip", "netns", "add", sw);
            created.add(sw);
            Cmd.run("ip", "-n", sw, "link", "set", "lo", "up");
            Cmd.run("ip", "-n", sw, "link", "add", "br0", "type", "bridge");
            Cmd.run("ip", "-n", sw, "link", "set", "br0", "up");
            // the runner's way in: <prefix>g in the root namespace, <prefix>gb on the bridge
            Cmd.run("ip", "link", "add", prefix + "g", "type", "veth", "peer", "name", prefix + "gb");
            Cmd.run("ip", "link", "set", prefix + "gb", "netns", sw);
            Cmd.run("ip", "-n", sw, "link", "set", prefix + "gb", "master", "br0", "up");
            Cmd.run("ip", "addr", "add", lab + "1/" + labMask, "dev", prefix + "g");
            Cmd.run("ip", "link", "set", prefix + "g", "up");
        } catch (IOException e) {
            close();
            throw e;
        }
    }

    /** Namespaces when this machine can make them, else 127.0.0.1 (the reason in {@link #partitionsUnavailable}). */
    static ChaosNetwork create(boolean allowNamespaces) throws IOException {
        String reason = allowNamespaces ? namespacesUnavailable() : "network namespaces turned off (--no-netns)";
        return new ChaosNetwork(reason == null, reason);
    }

    /** Why this machine cannot run the nodes in network namespaces, or null when it can. */
    static String namespacesUnavailable() {
        if (!"root".equals(System.getProperty("user.name"))) {
            return "network namespaces need root (running as " + System.getProperty("user.name") + ")";
        }
        for (String tool : new String[]{"ip", "iptables"}) {
            if (!Files.isExecutable(Path.of("/usr/sbin", tool)) && !Files.isExecutable(Path.of("/sbin", tool))) {
                return tool + " is not installed (apt-get install -y iproute2 iptables)";
            }
        }
        String probe = System.getProperty(PREFIX_PROPERTY, "chaos") + "probe" + ProcessHandle.current().pid() % 10000;
        try {
            Cmd.run("ip", "netns", "add", probe);
            try {
                Cmd.run("ip", "netns", "exec", probe, "iptables", "-w", "-S");
            } finally {
                Cmd.run("ip", "netns", "del", probe);
            }
        } catch (IOException e) {
            return "cannot create a network namespace with iptables in it: " + e.getMessage();
        }
        return null;
    }

    /** The route that keeps the run's packets on this machine (for the report). */
    String blackhole() {
        return blackhole;
    }

    boolean namespaces() {
        return namespaces;
    }

    /** Why partitions are skipped, or null when they run. */
    String partitionsUnavailable() {
        return namespaces ? null : why;
    }

    /** Where a new node lives: {namespace or null, address, port}. */
    String[] place(String shortName) throws IOException {
        if (!namespaces) {
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                return new String[]{null, "127.0.0.1", String.valueOf(s.getLocalPort())};
            }
        }
        String ns = prefix + shortName;
        int h = nextHost++;
        Cmd.run("ip", "netns", "add", ns);
        created.add(ns);
        Cmd.run("ip", "link", "add", ns + "e", "type", "veth", "peer", "name", ns + "b");
        Cmd.run("ip", "link", "set", ns + "e", "netns", ns);
        Cmd.run("ip", "link", "set", ns + "b", "netns", sw);
        Cmd.run("ip", "-n", sw, "link", "set", ns + "b", "master", "br0", "up");
        String address = lab + h;
        Cmd.run("ip", "-n", ns, "addr", "add", address + "/" + labMask, "dev", ns + "e");
        Cmd.run("ip", "-n", ns, "link", "set", ns + "e", "up");
        Cmd.run("ip", "-n", ns, "link", "set", "lo", "up");
        return new String[]{ns, address, String.valueOf(NAMESPACE_PORT)};
    }

    /** A silent partition of the node from everyone: its switch port goes down. */
    void cutAll(ChaosNode node) throws IOException {
        Cmd.run("ip", "-n", sw, "link", "set", node.namespace + "b", "down");
    }

    /** Packets between the node and each of {@code others} vanish (rules in the node's namespace). */
    void cutFrom(ChaosNode node, List<ChaosNode> others) throws IOException {
        for (ChaosNode o : others) {
            Cmd.run("ip", "netns", "exec", node.namespace, "iptables", "-w", "-A", "INPUT", "-s", o.address, "-j",
                    "DROP");
            Cmd.run("ip", "netns", "exec", node.namespace, "iptables", "-w", "-A", "OUTPUT", "-d", o.address, "-j",
                    "DROP");
        }
    }

    /** Undoes {@link #cutAll} and {@link #cutFrom}. */
    void heal(ChaosNode node) throws IOException {
        Cmd.run("ip", "-n", sw, "link", "set", node.namespace + "b", "up");
        Cmd.run("ip", "netns", "exec", node.namespace, "iptables", "-w", "-F", "INPUT");
        Cmd.run("ip", "netns", "exec", node.namespace, "iptables", "-w", "-F", "OUTPUT");
    }

    /** Removes the namespaces (their interfaces go with them), the runner's port and the route it added. */
    @Override
    public void close() {
        for (int i = created.size() - 1; i >= 0; i--) {
            try {
                Cmd.run("ip", "netns", "del", created.get(i));
            } catch (IOException e) {
                LOG.warn("{}", e.getMessage());
            }
        }
        created.clear();
        if (namespaces) {
            try {
                // normally gone with the switch namespace (its peer was there)
                if (Cmd.run("ip", "-o", "link", "show").contains(prefix + "g@")) {
                    Cmd.run("ip", "link", "del", prefix + "g");
                }
            } catch (IOException e) {
                LOG.warn("{}", e.getMessage());
            }
        }
        if (addedBlackhole) {
            addedBlackhole = false;
            try {
                Cmd.run("ip", "route", "del", "blackhole", blackhole);
            } catch (IOException e) {
                LOG.warn("{}", e.getMessage());
            }
        }
    }
}
