package io.strata.node.cli;

import io.strata.node.demo.DemoCluster;
import io.strata.node.demo.DemoLayout;
import io.strata.query.ApiContext;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.io.IOException;
import io.strata.engine.thread.StrataThreads;

/**
 * {@code strata demo}: a cluster on 127.0.0.1 (two parents forwarding to each other, two children
 * collecting this machine) with its data under {@code ./data}, until Ctrl-C.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {"Run a demo cluster on 127.0.0.1: 2 parents replicating each other and 2 children "
                + "collecting this machine, data under --data; Ctrl-C stops it.",
                "Each node's netdata.conf and stream.conf are written under DIR/<node>/ when missing, "
                        + "and used as they are otherwise."})
public final class DemoCommand implements Callable<Integer> {

    @Option(names = "--data", paramLabel = "DIR", defaultValue = "data",
            description = "Directory of the nodes' configuration and data (default: ${DEFAULT-VALUE}).")
    Path data;

    @Option(names = "--base-port", paramLabel = "N", defaultValue = "" + DemoLayout.DEFAULT_BASE_PORT,
            description = "Ports of new configurations: parents on N and N+2, children on N+3 and N+4 "
                    + "(default: ${DEFAULT-VALUE}).")
    int basePort;

    @Override
    public Integer call() throws Exception {
        PrintStream out = System.out;
        DemoLayout layout;
        try {
            layout = DemoLayout.fromBasePort(data.toAbsolutePath().normalize(), basePort);
        } catch (IllegalArgumentException e) {
            System.err.println("strata demo: " + e.getMessage());
            return 2;
        }
        List<Path> written;
        try {
            written = layout.writeMissingConfigs();
        } catch (IOException e) {
            System.err.println("strata demo: cannot write the configuration under " + layout.dataDir() + ": "
                    + e.getMessage());
            return 1;
        }
        out.println(written.isEmpty()
                ? "strata demo: using the existing configuration under " + layout.dataDir()
                + " (delete a node's *.conf to have it written again)"
                : "strata demo: wrote " + written.size() + " configuration files under " + layout.dataDir()
                + " (netdata.conf and stream.conf per node; edit them and run again)");

        // Chronicle registers a shutdown hook of its own when its resource releaser first loads;
        // during our shutdown that is refused and the engines' files would not close cleanly
        try {
            Class.forName("net.openhft.chronicle.core.io.BackgroundResourceReleaser", true,
                    DemoCommand.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            System.err.println("strata demo: Chronicle's resource releaser did not load: " + e);
        }
        DemoCluster cluster;
        try {
            cluster = DemoCluster.start(layout);
        } catch (DemoCluster.DemoException e) {
            System.err.println("strata demo: " + e.getMessage());
            return 1;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(StrataThreads.newThread(() -> {
            try {
                System.err.println("strata demo: stopping the children, then the parents...");
                cluster.close();
                System.err.println("strata demo: stopped; data kept under " + layout.dataDir());
            } catch (Exception e) {
                System.err.println("strata demo: stopping: " + e.getMessage());
            } finally {
                stopped.countDown();
            }
        }, "strata-demo-shutdown"));

        for (DemoLayout.Node n : layout.nodes()) {
            if (cluster.port(n.name()) != n.port()) {
                out.println("strata demo: " + n.name() + " listens on port " + cluster.port(n.name()) + " as "
                        + n.netdataConf() + " says, not on " + n.port() + " of --base-port " + basePort
                        + " (delete the node's *.conf, or use another --data, for new ports)");
            }
        }
        printUrls(out, cluster);
        if (cluster.awaitChildrenOnBothParents(Duration.ofSeconds(30))) {
            out.println("strata demo: both parents hold both children; Ctrl-C stops the cluster.");
        } else {
            out.println("strata demo: after 30 s the parents hold " + cluster.hostsOf(DemoLayout.PARENT_A)
                    + " and " + cluster.hostsOf(DemoLayout.PARENT_B) + "; see the log above. Ctrl-C stops the cluster.");
        }
        stopped.await();
        return 0;
    }

    private static void printUrls(PrintStream out, DemoCluster cluster) {
        DemoLayout layout = cluster.layout();
        out.println();
        for (DemoLayout.Node p : layout.parents()) {
            String url = cluster.url(p.name());
            out.printf("  %-14s %-44s parent: stores every child, forwards to its peer%n", p.name(), url);
            for (DemoLayout.Node c : layout.children()) {
                out.printf("  %-14s %-44s %s as stored on %s%n", "", url + "host/" + c.name() + "/", c.name(),
                        p.name());
            }
        }
        for (DemoLayout.Node c : layout.children()) {
            out.printf("  %-14s %-44s child: collects this machine (/proc) every second%n", c.name(),
                    cluster.url(c.name()));
        }
        out.println();
        out.println("  Both children collect the same machine (this one): a demo of the topology, not of two hosts.");
        out.println("  The API: " + cluster.url(DemoLayout.PARENT_A) + "api/v1/info (mirrored_hosts), "
                + cluster.url(DemoLayout.PARENT_A) + "host/" + DemoLayout.CHILD_1 + "/api/v1/charts");
        if (ApiContext.defaultWebDirectory() == null) {
            out.println("  No dashboard files at " + ApiContext.NETDATA_WEB_DIRECTORY + ": the URLs answer the API only."
                    + " Netdata's 1.37.1 dashboard comes with Debian's netdata-web package"
                    + " (apt-get install netdata-web).");
        }
        out.println();
    }
}
