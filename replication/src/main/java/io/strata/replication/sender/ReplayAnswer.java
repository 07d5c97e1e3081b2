package io.strata.replication.sender;

import io.netty.buffer.ByteBuf;
import io.strata.engine.StorageEngine;
import io.strata.engine.log.RepeatedFailureLog;
import io.strata.engine.page.StorageNumber;
import io.strata.streaming.handshake.Capabilities;
import io.strata.streaming.sender.HostStreamWriter;
import io.strata.streaming.sender.SenderWireFormat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A sender's answer to {@code REPLAY_CHART}: the stored points of a chart from the local engine,
 * written with the ids of the chart's definition on a {@link HostStreamWriter} (a child answering for
 * its own host, or a parent forwarding a received host). One per {@link HostStreamWriter}; answers may
 * run concurrently on any thread but the event loop (they read the engine: disk I/O).
 */
public final class ReplayAnswer {

    private static final Logger LOG = LoggerFactory.getLogger(ReplayAnswer.class);

    /** At most one line a minute about an engine that cannot be read (one a host), then a count. */
    private static final long READ_FAILURE_SUMMARY_MILLIS = 60_000;

    /** Tolerance, in seconds, for a database time in the future (the C sender's {@code tolerance}). */
    private static final long FUTURE_TOLERANCE_SECONDS = 2;

    private final HostStreamWriter wire;
    private final StorageEngine engine;
    /** How the log names the stream ({@code host} or {@code host [forward]}). */
    private final String logName;
    private final RepeatedFailureLog readFailures;
    /** Guarded by this: the cursors of the last answer, reused by the next one. */
    private DimensionCursor[] spareCursors;

    /** Answers whose log lines name the host by its machine GUID. */
    public ReplayAnswer(HostStreamWriter wire) {
        this(wire, wire.hostGuid().toString());
    }

    /** @param logName how log lines name the stream ({@code host} or {@code host [forward]}) */
    public ReplayAnswer(HostStreamWriter wire, String logName) {
        this.wire = wire;
        this.engine = wire.engine();
        this.logName = logName;
        this.readFailures = new RepeatedFailureLog(RepeatedFailureLog.forWarn(LOG), READ_FAILURE_SUMMARY_MILLIS,
                () -> wire.wallClockSeconds() * 1000);
    }

    /**
     * Answers {@code REPLAY_CHART "<id>" "<start>" <after> <before>} from the engine, as the 1.37.1
     * sender's {@code replicate_chart_response} does (§6.1, §6.3): the window is clamped to the
     * chart's retention, extended to its latest point when the parent asks to start streaming;
     * every point in (after, before] is an {@code RBEGIN ''} with one {@code RSET} per dimension
     * (tier-0 stored values); when streaming starts, {@code RDSTATE}/{@code RSSTATE} from
     * {@code state}; then {@code REND}. If the wall clock moved past {@code nowSeconds} while
     * answering, streaming is not started (the parent asks again).
     *
     * <p>Stored points the engine cannot read (a disk error, a closed engine) are answered as
     * points it does not hold, as 1.37.1 answers a window its storage yields nothing for: the
     * answer still ends with {@code REND}, and starts streaming when it would have. A 1.37.1 parent
     * waits for the answer to every {@code REPLAY_CHART} and takes no live data of the chart
     * before it, so an answer left out stopped the chart on the parent for the whole connection.
     * The failure is logged at WARN, once a minute at most for a host. A page the engine cannot
     * read (the disk fails its extent's read, or its checksum) costs the answer that page's slots
     * only: the engine skips it, counts and logs it, and goes on with the next page, so every
     * readable point of the range is sent; a read the engine gives up (a closed engine, an
     * interrupted reader) leaves the rest of that read's window out.
     *
     * @return whether the child resumes BEGIN/SET/END for the chart ({@code REND ... true})
     * @throws IOException never for the engine's reads (see above); nothing is left in {@code out} on a failure
     */
    public boolean write(ByteBuf out, int chartId, boolean startStreaming, long after, long before,
                         long nowSeconds, HostStreamWriter.CollectionState state) throws IOException {
        return write(out, chartId, startStreaming, after, before, nowSeconds, state, 0);
    }

    /**
     * {@link #write(ByteBuf, int, boolean, long, long, long, HostStreamWriter.CollectionState)} on a
     * connection that negotiated {@code caps}: with IEEE754 the numbers of RBEGIN, RSET, RDSTATE,
     * RSSTATE and REND are in base64 ({@code #} integers, {@code @} doubles) and RSET's flags are
     * unquoted with the anomaly bit, as 2.x writes them.
     */
    public boolean write(ByteBuf out, int chartId, boolean startStreaming, long after, long before,
                         long nowSeconds, HostStreamWriter.CollectionState state, long caps) throws IOException {
        HostStreamWriter.ChartDimensions w = wire.dimensionsForReplay(chartId);
        int start = out.writerIndex();
        boolean ieee754 = Capabilities.has(caps, Capabilities.IEEE754);
        try {
            return replay(out, chartId, w, startStreaming, after, before, nowSeconds, state, ieee754);
        } catch (IOException | RuntimeException e) {
            out.writerIndex(start);
            throw e;
        }
    }

    private boolean replay(ByteBuf out, int chartId, HostStreamWriter.ChartDimensions w, boolean startStreaming,
                           long after, long before, long now, HostStreamWriter.CollectionState state,
                           boolean ieee754) throws IOException {
        long[] range = wire.tier0Range(w.metrics());
        long firstLocal = range[0];
        if (firstLocal > now + FUTURE_TOLERANCE_SECONDS) {
            firstLocal = now;
        }
        // (after, before]: a parent asking from before our first point gets that point too (1.37.1
        // clamps to the first point itself and so never sends it)
        long queryAfter = Math.max(after, firstLocal - 1);

        long lastUpdated = state.chartLastUpdatedUt(chartId) / 1_000_000L;
        long lastLocal = lastUpdated;
        if (lastLocal == 0) {
            lastLocal = range[1];
            if (lastLocal == 0) {
                lastLocal = now;
            }
        }
        if (lastLocal > now + FUTURE_TOLERANCE_SECONDS) {
            lastLocal = now;
        }
        long queryBefore = Math.min(before, lastLocal);
        if (startStreaming) {
            queryBefore = lastLocal;
        }
        if (queryAfter > queryBefore) {
            long t = queryBefore;
            queryBefore = queryAfter;
            queryAfter = t;
        }
        boolean enableStreaming = startStreaming || queryBefore == lastLocal || after == 0 || before == 0;

        SenderWireFormat.replayBegin(out, w.chartIdUtf8());
        int pointsStart = out.writerIndex();
        long answeredAfter = after;
        long answeredBefore;
        if (after != 0 && before != 0) {
            answeredBefore = replayPoints(out, w, queryAfter, queryBefore, enableStreaming, lastUpdated, now,
                    ieee754);
        } else {
            answeredAfter = 0;
            answeredBefore = 0;
            enableStreaming = true;
            // "0 0": nothing to replicate, start streaming. But the chart's live data was withheld
            // since its definition, and a parent asks "0 0" when that definition reported no data
            // (a connection that came up before the chart's first point was stored): what was
            // collected since is in neither the answer nor the stream unless it is sent here
            // (1.37.1 sends nothing and loses it). A parent that holds some of it already keeps
            // its own (a point at or before a metric's last stored second is refused).
            long withheldAfter = Math.max(w.definedLast(), firstLocal - 1);
            if (firstLocal > 0 && range[1] > w.definedLast() && withheldAfter < lastLocal) {
                answeredBefore = replayPoints(out, w, withheldAfter, lastLocal, true, lastUpdated, now, ieee754);
            }
        }

        long worldClock = wire.wallClockSeconds();
        if (enableStreaming) {
            if (now < worldClock) {
                // answering took us past a second: points collected meanwhile are in neither
                // this answer nor the stream, so the parent must ask again
                enableStreaming = false;
            } else {
                if (answeredAfter == 0 && out.writerIndex() == pointsStart && lastUpdated > w.updateEvery()
                        && lastUpdated <= worldClock) {
                    // "0 0" answered without a point: a 2.x parent applies RDSTATE/RSSTATE only after
                    // a timestamped RBEGIN (pluginsd_replication.c, rset_enabled); without one it
                    // drops the state, takes the next live collection for the chart's first entry
                    // (not stored) and interpolates from its own clock. One RBEGIN without RSET at
                    // the last update keeps it; nothing is stored for it (docs/replication.md). Not when
                    // the last update is ahead of this clock (a clock set back since): every parent
                    // refuses a point past the sender's wall clock
                    SenderWireFormat.replayPoint(out, lastUpdated - w.updateEvery(), lastUpdated, worldClock);
                }
                for (int i = 0; i < w.metrics().length; i++) {
                    if (ieee754) {
                        SenderWireFormat.replayDimensionStateIeee754(out, w.dimensionIdsUtf8()[i],
                                state.lastCollectedUt(chartId, i), state.lastCollectedValue(chartId, i),
                                state.lastCalculatedValue(chartId, i), state.lastStoredValue(chartId, i));
                    } else {
                        SenderWireFormat.replayDimensionState(out, w.dimensionIdsUtf8()[i],
                                state.lastCollectedUt(chartId, i), state.lastCollectedValue(chartId, i),
                                state.lastCalculatedValue(chartId, i), state.lastStoredValue(chartId, i));
                    }
                }
                if (ieee754) {
                    SenderWireFormat.replayChartStateIeee754(out, state.chartLastCollectedUt(chartId),
                            state.chartLastUpdatedUt(chartId));
                } else {
                    SenderWireFormat.replayChartState(out, state.chartLastCollectedUt(chartId),
                            state.chartLastUpdatedUt(chartId));
                }
            }
        }
        if (ieee754) {
            SenderWireFormat.replayEndIeee754(out, w.updateEvery(), firstLocal, lastLocal, enableStreaming,
                    answeredAfter, answeredBefore, worldClock);
        } else {
            SenderWireFormat.replayEnd(out, w.updateEvery(), firstLocal, lastLocal, enableStreaming, answeredAfter,
                    answeredBefore, worldClock);
        }
        return enableStreaming;
    }

    /**
     * The points in (after, before], merged across dimensions the way the C sender merges its
     * per-dimension storage queries: each step emits the earliest point end among the dimensions;
     * a dimension whose current point covers that time sends it, the others send {@code NAN "E"}.
     * Returns the {@code before} actually used.
     */
    private long replayPoints(ByteBuf out, HostStreamWriter.ChartDimensions w, long after, long before, boolean enableStreaming,
                              long lastUpdatedSeconds, long wallClock, boolean ieee754) throws IOException {
        if (enableStreaming && lastUpdatedSeconds > before) {
            before = lastUpdatedSeconds;
        }
        int ue = w.updateEvery();
        int n = w.metrics().length;
        long pointsAsked = Math.min((before - after) / Math.max(1, ue) + 1, 86_400L);
        // sized for the window or the request, whichever is smaller, and kept for the next answer
        int capacity = (int) Math.min(DimensionCursor.WINDOW_POINTS + 1, pointsAsked + 1);
        DimensionCursor[] cursors = takeCursors(n);
        for (int i = 0; i < n; i++) {
            if (cursors[i] == null) {
                cursors[i] = new DimensionCursor(engine);
            }
            cursors[i].start(w.metrics()[i], after, before, ue, capacity);
        }
        try {
            long answered = replayPoints(out, w, after, before, wallClock, ue, n, pointsAsked, cursors, ieee754);
            Exception failure = null;
            for (int i = 0; i < n && failure == null; i++) {
                failure = cursors[i].readFailure;
            }
            String key = "REPLAY_CHART " + logName;
            if (failure != null) {
                readFailures.failed(key, "STREAM " + logName + ": REPLAY_CHART for '"
                        + new String(w.chartIdUtf8(), StandardCharsets.UTF_8) + "': the engine could not read stored"
                        + " points in (" + after + ", " + before + "], answered without them: " + failure);
            } else {
                readFailures.recovered(key, "the engine answers REPLAY_CHART again");
            }
            return answered;
        } finally {
            returnCursors(cursors);
        }
    }

    /** The cursors of the previous answer (their arrays are what costs), or fresh slots; concurrent answers get their own. */
    private synchronized DimensionCursor[] takeCursors(int n) {
        DimensionCursor[] spare = spareCursors;
        spareCursors = null;
        if (spare == null) {
            return new DimensionCursor[n];
        }
        return spare.length >= n ? spare : Arrays.copyOf(spare, n);
    }

    private synchronized void returnCursors(DimensionCursor[] cursors) {
        if (spareCursors == null || spareCursors.length < cursors.length) {
            spareCursors = cursors;
        }
    }

    private long replayPoints(ByteBuf out, HostStreamWriter.ChartDimensions w, long after, long before, long wallClock,
                              int ue, int n, long pointsAsked, DimensionCursor[] cursors, boolean ieee754)
            throws IOException {
        int maxIdBytes = 0;
        for (byte[] id : w.dimensionIdsUtf8()) {
            maxIdBytes = Math.max(maxIdBytes, id.length);
        }
        // one growth of the buffer instead of a doubling every few points
        out.ensureWritable((int) Math.min(pointsAsked * (40L + n * (30L + maxIdBytes)), 64L << 20));
        ReplayPointWriter points = new ReplayPointWriter();
        long now = after + 1;
        while (now <= before) {
            long minStart = 0;
            long minEnd = 0;
            for (int i = 0; i < n; i++) {
                DimensionCursor c = cursors[i];
                c.advanceTo(now);
                if (!c.loaded || c.end < now) {
                    continue;
                }
                long start = c.end - ue;
                if (minStart == 0) {
                    minStart = start;
                    minEnd = c.end;
                } else {
                    minStart = Math.min(minStart, start);
                    minEnd = Math.min(minEnd, c.end);
                }
            }
            if (minStart > wallClock + 1 || minEnd > wallClock + ue + 1) {
                break;
            }
            if (minEnd < now) {
                break;
            }
            if (minEnd <= minStart) {
                minStart = minEnd - ue;
            }
            if (ieee754) {
                SenderWireFormat.replayPointIeee754(out, minStart, minEnd, wallClock);
                for (int i = 0; i < n; i++) {
                    DimensionCursor c = cursors[i];
                    int sn = c.storageNumber;
                    boolean has = c.loaded && c.end - ue <= minEnd && c.end >= minEnd && !StorageNumber.isEmpty(sn);
                    SenderWireFormat.replaySetIeee754(out, w.dimensionIdsUtf8()[i], has ? StorageNumber.unpack(sn) : 0,
                            sn & StorageNumber.SN_USER_FLAGS, !has);
                }
            } else {
                points.begin(minStart, minEnd, wallClock, n, maxIdBytes);
                for (int i = 0; i < n; i++) {
                    DimensionCursor c = cursors[i];
                    if (c.loaded && c.end - ue <= minEnd && c.end >= minEnd) {
                        points.set(out, w.dimensionIdsUtf8()[i], c.storageNumber);
                    } else {
                        points.empty(w.dimensionIdsUtf8()[i]);
                    }
                }
                points.drainTo(out);
            }
            now = minEnd + 1;
        }
        return before;
    }

    /**
     * Walks one dimension's tier-0 points in windows of {@value #WINDOW_POINTS} points, so that a
     * long request never holds more than one window per dimension in memory.
     */
    private static final class DimensionCursor implements StorageEngine.Tier0RunConsumer {
        static final int WINDOW_POINTS = 1024;

        private final StorageEngine engine;
        private int metric;
        private long until;
        private long windowSeconds;
        private long nextFrom;
        private long[] times = new long[0];
        private int[] storageNumbers = new int[0];
        private int count;
        private int position;

        boolean loaded;
        long end;
        int storageNumber;
        /** The first read of this answer the engine failed (its window is answered as empty), or null. */
        Exception readFailure;

        DimensionCursor(StorageEngine engine) {
            this.engine = engine;
        }

        /** Positions the cursor before the points of {@code metric} in (from, until]. */
        void start(int metric, long from, long until, int updateEvery, int capacity) {
            if (times.length < capacity) {
                times = new long[capacity];
                storageNumbers = new int[capacity];
            }
            this.metric = metric;
            this.until = until;
            this.windowSeconds = (long) WINDOW_POINTS * updateEvery;
            this.nextFrom = from;
            this.count = 0;
            this.position = 0;
            this.loaded = false;
            this.end = 0;
            this.storageNumber = 0;
            this.readFailure = null;
        }

        @Override
        public void points(int[] sns, int from, int to, long firstTime, long step) {
            int n = to - from;
            if (count + n > times.length) {
                int size = Math.max(count + n, times.length * 2);
                times = Arrays.copyOf(times, size);
                storageNumbers = Arrays.copyOf(storageNumbers, size);
            }
            System.arraycopy(sns, from, storageNumbers, count, n);
            long[] ts = times;
            long t = firstTime;
            for (int i = count, end = count + n; i < end; i++, t += step) {
                ts[i] = t;
            }
            count += n;
        }

        /** Moves to the first point ending at or after {@code now}; keeps the last point when none does. */
        void advanceTo(long now) {
            while ((!loaded || end < now) && fetch()) {
                // skipping points that end before now
            }
        }

        private boolean fetch() {
            while (position >= count) {
                if (nextFrom > until) {
                    return false;
                }
                long to = until - nextFrom < windowSeconds ? until : nextFrom + windowSeconds - 1;
                count = 0;
                position = 0;
                try {
                    engine.queryTier0Runs(metric, nextFrom, to, this);
                } catch (IOException | RuntimeException e) {
                    // the window holds, for this answer, the points delivered before the failure: the
                    // next window may be readable (another extent, another datafile)
                    if (readFailure == null) {
                        readFailure = e;
                    }
                }
                nextFrom = to + 1;
            }
            end = times[position];
            storageNumber = storageNumbers[position];
            position++;
            loaded = true;
            return true;
        }
    }

}
