package io.strata.it.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Hosts of a test network on this machine (BUILD-NOTES: several hosts on one machine): one
 * network namespace per host, all on a bridge in a "switch" namespace, addresses in a /24 of
 * 10.200.0.0/16, for which the root namespace gets a blackhole route first so that no packet of a
 * test can leave the machine. A host is cut off by taking its port of the switch down (a silent
 * partition: packets vanish, nothing is refused) and healed by bringing it back.
 */
final class NetnsLab implements AutoCloseable {

    private final String prefix;
    private final int subnet;
    private final String sw;
    private final List<String> namespaces = new ArrayList<>();
    /** /etc/netns/NAME directories this lab created: {@code ip netns exec} mounts their files over /etc. */
    private final List<Path> etcDirs = new ArrayList<>();
    private boolean createdEtcNetns;
    private boolean addedBlackhole;
    private int nextHost = 10;

    /** Why this machine cannot run the lab, or null when it can (root, iproute2, curl). */
    static String unavailable() {
        if (!"root".equals(System.getProperty("user.name"))) {
            return "network namespaces need root (running as " + System.getProperty("user.name") + ")";
        }
        for (String tool : new String[]{"/usr/sbin/ip", "/usr/bin/curl"}) {
            if (!Files.isExecutable(Path.of(tool)) && !Files.isExecutable(Path.of(tool.replace("/usr", "")))) {
                return tool + " is not installed (apt-get install -y iproute2 curl)";
            }
        }
        try {
            String probe = "stprobe" + ProcessHandle.current().pid() % 1000;
            run("ip", "netns", "add", probe);
            run("ip", "netns", "del", probe);
        } catch (IOException e) {
            return "cannot create a network namespace: " + e.getMessage();
        }
        return null;
    }

    NetnsLab() throws IOException {
        SplittableRandom r = new SplittableRandom();
        this.subnet = 1 + r.nextInt(250);
        this.prefix = "st" + Integer.toString(r.nextInt(36 * 36 * 36), 36);
        String routes = run("ip", "route", "show", "10.200.0.0/16");
        if (!routes.contains("blackhole")) {
            run("ip", "route", "add", "blackhole", "10.200.0.0/16");
            addedBlackhole = true;
        }
        this.sw = prefix + "sw";
        run("ip", "netns", "add", sw);
        namespaces.add(sw);
        run("ip", "-n", sw, "link", "add", "br0", "type", "bridge");
        run("ip", "-n", sw, "link", "set", "br0", "up");
    }

    /** A new host on the switch; returns its namespace name. {@link #address} gives its address. */
    String host(String name) throws IOException {
        String ns = prefix + name;
        int h = nextHost++;
        run("ip", "netns", "add", ns);
        namespaces.add(ns);
        String inner = ns + "e";
        String outer = ns + "b";
        run("ip", "link", "add", inner, "type", "veth", "peer", "name", outer);
        run("ip", "link", "set", inner, "netns", ns);
        run("ip", "link", "set", outer, "netns", sw);
        run("ip", "-n", sw, "link", "set", outer, "master", "br0", "up");
        run("ip", "-n", ns, "addr", "add", "10.200." + subnet + "." + h + "/24", "dev", inner);
        run("ip", "-n", ns, "link", "set", inner, "up");
        run("ip", "-n", ns, "link", "set", "lo", "up");
        return ns;
    }

    String address(String ns) throws IOException {
        String out = run("ip", "-n", ns, "-4", "-o", "addr", "show", "dev", ns + "e");
        int i = out.indexOf("inet ");
        return out.substring(i + 5, out.indexOf('/', i));
    }

    /**
     * Host names for every process started in the lab's namespaces (as a container network's DNS
     * gives them): an /etc/netns/NS/hosts per namespace, which {@code ip netns exec} mounts over
     * /etc/hosts. {@code names}: host name to address.
     */
    void names(java.util.Map<String, String> names) throws IOException {
        StringBuilder hosts = new StringBuilder("127.0.0.1\tlocalhost\n::1\tlocalhost\n");
        names.forEach((name, addr) -> hosts.append(addr).append('\t').append(name).append('\n'));
        for (String ns : namespaces) {
            Path dir = Path.of("/etc/netns", ns);
            if (!etcDirs.contains(dir)) {
                createdEtcNetns |= !Files.isDirectory(dir.getParent());
                Files.createDirectories(dir);
                etcDirs.add(dir);
            }
            Files.writeString(dir.resolve("hosts"), hosts, StandardCharsets.UTF_8);
        }
    }

    /** A silent partition of the host: its switch port goes down. */
    void cut(String ns) throws IOException {
        run("ip", "-n", sw, "link", "set", ns + "b", "down");
    }

    void heal(String ns) throws IOException {
        run("ip", "-n", sw, "link", "set", ns + "b", "up");
    }

    /** GET from inside {@code ns} (the test's own client namespace); the body, or an IOException. */
    String get(String ns, String url) throws IOException {
        return run("ip", "netns", "exec", ns, "curl", "-sS", "--fail-with-body", "--max-time", "20", url);
    }

    @Override
    public void close() {
        for (int i = namespaces.size() - 1; i >= 0; i--) {
            try {
                run("ip", "netns", "del", namespaces.get(i));
            } catch (IOException e) {
                System.out.println("[netns] " + e.getMessage());
            }
        }
        for (Path dir : etcDirs) {
            try {
                Files.deleteIfExists(dir.resolve("hosts"));
                Files.deleteIfExists(dir);
            } catch (IOException e) {
                System.out.println("[netns] " + e.getMessage());
            }
        }
        if (createdEtcNetns) {
            try {
                Files.deleteIfExists(Path.of("/etc/netns"));
            } catch (IOException e) {
                // another lab's namespaces still use it
            }
        }
        if (addedBlackhole) {
            try {
                run("ip", "route", "del", "blackhole", "10.200.0.0/16");
            } catch (IOException e) {
                System.out.println("[netns] " + e.getMessage());
            }
        }
    }

    static String run(String... cmd) throws IOException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", cmd) + ": no answer in 60 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            throw new IOException("interrupted: " + String.join(" ", cmd));
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " exited " + p.exitValue() + ": " + out.trim());
        }
        return out;
    }
}
