package io.strata.node.runtime;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.strata.engine.StorageEngine;
import io.strata.engine.cache.PageCache;
import io.strata.replication.peer.HoleRepair;
import io.strata.streaming.receiver.ReceiverRegistry;
import io.strata.streaming.receiver.ReceiverStats;
import io.strata.streaming.sender.SenderStats;

import java.util.Objects;
import java.util.function.LongSupplier;
import java.util.function.ToDoubleFunction;
import io.strata.engine.time.Clocks;

/**
 * The node's own meters (Micrometer), read from the counters the streaming receivers and the
 * engine already keep: nothing is counted twice and nothing is added to the data path. The query
 * API registers its own (data latency, HTTP bytes) on the same registry; {@code /metrics} scrapes
 * them all.
 *
 * <p>Counters are Prometheus counters ({@code _total}); the per-second rate of received samples is
 * also a gauge, updated by {@link #sample()} once a second, for readers without PromQL's
 * {@code rate()}. Ratios are since the node started and NaN until there is something to divide.
 *
 * <p>Replication is read from the connected receivers when scraped: how many charts still
 * replicate and how far behind now the most-behind one's stored data is (0 once all caught up).
 * Bytes out are the process's stream senders (a child's own stream and each forwarder's,
 * {@link SenderStats}) and the commands this parent wrote to its children.
 */
public final class NodeMeters {

    private final ReceiverStats stats;
    private final SenderStats senderStats;
    private final ReceiverRegistry receivers;
    private final LongSupplier nanoClock;
    private final LongSupplier wallMillis;

    private long lastSamples;
    private long lastNanos;
    private volatile double samplesPerSecond;

    public NodeMeters(MeterRegistry registry, ReceiverStats stats, ReceiverRegistry receivers, StorageEngine engine) {
        this(registry, stats, SenderStats.PROCESS, receivers, engine, System::nanoTime, Clocks::wallMillis);
    }

    /** @param nanoClock elapsed time between {@link #sample()}s; {@code wallMillis}: the receivers' clock */
    NodeMeters(MeterRegistry registry, ReceiverStats stats, SenderStats senderStats, ReceiverRegistry receivers,
               StorageEngine engine, LongSupplier nanoClock, LongSupplier wallMillis) {
        this.stats = Objects.requireNonNull(stats, "stats");
        this.senderStats = Objects.requireNonNull(senderStats, "senderStats");
        this.receivers = Objects.requireNonNull(receivers, "receivers");
        this.nanoClock = nanoClock;
        this.wallMillis = wallMillis;
        this.lastNanos = nanoClock.getAsLong();
        this.lastSamples = samplesReceived(stats);
        streamMeters(registry);
        engineMeters(registry, engine);
    }

    private void streamMeters(MeterRegistry r) {
        counter(r, "strata.stream.samples.received", "Samples received from children, live", "kind", "collected",
                stats, s -> s.samplesCollected.sum());
        counter(r, "strata.stream.samples.received", "Samples received from children, replayed", "kind", "replayed",
                stats, s -> s.samplesReplayed.sum());
        Gauge.builder("strata.stream.samples.received.rate", this, m -> m.samplesPerSecond)
                .description("Samples received per second (live and replayed) over the last second")
                .register(r);
        Gauge.builder("strata.stream.children.connected", receivers, ReceiverRegistry::connected)
                .description("Children streaming to this node now")
                .register(r);
        Gauge.builder("strata.stream.last.data.age.max", this, NodeMeters::oldestLastDataSeconds)
                .description("Seconds since the quietest connected child last sent bytes (0 with none connected)")
                .baseUnit("seconds")
                .register(r);
        FunctionCounter.builder("strata.stream.received", stats, s -> s.bytesReceived.sum())
                .description("Bytes of streams read from children (after TLS and decompression)")
                .baseUnit("bytes")
                .register(r);
        counter(r, "strata.stream.connections", "Stream connections accepted", "outcome", "accepted",
                stats, s -> s.connectionsAccepted.sum());
        counter(r, "strata.stream.connections", "Stream connections refused", "outcome", "refused",
                stats, s -> s.connectionsRefused.sum());
        FunctionCounter.builder("strata.stream.protocol.errors", stats, s -> s.protocolErrors.sum())
                .description("Streams closed for a protocol error")
                .register(r);
        FunctionCounter.builder("strata.stream.slots.skipped.by.children", stats,
                        s -> s.slotsSkippedAtStreamingStart.sum())
                .description("Slots children sent neither in the replay answer that started a chart's live stream"
                        + " nor live after it (the child's loss; docs/replication.md)")
                .register(r);
        counter(r, "strata.stream.replication.holes", "Holes replication answers left behind, kept to be asked"
                + " of the same stream again", "outcome", "remembered", stats, s -> s.holesRemembered.sum());
        counter(r, "strata.stream.replication.holes", "Requests (REPLAY_CHART false) sent for a hole, each attempt",
                "outcome", "asked", stats, s -> s.holesAsked.sum());
        counter(r, "strata.stream.replication.holes", "Holes whose answers reached their end", "outcome", "filled",
                stats, s -> s.holesFilled.sum());
        counter(r, "strata.stream.replication.holes", "Holes no longer asked (answers without a point, too old,"
                + " over the bounds, no answer, or their stream ended)", "outcome", "given_up", stats,
                s -> s.holesGivenUp.sum());
        FunctionCounter.builder("strata.stream.definitions.refused", stats, s -> s.chartsRefused.sum())
                .description("Chart definitions refused for stream.conf's max charts per host (not stored; the"
                        + " stream goes on)")
                .tag("kind", "chart")
                .register(r);
        FunctionCounter.builder("strata.stream.definitions.refused", stats, s -> s.dimensionsRefused.sum())
                .description("Dimension definitions refused for stream.conf's max dimensions per host or the"
                        + " per-chart bound (not stored; the stream goes on)")
                .tag("kind", "dimension")
                .register(r);
        FunctionCounter.builder("strata.stream.sent", senderStats, s -> s.bytesSent.sum())
                .description("Bytes of streams written to parents by this node's senders (its own stream and"
                        + " forwarded hosts; before compression and TLS)")
                .baseUnit("bytes")
                .tag("side", "sender")
                .register(r);
        FunctionCounter.builder("strata.stream.sent", stats, s -> s.bytesSent.sum())
                .description("Bytes of commands written to children (replication requests, function calls)")
                .baseUnit("bytes")
                .tag("side", "receiver")
                .register(r);
        Gauge.builder("strata.stream.replication.charts", receivers, NodeMeters::chartsReplicating)
                .description("Charts of connected children whose replication has not finished")
                .register(r);
        Gauge.builder("strata.stream.replication.lag.max", this, NodeMeters::replicationLagSeconds)
                .description("Seconds the stored data of the most-behind replicating chart trails now (0 when"
                        + " all are caught up)")
                .baseUnit("seconds")
                .register(r);
    }

    private static void engineMeters(MeterRegistry r, StorageEngine engine) {
        PageCache cache = engine.cache();
        Gauge.builder("strata.engine.cache.hit.ratio", cache, c -> ratio(c.pageHits(), c.pageMisses()))
                .description("Clean decoded pages found in the page cache, of all looked up (hot pages are not looked up)")
                .tag("cache", "page")
                .register(r);
        Gauge.builder("strata.engine.cache.hit.ratio", cache, c -> ratio(c.extentHits(), c.extentMisses()))
                .description("Extents found in the extent cache, of all needed")
                .tag("cache", "extent")
                .register(r);
        counter(r, "strata.engine.cache.lookups", "Page cache lookups", "cache", "page", "result", "hit",
                cache, PageCache::pageHits);
        counter(r, "strata.engine.cache.lookups", "Page cache lookups", "cache", "page", "result", "miss",
                cache, PageCache::pageMisses);
        counter(r, "strata.engine.cache.lookups", "Extent cache lookups", "cache", "extent", "result", "hit",
                cache, PageCache::extentHits);
        counter(r, "strata.engine.cache.lookups", "Extent cache lookups", "cache", "extent", "result", "miss",
                cache, PageCache::extentMisses);
        Gauge.builder("strata.engine.cache.size", cache, PageCache::pageBytes)
                .description("Bytes held by the cache").baseUnit("bytes").tag("cache", "page").register(r);
        Gauge.builder("strata.engine.cache.size", cache, PageCache::extentBytes)
                .description("Bytes held by the cache").baseUnit("bytes").tag("cache", "extent").register(r);
        FunctionCounter.builder("strata.engine.disk.read", cache, PageCache::bytesRead)
                .description("Bytes of extents read from datafiles by queries").baseUnit("bytes").register(r);
        Gauge.builder("strata.engine.flush.queue", engine, StorageEngine::pendingPages)
                .description("Dirty pages waiting for the flusher").baseUnit("pages").register(r);
        FunctionCounter.builder("strata.engine.pages.flushed", engine, StorageEngine::pagesFlushed)
                .description("Pages written by the flusher").register(r);
        FunctionCounter.builder("strata.engine.points.stored", engine, StorageEngine::pointsStored)
                .description("Tier-0 points in pages sealed since open (points of hot pages not yet)").register(r);
        FunctionCounter.builder("strata.engine.points.rejected", engine, StorageEngine::pointsRejected)
                .description("Points refused: not after the metric's last point").register(r);
        FunctionCounter.builder("strata.engine.read.errors", engine, StorageEngine::readErrors)
                .description("Damaged extents or pages met by queries").register(r);
        Gauge.builder("strata.engine.page.memory", engine, StorageEngine::pageMemoryBytes)
                .description("Off-heap bytes of page memory").baseUnit("bytes").register(r);
        // the past path: holes filled behind a metric's newest point, and what it could not do
        counter(r, "strata.engine.past.points", "Values offered behind their metric's newest point", "result",
                "stored", engine, StorageEngine::pastPointsStored);
        counter(r, "strata.engine.past.points", "Values offered behind their metric's newest point", "result",
                "held", engine, StorageEngine::pastPointsHeld);
        counter(r, "strata.engine.past.runs.lost", "Runs of past points not stored", "reason", "queue.full",
                engine, StorageEngine::pastRunsRefused);
        counter(r, "strata.engine.past.runs.lost", "Runs of past points not stored", "reason", "read.failed",
                engine, StorageEngine::pastRunsFailed);
        FunctionCounter.builder("strata.engine.tier.windows.rebuilt", engine, StorageEngine::tierWindowsRebuilt)
                .description("Windows of tiers 1+ recomputed over filled ranges").register(r);
        Gauge.builder("strata.engine.tier.rebuilds.pending", engine, StorageEngine::pendingTierRebuilds)
                .description("Filled ranges whose tier 1+ windows are still open, to be rebuilt").register(r);
        FunctionCounter.builder("strata.engine.tier.rebuilds.unrecorded", engine,
                        StorageEngine::pendingRebuildsNotRecorded)
                .description("Past pages whose pending rebuild could not be journalled (lost at a crash)")
                .register(r);
    }

    /**
     * The repair of holes from peers (docs/replication.md): samples filled, holes asked, holes no peer
     * held (given up), peer requests that failed.
     */
    static void holeRepairMeters(MeterRegistry r, HoleRepair repair) {
        FunctionCounter.builder("strata.peer.repair.samples", repair, HoleRepair::samplesFilled)
                .description("Values from peer parents stored at slots of holes this parent lacked")
                .register(r);
        FunctionCounter.builder("strata.peer.repair.holes", repair, HoleRepair::holesAsked)
                .description("Holes behind the newest second asked of the peers (once a round each)")
                .tag("outcome", "asked")
                .register(r);
        FunctionCounter.builder("strata.peer.repair.holes", repair, HoleRepair::holesUnfillable)
                .description("Holes no peer filled in as many rounds as the repair asks: given up")
                .tag("outcome", "unfillable")
                .register(r);
        FunctionCounter.builder("strata.peer.repair.holes", repair, HoleRepair::holesAskedOfStream)
                .description("Holes no peer filled handed to the stream this parent receives their host on")
                .tag("outcome", "asked_stream")
                .register(r);
        FunctionCounter.builder("strata.peer.repair.requests.failed", repair, HoleRepair::peerRequestsFailed)
                .description("Requests to peers without a usable answer (no connection, a timeout, an error)")
                .register(r);
    }

    private static <T> void counter(MeterRegistry r, String name, String description, String tag, String value,
                                    T source, ToDoubleFunction<T> read) {
        FunctionCounter.builder(name, source, read).description(description).tag(tag, value).register(r);
    }

    private static <T> void counter(MeterRegistry r, String name, String description, String tag1, String value1,
                                    String tag2, String value2, T source, ToDoubleFunction<T> read) {
        FunctionCounter.builder(name, source, read).description(description)
                .tag(tag1, value1).tag(tag2, value2).register(r);
    }

    /**
     * Updates the per-second rate of received samples from the counters' growth since the last
     * call; the node calls it every second.
     */
    public synchronized void sample() {
        long now = nanoClock.getAsLong();
        long samples = samplesReceived(stats);
        long elapsed = now - lastNanos;
        if (elapsed > 0) {
            samplesPerSecond = (samples - lastSamples) * 1e9 / elapsed;
        }
        lastNanos = now;
        lastSamples = samples;
    }

    /** The rate {@link #sample()} computed last. */
    public double samplesPerSecond() {
        return samplesPerSecond;
    }

    private double oldestLastDataSeconds() {
        long now = wallMillis.getAsLong();
        long oldest = now;
        for (ReceiverRegistry.Active a : receivers.snapshot().values()) {
            oldest = Math.min(oldest, a.lastDataMillis());
        }
        return Math.max(0, now - oldest) / 1000.0;
    }

    private static double chartsReplicating(ReceiverRegistry receivers) {
        long n = 0;
        for (ReceiverRegistry.Active a : receivers.snapshot().values()) {
            n += a.chartsReplicating();
        }
        return n;
    }

    private double replicationLagSeconds() {
        long now = wallMillis.getAsLong() / 1000;
        long lag = 0;
        for (ReceiverRegistry.Active a : receivers.snapshot().values()) {
            lag = Math.max(lag, a.replicationLagSeconds(now));
        }
        return lag;
    }

    private static long samplesReceived(ReceiverStats s) {
        return s.samplesCollected.sum() + s.samplesReplayed.sum();
    }

    private static double ratio(long hits, long misses) {
        long all = hits + misses;
        return all == 0 ? Double.NaN : (double) hits / all;
    }
}
