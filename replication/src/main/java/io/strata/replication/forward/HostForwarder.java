package io.strata.replication.forward;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.ChartInfo;
import io.strata.replication.child.LocalHostStreamer;
import io.strata.replication.sender.ParentCommandDispatcher;
import io.strata.replication.sender.ReplayAnswer;
import io.strata.engine.netdata.SimplePattern;
import io.strata.streaming.auth.StreamConfig;
import io.strata.streaming.handshake.Capabilities;
import io.strata.streaming.handshake.StreamRequest;
import io.strata.streaming.receiver.ReceivedStreamListener;
import io.strata.streaming.sender.HostStreamWriter;
import io.strata.streaming.sender.Handshake;
import io.strata.streaming.sender.SenderListener;
import io.strata.streaming.sender.SenderSession;
import io.strata.streaming.sender.StreamSender;
import io.netty.channel.EventLoopGroup;
import io.strata.engine.log.InternalErrorLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Clock;
import java.util.Arrays;
import java.util.BitSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.Callable;
import java.util.concurrent.RejectedExecutionException;

/**
 * Forwards one received host to this parent's own parents, as a Netdata 1.37.1 proxy does
 * (docs/protocol/netdata-stream.md §9): the host's own request with the proxy key and {@code hops + 1}, its
 * labels and chart definitions from the engine, every live collection as it is stored here, and
 * {@code REPLAY_CHART} answered from this parent's engine so that a grand-parent (or a peer of a
 * cluster coming back) fills its gaps from here.
 *
 * <p>Threads: what is sent on the forwarding connection is written on the received stream's event
 * loop only (collections, definitions, and the commit of a replication answer), so that the
 * live data of a chart and its replication answer cannot interleave; the sender's own thread reads
 * the engine for replication answers (disk I/O) and hands the result to the event loop.
 */
final class HostForwarder implements SenderListener, ReceivedStreamListener.Observer,
        ParentCommandDispatcher.Target {

    private static final Logger LOG = LoggerFactory.getLogger(HostForwarder.class);
    /** A bug met by every collection writes a few lines a minute, not one per chart a second. */
    private static final InternalErrorLog INTERNAL_ERRORS = InternalErrorLog.of(LOG);
    /** How long a grand-parent's request waits for this parent's own replication of the chart. */
    private static final long WAIT_FOR_OWN_REPLICATION_MILLIS = TimeUnit.MINUTES.toMillis(10);
    /** Attempts at a replication answer that collections keep overtaking before it is computed on the loop. */
    private static final int REPLAY_ATTEMPTS = 3;

    private final ReceivedStreamListener.ReceivedStream stream;
    private final StorageEngine engine;
    private final Forwarding owner;
    private final String hostname;
    private final HostStreamWriter wire;
    private final ReplayAnswer replay;
    private final ParentCommandDispatcher commands;
    private final StreamSender sender;
    private final SimplePattern sendCharts;
    private final Clock clock;

    // ---- event loop only
    private boolean started;
    private SenderSession session;
    private long caps;
    private final BitSet streaming = new BitSet();
    /** Charts checked against {@code proxy send charts matching}, and the ones it excludes. */
    private final BitSet matched = new BitSet();
    private final BitSet excluded = new BitSet();
    private ByteBuf pending;
    private long[] scratchValues = new long[0];
    private boolean[] scratchUpdated = new boolean[0];

    private volatile boolean closed;

    HostForwarder(ReceivedStreamListener.ReceivedStream stream, StorageEngine engine,
                  StreamConfig.SenderSettings template, EventLoopGroup group, Forwarding owner, Clock clock) {
        this.stream = stream;
        this.engine = engine;
        this.owner = owner;
        this.clock = clock;
        StreamRequest received = stream.request();
        this.hostname = received.hostname();
        this.wire = new HostStreamWriter(engine, stream.machineGuid(), null, HostStreamWriter.LabelSources.NETDATA, c -> 0,
                () -> clock.millis() / 1000, HostStreamWriter.DEFAULT_CLOCK_RESYNC_ITERATIONS);
        this.replay = new ReplayAnswer(wire, hostname + " [forward]");
        this.commands = new ParentCommandDispatcher(hostname + " [forward]", this);
        var settings = stream.settings();
        this.sendCharts = SimplePattern.parse(settings.proxySendChartsMatching());
        long offered = template.enableCompression() ? LocalHostStreamer.CHILD_CAPABILITIES
                : LocalHostStreamer.CHILD_CAPABILITIES & ~Capabilities.COMPRESSIONS;
        byte[] request = received.toBuilder().key(settings.proxyApiKey()).hops(received.hops() + 1).ver(offered)
                .build().encode();
        this.sender = StreamSender.fromSettings(hostname + " (forwarded)", template, settings.proxyDestination(),
                Handshake.netdata(d -> request), this, group).withStreamInfo(stream.machineGuid().toString());
    }

    // ---- the received stream (event loop) -------------------------------------------------------

    @Override
    public void chartDefined(int chartId) {
        if (session != null) {
            // redefined: the parent gets the new definition with the chart's next data
            wire.forgetDefinition(chartId);
            streaming.clear(chartId);
            if (chartId < forwardedUpTo.length) {
                forwardedUpTo[chartId] = 0;
            }
        }
        matched.clear(chartId);
    }

    @Override
    public void chartCollected(int chartId) {
        if (closed) {
            return;
        }
        if (!started) {
            // as Netdata, the proxy's sender starts with the host's first collected chart: by
            // then its labels are in, and its charts' own replication has begun
            started = true;
            sender.start();
        }
        SenderSession s = session;
        if (s == null || !included(chartId)) {
            return;
        }
        try {
            if (!wire.isDefined(chartId)) {
                define(chartId, clock.millis() / 1000);
            }
            if (streaming.get(chartId)) {
                writeCollection(chartId);
            }
        } catch (RuntimeException e) {
            INTERNAL_ERRORS.error("forwarding a chart", "STREAM " + hostname + " [forward]: cannot forward chart " + chartId
                    + "; the host is still stored here", e);
        }
    }

    @Override
    public void readComplete() {
        flushPending();
    }

    @Override
    public void closed(String reason) {
        closed = true;
        if (pending != null) {
            pending.release();
            pending = null;
        }
        session = null;
        owner.retire(this, reason);
    }

    private boolean included(int chartId) {
        if (!matched.get(chartId)) {
            matched.set(chartId);
            ChartInfo c = engine.metadata().chart(chartId);
            if (!sendCharts.matches(c.id())) {
                excluded.set(chartId);
            } else {
                excluded.clear(chartId);
            }
        }
        return !excluded.get(chartId);
    }

    private ByteBuf pending() {
        if (pending == null) {
            pending = ByteBufAllocator.DEFAULT.buffer(16 * 1024);
        }
        return pending;
    }

    private void flushPending() {
        ByteBuf p = pending;
        if (p == null) {
            return;
        }
        pending = null;
        SenderSession s = session;
        if (s == null || !p.isReadable()) {
            p.release();
        } else {
            s.write(p);
        }
    }

    private void define(int chartId, long nowSeconds) {
        wire.writeChartDefinition(pending(), chartId, caps, nowSeconds);
        if (!Capabilities.has(caps, Capabilities.REPLICATION)) {
            streaming.set(chartId);
        }
    }

    /**
     * Per chart, the chart's last collected time (µs) the next parent's timeline is at: that of
     * the replication answer that started its streaming, then of the last collection forwarded. A
     * forwarded {@code BEGIN} carries the time since then, so that collections not forwarded
     * (refused by this parent's engine) add their time to the next one forwarded. 0: not known.
     */
    private long[] forwardedUpTo = new long[0];

    private void forwardedUpTo(int chartId, long collectedUt) {
        if (chartId >= forwardedUpTo.length) {
            forwardedUpTo = Arrays.copyOf(forwardedUpTo, Math.max(chartId + 1, forwardedUpTo.length * 2));
        }
        forwardedUpTo[chartId] = collectedUt;
    }

    private void writeCollection(int chartId) {
        if (stream.lastCollectionRefused(chartId)) {
            // this parent holds other values for these seconds: a parent lacking them would store these
            return;
        }
        // a copy per collection: the wire's order may change with a redefinition on another thread
        int[] metrics = wire.definedMetrics(chartId);
        int n = metrics.length;
        if (scratchValues.length < n) {
            scratchValues = new long[n];
            scratchUpdated = new boolean[n];
        }
        stream.collectedValues(chartId, metrics, scratchValues, scratchUpdated);
        if (Capabilities.has(caps, Capabilities.INTERPOLATED)) {
            // what was stored here, as stored: the next parent does not interpolate again
            wire.writeInterpolated(pending(), chartId, caps, clock.millis() / 1000, scratchValues,
                    stream.storedPoints(chartId));
        } else {
            long collectedUt = stream.chartLastCollectedUt(chartId);
            long since = chartId < forwardedUpTo.length ? forwardedUpTo[chartId] : 0;
            long micros = since != 0 && collectedUt > since ? collectedUt - since
                    : stream.microsecondsSinceLastCollection(chartId);
            wire.writeCollection(pending(), chartId, micros, scratchValues, scratchUpdated);
        }
        forwardedUpTo(chartId, stream.chartLastCollectedUt(chartId));
    }

    // ---- the forwarding connection (sender thread) ----------------------------------------------

    @Override
    public void onConnected(SenderSession s, long capabilities) {
        onLoop(() -> {
            if (pending != null) {
                pending.release();
                pending = null;
            }
            if (closed) {
                return null;
            }
            session = s;
            caps = capabilities;
            streaming.clear();
            forwardedUpTo = new long[0];
            wire.forgetDefinitions();
            ByteBuf out = pending();
            wire.writeHostPreamble(out, capabilities);
            long now = clock.millis() / 1000;
            for (int chartId : stream.chartIds()) {
                // a chart still replicating from the child is defined with its first live data
                if (chartId >= 0 && included(chartId) && !stream.replicating(chartId)
                        && stream.collections(chartId) > 0) {
                    define(chartId, now);
                }
            }
            flushPending();
            return null;
        });
    }

    @Override
    public void onParentCommand(SenderSession s, byte[] line, int length) {
        commands.dispatch(s, line, length);
    }

    @Override
    public void answer(SenderSession s, ByteBuf out) {
        onLoop(() -> {
            if (session == s) {
                flushPending();
                s.write(out);
            } else {
                out.release();
            }
            return null;
        });
    }

    @Override
    public void replayChart(SenderSession s, String id, boolean start, long after, long before) {
        int chartId = engine.metadata().chartId(stream.machineGuid(), id);
        if (chartId < 0) {
            LOG.warn("STREAM {} [forward]: REPLAY_CHART for unknown chart '{}'", hostname, id);
            return;
        }
        // this parent may itself still be filling the chart from the child: answer once it has
        long deadline = clock.millis() + WAIT_FOR_OWN_REPLICATION_MILLIS;
        while (stream.replicating(chartId) && s.isOpen() && !closed && clock.millis() < deadline) {
            if (!ParentCommandDispatcher.sleep(100)) {
                return;
            }
        }
        if (!ParentCommandDispatcher.holdBackWhileHalfFull(s)) {
            return;
        }
        for (int attempt = 1; attempt <= REPLAY_ATTEMPTS && s.isOpen() && !closed; attempt++) {
            StateSnapshot state = onLoop(() -> session == s && wire.isDefined(chartId) ? snapshot(chartId) : null);
            if (state == null) {
                return; // another connection, or the chart was redefined: the parent asks again
            }
            ByteBuf out = ByteBufAllocator.DEFAULT.buffer(4096);
            boolean streams;
            // The last attempt never starts streaming: it answers as of a second ago, which ReplayAnswer
            // treats as a clock that moved on while answering (REND ... false, the parent asks again from
            // where the answer ended). An answer that does not start streaming is sent whatever landed
            // meanwhile. Dropping it instead left the parent waiting for a REND that never came: the
            // chart's replication, and its live data on the next parent, stopped for good (a day-long
            // refill under load lost 6 charts of 200 so).
            long answerSecond = clock.millis() / 1000 - (attempt < REPLAY_ATTEMPTS ? 0 : 1);
            try {
                streams = replay.write(out, chartId, start, after, before, answerSecond, state, caps);
            } catch (IOException | RuntimeException e) {
                out.release();
                LOG.warn("STREAM {} [forward]: cannot answer REPLAY_CHART for '{}': {}", hostname, id, e.toString());
                return;
            }
            Boolean committed = onLoop(() -> {
                if (session != s || !wire.isDefined(chartId)) {
                    out.release();
                    return Boolean.TRUE; // nothing to retry on this connection
                }
                if (streams && stream.collections(chartId) != state.collections) {
                    // a collection landed while the engine was read: where live data takes over from this
                    // answer is no longer its end; read again. An answer that does not start streaming
                    // holds stored points only (no collection state), which a later collection leaves as
                    // they are, and goes out as read
                    out.release();
                    return Boolean.FALSE;
                }
                flushPending();
                s.writeAnswer(out);
                if (streams) {
                    streaming.set(chartId);
                    forwardedUpTo(chartId, stream.chartLastCollectedUt(chartId));
                }
                return Boolean.TRUE;
            });
            if (committed == null || committed) {
                return;
            }
        }
    }

    /** The chart's collection state as of now, on the event loop, for the answer being computed. */
    private StateSnapshot snapshot(int chartId) {
        int[] metrics = wire.definedMetrics(chartId);
        StateSnapshot st = new StateSnapshot(chartId, metrics.length, stream.collections(chartId),
                stream.chartLastCollectedUt(chartId), stream.chartLastUpdatedUt(chartId));
        for (int i = 0; i < metrics.length; i++) {
            st.lastCollectedUt[i] = stream.lastCollectedUt(chartId, metrics[i]);
            st.lastCollectedValue[i] = stream.lastCollectedValue(chartId, metrics[i]);
            st.lastCalculatedValue[i] = stream.lastCalculatedValue(chartId, metrics[i]);
            st.lastStoredValue[i] = stream.lastStoredValue(chartId, metrics[i]);
        }
        return st;
    }

    @Override
    public void onDisconnected(String reason) {
        onLoop(() -> {
            session = null;
            streaming.clear();
            forwardedUpTo = new long[0];
            if (pending != null) {
                pending.release();
                pending = null;
            }
            return null;
        });
    }

    /** Runs on the received stream's event loop and waits; null when the loop is gone or we were interrupted. */
    private <T> T onLoop(Callable<T> task) {
        try {
            return stream.eventLoop().submit(task).get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (ExecutionException e) {
            INTERNAL_ERRORS.error("forwarding", "STREAM " + hostname + " [forward]: internal error", e.getCause());
            return null;
        } catch (TimeoutException | RejectedExecutionException e) {
            return null;
        }
    }

    /** Stops the forwarding connection; blocks up to ~10 s: not on an event loop. */
    void stop() {
        closed = true;
        sender.close();
    }

    String hostname() {
        return hostname;
    }

    String machineGuid() {
        return stream.machineGuid().toString();
    }

    StreamSender sender() {
        return sender;
    }

    /** The chart's collection state frozen on the event loop, indexed as the chart's wire. */
    private static final class StateSnapshot implements HostStreamWriter.CollectionState {
        final int chartId;
        final long collections;
        final long chartLastCollectedUt;
        final long chartLastUpdatedUt;
        final long[] lastCollectedUt;
        final long[] lastCollectedValue;
        final double[] lastCalculatedValue;
        final double[] lastStoredValue;

        StateSnapshot(int chartId, int n, long collections, long chartLastCollectedUt, long chartLastUpdatedUt) {
            this.chartId = chartId;
            this.collections = collections;
            this.chartLastCollectedUt = chartLastCollectedUt;
            this.chartLastUpdatedUt = chartLastUpdatedUt;
            this.lastCollectedUt = new long[n];
            this.lastCollectedValue = new long[n];
            this.lastCalculatedValue = new double[n];
            this.lastStoredValue = new double[n];
        }

        @Override
        public long lastCollectedUt(int chartId, int dimIndex) {
            return dimIndex < lastCollectedUt.length ? lastCollectedUt[dimIndex] : 0;
        }

        @Override
        public long lastCollectedValue(int chartId, int dimIndex) {
            return dimIndex < lastCollectedValue.length ? lastCollectedValue[dimIndex] : 0;
        }

        @Override
        public double lastCalculatedValue(int chartId, int dimIndex) {
            return dimIndex < lastCalculatedValue.length ? lastCalculatedValue[dimIndex] : 0;
        }

        @Override
        public double lastStoredValue(int chartId, int dimIndex) {
            return dimIndex < lastStoredValue.length ? lastStoredValue[dimIndex] : 0;
        }

        @Override
        public long chartLastCollectedUt(int chartId) {
            return chartLastCollectedUt;
        }

        @Override
        public long chartLastUpdatedUt(int chartId) {
            return chartLastUpdatedUt;
        }
    }
}
