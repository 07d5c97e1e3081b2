package io.strata.micrometer;

import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.HostInfo;
import io.strata.streaming.child.MachineGuid;
import io.strata.streaming.auth.StreamConfig;
import io.strata.replication.child.LocalHostStreamer;
import io.strata.streaming.child.LocalCharts;
import io.strata.streaming.config.IniException;
import io.strata.streaming.config.IniFile;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.TimeZone;
import java.util.UUID;

/**
 * A Strata child inside any JVM application, built as a node's child role is: its own engine
 * (dbengine under {@code dataDir}, so that a parent that was away gets the gap replicated), the
 * charts the application defines, and a streamer to its parents. Define the charts, then
 * {@link #connect()}: the first connection sends the charts defined by then.
 */
public final class EmbeddedChild implements Closeable {

    private final StorageEngine engine;
    private final LocalCharts charts;
    private final LocalHostStreamer streamer;
    private final UUID machineGuid;
    private final int updateEvery;
    private boolean connected;

    private EmbeddedChild(StorageEngine engine, LocalCharts charts, LocalHostStreamer streamer, UUID guid,
                          int updateEvery) {
        this.engine = engine;
        this.charts = charts;
        this.streamer = streamer;
        this.machineGuid = guid;
        this.updateEvery = updateEvery;
    }

    /**
     * Opens the child's storage and prepares its stream. {@code streamConf}: the text of a Netdata
     * {@code stream.conf} (its {@code [stream]} section: enabled, destination, api key...).
     *
     * @throws IOException when the storage cannot be opened or {@code streamConf} is not valid
     */
    public static EmbeddedChild open(Path dataDir, String hostname, int updateEvery, String streamConf)
            throws IOException {
        StreamConfig stream;
        try {
            stream = StreamConfig.from(IniFile.parse(streamConf, "stream.conf"));
        } catch (IniException e) {
            throw new IOException("stream.conf for the embedded child: " + e.getMessage(), e);
        }
        if (!stream.sender().enabled()) {
            throw new IOException("stream.conf for the embedded child: [stream] enabled = yes is missing");
        }
        UUID guid = MachineGuid.loadOrCreate(dataDir.resolve("lib"));
        StorageEngine engine = StorageEngine.open(EngineConfig.defaults(dataDir.resolve("cache/dbengine")).withTiers(1));
        try {
            HostInfo self = new HostInfo(guid, hostname, "linux", TimeZone.getDefault().getID(), updateEvery,
                    Map.of("_is_parent", "false"));
            LocalCharts charts = new LocalCharts(engine, self);
            LocalHostStreamer streamer = new LocalHostStreamer(charts, stream.sender(), 1, null);
            return new EmbeddedChild(engine, charts, streamer, guid, updateEvery);
        } catch (RuntimeException e) {
            try {
                engine.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /** Starts streaming to the parents (reconnecting as Netdata does). */
    public synchronized void connect() {
        if (!connected) {
            connected = true;
            streamer.start();
        }
    }

    public LocalCharts charts() {
        return charts;
    }

    public StorageEngine engine() {
        return engine;
    }

    public UUID machineGuid() {
        return machineGuid;
    }

    public int updateEvery() {
        return updateEvery;
    }

    public LocalHostStreamer streamer() {
        return streamer;
    }

    @Override
    public void close() throws IOException {
        try {
            streamer.close();
        } finally {
            engine.close();
        }
    }
}
