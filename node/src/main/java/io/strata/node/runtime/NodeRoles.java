package io.strata.node.runtime;

import io.strata.engine.meta.HostInfo;
import io.strata.node.collect.ProcCollector;
import io.strata.node.config.NodeConfig;
import io.strata.replication.child.LocalHostStreamer;
import io.strata.streaming.child.LocalCharts;
import io.strata.streaming.server.HttpPipelineInstaller;

import java.io.IOException;
import java.util.Map;
import java.util.TimeZone;

/** Starts a node with the roles its configuration gives it. */
public final class NodeRoles {

    private NodeRoles() {
    }

    public static StrataNode start(NodeConfig cfg, HttpPipelineInstaller http) throws IOException {
        StrataNode node = StrataNode.start(cfg, http);
        try {
            if (cfg.isChild() || cfg.syntheticCharts() > 0) {
                HostInfo self = new HostInfo(node.machineGuid(), cfg.hostname(), "linux", TimeZone.getDefault().getID(),
                        cfg.updateEvery(), Map.of("_is_parent", String.valueOf(cfg.isParent())));
                LocalCharts local = new LocalCharts(node.engine(), self);
                ProcCollector machine = null;
                if (cfg.isChild() && cfg.procPlugin()) {
                    machine = new ProcCollector(local, cfg.updateEvery());
                    node.addRole(machine);
                    // a first pass defines the machine's charts before the first connection sends definitions
                    machine.collectOnce();
                }
                int charts = cfg.syntheticCharts() > 0 ? cfg.syntheticCharts() : machine != null ? 0 : 10;
                SyntheticCollector collector = null;
                if (charts > 0) {
                    collector = new SyntheticCollector(local, charts, cfg.syntheticDimensions(), cfg.updateEvery(),
                            node.machineGuid().getLeastSignificantBits());
                    node.addRole(collector);
                }
                if (cfg.isChild()) {
                    LocalHostStreamer streamer = new LocalHostStreamer(local, cfg.stream().sender(), 1, null);
                    node.addRole(streamer);
                    streamer.start();
                }
                if (collector != null) {
                    collector.start();
                }
                if (machine != null) {
                    machine.start();
                }
            }
            return node;
        } catch (RuntimeException e) {
            node.close();
            throw e;
        }
    }
}
