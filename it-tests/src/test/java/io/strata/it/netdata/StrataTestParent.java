package io.strata.it.netdata;

import io.strata.engine.StorageEngine;
import io.strata.node.config.NodeConfig;
import io.strata.node.runtime.NodeRoles;
import io.strata.node.runtime.StrataNode;
import io.strata.streaming.receiver.ReceiverStats;

import java.nio.file.Files;
import java.nio.file.Path;

/** A Strata node run in the test's JVM from a generated netdata.conf and stream.conf, on 127.0.0.1. */
final class StrataTestParent implements AutoCloseable {

    private final StrataNode node;

    private StrataTestParent(StrataNode node) {
        this.node = node;
    }

    static StrataTestParent start(Path base, boolean compression) throws Exception {
        return start(base, compression, "");
    }

    /** {@code webExtra}: more {@code [web]} lines (e.g. ssl certificate / ssl key). */
    static StrataTestParent start(Path base, boolean compression, String webExtra) throws Exception {
        return start(base, compression, webExtra, 0);
    }

    /** On {@code port} of 127.0.0.1 (0: any free port). */
    static StrataTestParent start(Path base, boolean compression, String webExtra, int port) throws Exception {
        Files.createDirectories(base);
        Files.writeString(base.resolve("netdata.conf"), "[global]\n"
                + "\thostname = strata-parent\n"
                + "[db]\n"
                + "\tmode = dbengine\n"
                + "\tstorage tiers = 3\n"
                + "[web]\n"
                + "\tbind to = 127.0.0.1:" + port + "\n" + webExtra
                + "[directories]\n"
                + "\tcache = " + base.resolve("cache") + "\n"
                + "\tlib = " + base.resolve("lib") + "\n");
        Files.writeString(base.resolve("stream.conf"), "[stream]\n"
                + "\tenabled = no\n"
                + "\tenable compression = " + (compression ? "yes" : "no") + "\n\n"
                + "[" + RealNetdata.API_KEY + "]\n"
                + "\tenabled = yes\n"
                + "\tallow from = *\n"
                + "\tenable compression = " + (compression ? "yes" : "no") + "\n");
        return new StrataTestParent(NodeRoles.start(NodeConfig.load(base), null));
    }

    int port() {
        return node.listening().get(0).getPort();
    }

    StorageEngine engine() {
        return node.engine();
    }

    ReceiverStats stats() {
        return node.stats();
    }

    StrataNode node() {
        return node;
    }

    @Override
    public void close() throws Exception {
        node.close();
    }
}
