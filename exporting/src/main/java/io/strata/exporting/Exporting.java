package io.strata.exporting;

import io.micrometer.core.instrument.MeterRegistry;
import io.strata.engine.StorageEngine;
import io.strata.exporting.config.ExportingConfig;
import io.strata.exporting.config.TargetConfig;
import io.strata.exporting.position.PositionStore;
import io.strata.exporting.remotewrite.RemoteWriteClient;
import io.strata.exporting.remotewrite.RetryPolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import io.strata.engine.time.Clocks;

/**
 * A node's exporting engine: one {@link TargetExporter} per enabled {@code [prometheus_remote_write:NAME]}
 * of {@code exporting.conf}, their positions under {@code stateDir} (the node's {@code lib} directory,
 * {@code exporting/}). See docs/exporting.md.
 */
public final class Exporting implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(Exporting.class);

    private final List<TargetExporter> targets;

    private Exporting(List<TargetExporter> targets) {
        this.targets = targets;
    }

    /**
     * Starts exporting to every target of {@code cfg} (nothing when {@link ExportingConfig#exports()} is
     * false). A position file that cannot be read stops the start.
     */
    public static Exporting start(ExportingConfig cfg, StorageEngine engine, UUID localHost, HostOwnership ownership,
                                  Path stateDir, MeterRegistry meters) throws IOException {
        List<TargetExporter> list = new ArrayList<>();
        if (cfg.exports()) {
            for (TargetConfig t : cfg.targets()) {
                PositionStore positions = PositionStore.open(stateDir, t.name());
                list.add(new TargetExporter(t, engine, localHost, ownership, positions, new RemoteWriteClient(t),
                        RetryPolicy.defaults(), new ExportMeters(meters, t.name()), Clocks.wallMillisSupplier(),
                        TargetExporter.SETTLE_MILLIS));
            }
        }
        Exporting e = new Exporting(List.copyOf(list));
        for (TargetExporter t : e.targets) {
            t.start();
        }
        if (!list.isEmpty()) {
            LOG.info("exporting: {} target(s), positions in {}", list.size(), stateDir);
        }
        return e;
    }

    /** The targets being exported to. */
    public List<TargetConfig> targets() {
        return targets.stream().map(TargetExporter::config).toList();
    }

    @Override
    public void close() {
        for (TargetExporter t : targets) {
            t.close();
        }
    }
}
