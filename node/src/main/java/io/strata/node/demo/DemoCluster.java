package io.strata.node.demo;

import io.strata.engine.meta.HostInfo;
import io.strata.node.config.NodeConfig;
import io.strata.node.runtime.NodeRoles;
import io.strata.node.runtime.StrataNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The demo cluster running in this JVM: the four nodes of a {@link DemoLayout}, each started from
 * the configuration files in its directory, exactly as {@code strata node --config DIR} would.
 * Parents start first so that the children's first connection finds them; {@link #close()} stops
 * the children first so that no child is left streaming into a parent that is closing its files.
 */
public final class DemoCluster implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(DemoCluster.class);

    private final DemoLayout layout;
    /** Started nodes by hostname of the layout, in start order (parents, then children). */
    private final Map<String, StrataNode> running = new LinkedHashMap<>();
    private boolean closed;

    private DemoCluster(DemoLayout layout) {
        this.layout = layout;
    }

    /**
     * Reads every node's configuration, checks that every port is free, then starts the parents
     * and the children. Nothing stays running when this throws.
     *
     * @throws DemoException a configuration that cannot be used or a port in use, with a message for the user
     */
    public static DemoCluster start(DemoLayout layout) throws IOException, DemoException {
        Map<DemoLayout.Node, NodeConfig> configs = new LinkedHashMap<>();
        for (DemoLayout.Node n : layout.nodes()) {
            try {
                configs.put(n, NodeConfig.load(n.dir()));
            } catch (NodeConfig.ConfigException e) {
                throw new DemoException(n.name() + ": " + e.getMessage());
            }
        }
        checkPortsFree(configs);
        DemoCluster cluster = new DemoCluster(layout);
        try {
            for (var e : configs.entrySet()) {
                try {
                    cluster.running.put(e.getKey().name(), NodeRoles.start(e.getValue(), null));
                } catch (IOException ex) {
                    throw new DemoException(e.getKey().name() + " did not start: " + ex.getMessage());
                }
            }
            return cluster;
        } catch (DemoException | RuntimeException e) {
            try {
                cluster.close();
            } catch (IOException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
    }

    /** Every address any node binds must be free, and no two nodes may share one. */
    private static void checkPortsFree(Map<DemoLayout.Node, NodeConfig> configs) throws DemoException {
        Map<Integer, String> owners = new LinkedHashMap<>();
        for (var e : configs.entrySet()) {
            for (InetSocketAddress a : e.getValue().bindTo()) {
                if (a.getPort() == 0) {
                    continue;
                }
                String other = owners.putIfAbsent(a.getPort(), e.getKey().name());
                if (other != null) {
                    throw new DemoException("port " + a.getPort() + " is configured for both " + other + " and "
                            + e.getKey().name() + " (see [web] bind to in " + e.getKey().netdataConf() + ")");
                }
                try (ServerSocket probe = new ServerSocket()) {
                    probe.bind(a);
                } catch (BindException ex) {
                    throw new DemoException("port " + a.getPort() + " (" + e.getKey().name() + ") is in use on "
                            + a.getHostString() + ": stop what holds it, or run the demo on other ports with"
                            + " --base-port N (and a fresh --data directory, since " + e.getKey().netdataConf()
                            + " names the port)");
                } catch (IOException ex) {
                    throw new DemoException("cannot listen on " + a.getHostString() + ":" + a.getPort() + " ("
                            + e.getKey().name() + "): " + ex.getMessage());
                }
            }
        }
    }

    public DemoLayout layout() {
        return layout;
    }

    /** The running node of a hostname of the layout. */
    public StrataNode node(String name) {
        StrataNode n = running.get(name);
        if (n == null) {
            throw new IllegalArgumentException("no node " + name + " in the demo (nodes: " + running.keySet() + ")");
        }
        return n;
    }

    /** The port a node really listens on (its first {@code [web] bind to} address). */
    public int port(String name) {
        return node(name).listening().get(0).getPort();
    }

    public String url(String name) {
        return "http://127.0.0.1:" + port(name) + "/";
    }

    /** The hostnames a parent's engine holds (itself excluded: a parent stores no charts of its own here). */
    public Set<String> hostsOf(String parent) {
        Set<String> out = new HashSet<>();
        for (HostInfo h : node(parent).engine().metadata().hosts()) {
            out.add(h.hostname());
        }
        return out;
    }

    /**
     * Waits until both parents hold both children, at most {@code timeout}. Returns whether they do;
     * the caller decides what a slow start means.
     */
    public boolean awaitChildrenOnBothParents(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<String> children = new ArrayList<>();
        layout.children().forEach(c -> children.add(c.name()));
        while (true) {
            boolean all = true;
            for (DemoLayout.Node p : layout.parents()) {
                all &= hostsOf(p.name()).containsAll(children);
            }
            if (all) {
                return true;
            }
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(200);
        }
    }

    /** Stops the children, then the parents; every node is closed even when one fails to. */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        List<String> order = new ArrayList<>(running.keySet());
        IOException first = null;
        for (int i = order.size() - 1; i >= 0; i--) {
            try {
                running.get(order.get(i)).close();
            } catch (IOException | RuntimeException e) {
                LOG.warn("stopping {}: {}", order.get(i), e.getMessage());
                if (first == null) {
                    first = e instanceof IOException io ? io : new IOException(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** Something the user can fix: the message says what and where. */
    public static final class DemoException extends Exception {
        public DemoException(String message) {
            super(message);
        }
    }
}
