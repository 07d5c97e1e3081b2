package io.strata.node.cli;

import io.strata.node.config.NodeConfig;
import io.strata.node.runtime.StrataNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Callable;
import io.strata.node.runtime.NodeLogging;
import io.strata.node.runtime.NodeRoles;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import io.strata.engine.thread.StrataThreads;

/** {@code strata node --config DIR}: runs a parent, a child or both until SIGTERM or Ctrl-C. */
@Command(name = "node", mixinStandardHelpOptions = true,
        description = "Run a node from netdata.conf and stream.conf in a directory (Netdata's keys).")
public final class NodeCommand implements Callable<Integer> {

    private static final Logger LOG = LoggerFactory.getLogger("strata.node");

    @Option(names = "--config", required = true, paramLabel = "DIR",
            description = "Directory holding netdata.conf and stream.conf.")
    Path config;

    @Override
    public Integer call() throws Exception {
        NodeConfig cfg;
        try {
            cfg = NodeConfig.load(config);
        } catch (NodeConfig.ConfigException e) {
            System.err.println("strata node: " + e.getMessage());
            return 2;
        }
        StrataNode node;
        try {
            NodeLogging.apply(cfg.logs());
            node = NodeRoles.start(cfg, null);
        } catch (IOException e) {
            // one ERROR line the user can act on (a directory, a port, a disk): its message says
            // what and where; a stack trace would only hide it
            LOG.error("cannot start: {}", e.getMessage());
            return 1;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        // Chronicle registers a shutdown hook of its own when its resource releaser first loads;
        // during our shutdown that is refused and the engine's files would not close cleanly
        try {
            Class.forName("net.openhft.chronicle.core.io.BackgroundResourceReleaser", true,
                    NodeCommand.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            System.err.println("strata node: Chronicle's resource releaser did not load: " + e);
        }
        Runtime.getRuntime().addShutdownHook(StrataThreads.newThread(() -> {
            try {
                node.close();
            } catch (Exception e) {
                System.err.println("strata node: stopping: " + e.getMessage());
            } finally {
                stopped.countDown();
            }
        }, "strata-shutdown"));
        for (var a : node.listening()) {
            System.out.println("strata node '" + cfg.hostname() + "' listening on " + a.getAddress().getHostAddress()
                    + ":" + a.getPort());
        }
        stopped.await();
        return 0;
    }
}
