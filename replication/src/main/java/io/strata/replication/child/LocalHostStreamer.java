package io.strata.replication.child;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.EventLoopGroup;
import io.strata.replication.sender.ParentCommandDispatcher;
import io.strata.replication.sender.ReplayAnswer;
import io.strata.engine.meta.ChartInfo;
import io.strata.engine.netdata.SimplePattern;
import io.strata.streaming.auth.StreamConfig;
import io.strata.streaming.child.LocalCharts;
import io.strata.streaming.handshake.Capabilities;
import io.strata.streaming.handshake.StreamRequest;
import io.strata.streaming.sender.HostStreamWriter;
import io.strata.streaming.sender.Handshake;
import io.strata.streaming.sender.SenderListener;
import io.strata.streaming.sender.SenderSession;
import io.strata.streaming.sender.StreamSender;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.io.IOException;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerArray;
import io.strata.engine.time.Clocks;
import java.util.concurrent.locks.LockSupport;
import java.util.Arrays;

/**
 * Streams a child's own (local) host to its parents, one at a time over the {@code destination}
 * list with failover ({@link StreamSender}): on each connection the host preamble and every
 * chart definition; {@code REPLAY_CHART} answered from the local engine; then each collection
 * pass as one block of {@code BEGIN}/{@code SET}/{@code END} (one block per pass compresses well).
 */
public final class LocalHostStreamer implements SenderListener, LocalCharts.CollectionListener, Closeable,
        ParentCommandDispatcher.Target {

    private static final Logger LOG = LoggerFactory.getLogger(LocalHostStreamer.class);
    /**
     * What a Strata child offers: all of 1.37.1 but FUNCTIONS (it has none to call), and 2.x's
     * INTERPOLATED with IEEE754 and ZSTD (a 1.37.1 parent ignores bits it does not know).
     */
    public static final long CHILD_CAPABILITIES = Capabilities.VCAPS | Capabilities.HLABELS | Capabilities.CLAIM
            | Capabilities.CLABELS | Capabilities.COMPRESSION | Capabilities.REPLICATION | Capabilities.BINARY
            | Capabilities.INTERPOLATED_IEEE754 | Capabilities.ZSTD;

    private final LocalCharts charts;
    private final HostStreamWriter stream;
    private final ReplayAnswer replay;
    private final ParentCommandDispatcher commands;
    private final StreamSender sender;
    private final SimplePattern sendCharts;
    private final Clock clock;
    /** Per engine chart id: 1 when BEGIN/SET/END flows on the current connection. */
    private volatile AtomicIntegerArray streaming = new AtomicIntegerArray(0);
    /**
     * Guarded by this, per engine chart id: the chart's last collection (µs) that the answer which
     * started its streaming covered; a collection up to it is in that answer, not in the stream.
     */
    private long[] answeredUpTo = new long[0];
    /**
     * Per chart, the chart's last collected time (µs) the parent's timeline is at: that of the
     * replication answer that started its streaming, then of the last collection streamed. A
     * collection streamed in {@code BEGIN} carries the time since then, so that the collections
     * not streamed (refused by this node's engine) add their time to the next one streamed and the
     * parent's timeline stays this node's. 0: not known (no answer), the collector's own time is sent.
     */
    private long[] streamedUpTo = new long[0];
    /** Answers that start streaming but are overtaken by a collection are computed again this often at most. */
    private static final int ANSWER_ATTEMPTS = 5;
    private volatile SenderSession session;
    /**
     * Until when (System.nanoTime) answers of this connection wait for their chart's first
     * collection, 0 before the first wait: one bound for all of them, so that charts which are never
     * collected do not each hold the connection's answers back.
     */
    private volatile long firstCollectionWaitUntil;
    private volatile long caps;

    public LocalHostStreamer(LocalCharts charts, StreamConfig.SenderSettings settings, int hops, EventLoopGroup group) {
        this(charts, settings, hops, group, Clocks.system());
    }

    /** @param clock the unix time of definitions and replication answers */
    public LocalHostStreamer(LocalCharts charts, StreamConfig.SenderSettings settings, int hops, EventLoopGroup group,
                         Clock clock) {
        this.charts = charts;
        this.clock = clock;
        this.stream = new HostStreamWriter(charts.engine(), charts.host().machineGuid(), null,
                HostStreamWriter.LabelSources.NETDATA, c -> 0, () -> clock.millis() / 1000,
                HostStreamWriter.DEFAULT_CLOCK_RESYNC_ITERATIONS);
        this.replay = new ReplayAnswer(stream, charts.host().hostname());
        this.commands = new ParentCommandDispatcher(charts.host().hostname(), this);
        this.sendCharts = SimplePattern.parse(settings.sendChartsMatching());
        String key = settings.apiKey();
        long offered = settings.enableCompression() ? CHILD_CAPABILITIES : CHILD_CAPABILITIES & ~Capabilities.COMPRESSIONS;
        Handshake handshake = Handshake.netdata(d -> StreamRequest.builder().key(key).hostname(charts.host().hostname())
                .registryHostname(charts.host().hostname())
                .machineGuid(charts.host().machineGuid().toString())
                .updateEvery(charts.host().updateEvery()).os(charts.host().os().isEmpty() ? "linux"
                        : charts.host().os())
                .hops(hops).ver(offered).programName("netdata").programVersion("v1.37.1")
                .build().encode());
        this.sender = StreamSender.fromSettings(charts.host().hostname(), settings, settings.destination(), handshake,
                this, group).withStreamInfo(charts.host().machineGuid().toString());
        charts.addListener(this);
    }

    public void start() {
        sender.start();
    }

    public StreamSender sender() {
        return sender;
    }

    /** Charts whose live data flows on the current connection. */
    public int chartsStreaming() {
        AtomicIntegerArray s = streaming;
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            n += s.get(i);
        }
        return n;
    }

    @Override
    public void onConnected(SenderSession s, long capabilities) {
        stream.forgetDefinitions();
        int max = 0;
        for (LocalCharts.Chart c : charts.charts()) {
            max = Math.max(max, c.chartId() + 1);
        }
        AtomicIntegerArray flags = new AtomicIntegerArray(max);
        synchronized (this) {
            streaming = flags;
            answeredUpTo = new long[max];
            streamedUpTo = new long[max];
        }
        caps = capabilities;
        firstCollectionWaitUntil = 0;
        long now = clock.millis() / 1000;
        ByteBuf out = ByteBufAllocator.DEFAULT.buffer(64 * 1024);
        stream.writeHostPreamble(out, capabilities);
        boolean replication = Capabilities.has(capabilities, Capabilities.REPLICATION);
        for (LocalCharts.Chart c : charts.charts()) {
            if (!sendCharts.matches(c.id())) {
                continue;
            }
            stream.writeChartDefinition(out, c.chartId(), capabilities, now);
            if (!replication) {
                flags.set(c.chartId(), 1);
            }
            if (out.readableBytes() > 1 << 20) {
                s.write(out);
                out = ByteBufAllocator.DEFAULT.buffer(64 * 1024);
            }
        }
        s.write(out);
        // only now: a chart defined meanwhile is sent by the next pass, never twice
        session = s;
    }

    /**
     * Marks a chart's live data as flowing on the current connection (its array grows with new
     * charts); {@code answeredUpToUt} is the last collection its replication answer covered.
     */
    private synchronized void streamingStarts(int chartId, long answeredUpToUt) {
        AtomicIntegerArray flags = streaming;
        if (chartId >= flags.length()) {
            AtomicIntegerArray grown = new AtomicIntegerArray(Math.max(chartId + 1, flags.length() * 2));
            for (int i = 0; i < flags.length(); i++) {
                grown.set(i, flags.get(i));
            }
            streaming = grown;
            flags = grown;
        }
        if (chartId >= answeredUpTo.length) {
            answeredUpTo = Arrays.copyOf(answeredUpTo, Math.max(chartId + 1, answeredUpTo.length * 2));
        }
        if (chartId >= streamedUpTo.length) {
            streamedUpTo = Arrays.copyOf(streamedUpTo, Math.max(chartId + 1, streamedUpTo.length * 2));
        }
        answeredUpTo[chartId] = answeredUpToUt;
        streamedUpTo[chartId] = answeredUpToUt;
        flags.set(chartId, 1);
    }

    @Override
    public void onParentCommand(SenderSession s, byte[] line, int length) {
        commands.dispatch(s, line, length);
    }

    @Override
    public void answer(SenderSession s, ByteBuf block) {
        s.write(block);
    }

    @Override
    public void replayChart(SenderSession s, String id, boolean start, long after, long before) {
        LocalCharts.Chart chart = null;
        for (LocalCharts.Chart c : charts.charts()) {
            if (c.id().equals(id)) {
                chart = c;
                break;
            }
        }
        if (chart == null) {
            LOG.warn("STREAM {}: REPLAY_CHART for unknown chart '{}'", charts.host().hostname(), id);
            return;
        }
        if (!s.isOpen()) {
            return; // the requests queued behind a closed connection: the next one asks again
        }
        if (!ParentCommandDispatcher.holdBackWhileHalfFull(s)) {
            return;
        }
        int chartId = chart.chartId();
        if (!firstCollectionDone(s, chartId)) {
            return;
        }
        for (int attempt = 1; ; attempt++) {
            // the collector stores a point, then hands its pass to collected(): a pass stored after
            // the engine was read but handed over before streaming starts would be in neither the
            // answer nor the stream. So streaming starts (under this lock, which collected() takes)
            // only if no collection was stored since the answer read the chart's state; then a
            // collection already in the answer is not streamed again, and every later one is.
            // The answer reads the state between two collections, never during one: a collection
            // moves the chart's last collected time first and stores its points and last stored
            // time after, and an answer that read that half state handed the parent a last
            // collected time a second past its last stored one (its next slot was interpolated
            // with a negative, unsigned, time: 1e14 for a gauge of 800) and skipped the collection
            // as answered while it was in neither the answer nor the stream.
            long version = collectionIdle(chartId);
            long seen = charts.chartLastCollectedUt(chartId);
            ByteBuf out = ByteBufAllocator.DEFAULT.buffer(4096);
            boolean streams;
            try {
                streams = replay.write(out, chartId, start, after, before, clock.millis() / 1000, charts, caps);
            } catch (IOException e) {
                out.release();
                LOG.warn("STREAM {}: cannot answer REPLAY_CHART for '{}': {}", charts.host().hostname(), id,
                        e.getMessage());
                return;
            }
            synchronized (this) {
                if (streams && !charts.collectionUnchangedSince(chartId, version) && attempt < ANSWER_ATTEMPTS) {
                    out.release();
                    continue;
                }
                if (s.writeAnswer(out) && streams) {
                    streamingStarts(chartId, seen);
                }
            }
            return;
        }
    }

    /**
     * Waits (bounded) until the chart was collected once. A chart is defined here at start, before
     * its first collection; an answer before it hands over no collection state ({@code RSSTATE 0 0}),
     * and the parent then places the chart's first live collection with its own clock and follows
     * it, while this child stamps its samples with its own: a child whose clock is off had its live
     * samples stored at the parent's seconds and its replayed ones at its own (docs/chaos.md). A
     * 1.37.1 child defines a chart at its first collection, so its answers always carry its times.
     * False when the thread was interrupted or the connection closed (the answer is abandoned);
     * past the bound (a chart that is not collected; one bound per connection, from its first
     * wait), the answer goes out as it is.
     */
    private boolean firstCollectionDone(SenderSession s, int chartId) {
        if (charts.chartLastCollectedUt(chartId) != 0) {
            return true;
        }
        ChartInfo info = charts.engine().metadata().chart(chartId);
        long updateEvery = info == null ? 1 : Math.max(1, info.updateEvery());
        long deadline = firstCollectionWaitUntil;
        if (deadline == 0) {
            deadline = System.nanoTime() + (2 * updateEvery + 1) * 1_000_000_000L;
            firstCollectionWaitUntil = deadline;
        }
        while (charts.chartLastCollectedUt(chartId) == 0 && System.nanoTime() - deadline < 0) {
            if (!s.isOpen() || !ParentCommandDispatcher.sleep(10)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Waits until no collection of the chart is under way (a collection takes microseconds; a
     * collecting thread descheduled midway, seconds at most) and returns its collection version;
     * past {@link #COLLECTION_WAIT_NANOS} it returns the odd version, which the answer's check
     * never finds unchanged (the answer is computed again).
     */
    private long collectionIdle(int chartId) {
        long deadline = System.nanoTime() + COLLECTION_WAIT_NANOS;
        long v = charts.collectionVersion(chartId);
        // an interrupted sender thread (closing) stops waiting: park would return at once
        while ((v & 1) != 0 && System.nanoTime() - deadline < 0 && !Thread.currentThread().isInterrupted()) {
            LockSupport.parkNanos(100_000L);
            v = charts.collectionVersion(chartId);
        }
        return v;
    }

    /** How long an answer waits for a collection under way to end before it reads the chart. */
    private static final long COLLECTION_WAIT_NANOS = 5_000_000_000L;

    @Override
    public synchronized void onDisconnected(String reason) {
        session = null;
        streaming = new AtomicIntegerArray(0);
        answeredUpTo = new long[0];
        streamedUpTo = new long[0];
    }

    @Override
    public synchronized void collected(List<LocalCharts.Chart> pass) {
        SenderSession s = session;
        if (s == null || !s.isOpen()) {
            return;
        }
        ByteBuf out = null;
        for (LocalCharts.Chart c : pass) {
            if (!stream.isDefined(c.chartId())) {
                // a chart that appeared after the connection (a new disk, a new meter): define it
                // now; with replication the parent asks for its history and then it streams
                if (!sendCharts.matches(c.id())) {
                    continue;
                }
                if (out == null) {
                    out = ByteBufAllocator.DEFAULT.buffer(16 * 1024);
                }
                stream.writeChartDefinition(out, c.chartId(), caps, clock.millis() / 1000);
                if (!Capabilities.has(caps, Capabilities.REPLICATION)) {
                    streamingStarts(c.chartId(), 0);
                }
            }
            AtomicIntegerArray flags = streaming;
            if (c.chartId() >= flags.length() || flags.get(c.chartId()) == 0) {
                continue;
            }
            if (c.chartId() < answeredUpTo.length
                    && charts.chartLastCollectedUt(c.chartId()) <= answeredUpTo[c.chartId()]) {
                continue; // this collection is in the answer that started the chart's streaming
            }
            if (c.refused()) {
                // this node's engine holds other values for these seconds (an earlier life's, its
                // clock ahead): a parent lacking them would store this collection's instead
                continue;
            }
            if (out == null) {
                out = ByteBufAllocator.DEFAULT.buffer(16 * 1024);
            }
            long collectedUt = charts.chartLastCollectedUt(c.chartId());
            if (Capabilities.has(caps, Capabilities.INTERPOLATED)) {
                // what this collection stored, as stored: the parent does not interpolate again
                stream.writeInterpolated(out, c.chartId(), caps, clock.millis() / 1000, c.collected(), c.stored());
            } else {
                long since = c.chartId() < streamedUpTo.length ? streamedUpTo[c.chartId()] : 0;
                long micros = since != 0 && collectedUt > since ? collectedUt - since
                        : c.microsecondsSinceLastCollection();
                stream.writeCollection(out, c.chartId(), micros, c.collected(), c.updated());
            }
            if (c.chartId() < streamedUpTo.length) {
                streamedUpTo[c.chartId()] = collectedUt;
            }
        }
        if (out != null) {
            s.write(out);
        }
    }

    @Override
    public void close() {
        sender.close();
    }
}
