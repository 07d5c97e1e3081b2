package io.strata.streaming.receiver;

import io.strata.engine.StorageEngine;
import io.strata.engine.page.StorageNumber;
import io.strata.streaming.wire.AsciiNumbers;
import io.strata.streaming.wire.LineTokenizer;
import io.strata.streaming.wire.NetdataNumbers;
import io.strata.streaming.wire.StreamProtocolException;

import java.nio.charset.StandardCharsets;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replication answers of one stream, as its {@link ReceiverParser} hands them over
 * (docs/protocol/netdata-stream.md §6.2): {@code RBEGIN} (REPLAY_BEGIN), {@code RSET},
 * {@code RSSTATE} (REPLAY_RRDSET_STATE), {@code RDSTATE} (REPLAY_RRDDIM_STATE) and {@code REND}
 * (REPLAY_END). Replayed points go through the chart's collector, as in Netdata; a hole between
 * answers may hand the host over to the peers ({@link #checkForHole}); a step that ends without
 * streaming asks the next one through the parser.
 *
 * <p>The chart the lines apply to ({@code current}), whether a refused chart's lines are being
 * skipped, and the line count belong to the parser, which every other keyword moves too; this
 * class reads and sets them through it. It shares the parser's tokenizer: the general path has
 * split the line into its words before calling here. Event loop only, like the parser.
 */
final class ReplayAnswerParser {

    /** The parser's logger: operators filter the stream's lines by one name. */
    private static final Logger LOG = LoggerFactory.getLogger(ReceiverParser.class);
    private static final byte[] W_TRUE = "true".getBytes(StandardCharsets.US_ASCII);

    private final ReceiverParser parser;
    private final LineTokenizer words;
    private final StorageEngine engine;
    private final ReceiverStats stats;
    private final LongSupplier nowMicros;

    /** RSET values stored and not yet added to {@link ReceiverStats#samplesReplayed} (one add per read, not per value). */
    private long replayedSinceReport;

    ReplayAnswerParser(ReceiverParser parser, LineTokenizer words, StorageEngine engine, ReceiverStats stats,
                       LongSupplier nowMicros) {
        this.parser = parser;
        this.words = words;
        this.engine = engine;
        this.stats = stats;
        this.nowMicros = nowMicros;
    }

    /** Adds the RSET values counted since the last call to the shared {@link ReceiverStats}. */
    void publishStats() {
        if (replayedSinceReport > 0) {
            stats.samplesReplayed.add(replayedSinceReport);
            replayedSinceReport = 0;
        }
    }

    void replayBegin(byte[] b, int s, int e, int n) throws StreamProtocolException {
        if (n < 2) {
            throw parser.error("RBEGIN without a chart id", b, s, e);
        }
        int ws = words.start(1);
        int we = words.end(1);
        if (we > ws) {
            int index = parser.chartIndexOf(b, ws, we);
            if (index < 0) {
                if (parser.chartsRefused()) {
                    parser.skipRefusedChart();
                    return;
                }
                throw parser.error("RBEGIN of a chart that was not defined", b, s, e);
            }
            parser.replayChart(index);
        } else if (parser.skipping()) {
            return;
        } else if (parser.current() == null) {
            throw parser.error("RBEGIN '' without a chart", b, s, e);
        }
        ReceivedChart c = parser.current();
        if (n >= 5) {
            long start = NetdataNumbers.parseSigned(b, words.start(2), words.end(2));
            long endT = NetdataNumbers.parseSigned(b, words.start(3), words.end(3));
            long childNow = NetdataNumbers.parseSigned(b, words.start(4), words.end(4));
            // the engine keeps unsigned 32-bit seconds; a live collection follows the replayed point, so keep room
            if (start <= 0 || endT <= start || endT - start > 86_400 || endT > childNow + c.info.updateEvery() + 1
                    || endT > 0xFFFF_FFFFL - 86_400) {
                throw parser.error("RBEGIN with an impossible time range", b, s, e);
            }
            c.replayPointStart = start;
            c.replayPointEnd = endT;
            c.replayPointOpen = true;
            c.stored.clear(); // replayed points are not forwarded as collected ones
            if (c.holeAsked != null) {
                // the answer to a hole asked again: behind the live data, which goes on meanwhile
                c.collector.replayBeginBehindLive(start, endT);
                return;
            }
            if (c.replayCoveredTo > 0) {
                checkForHole(c, endT, endT - Math.max(1, c.info.updateEvery()), b, s, e);
            }
            c.collector.replayBegin(start, endT);
        } else {
            c.replayPointOpen = false;
            c.collector.replayBeginUntimed();
        }
    }

    /**
     * A replayed point at {@code pointTime} after the seconds the answers covered: if slots are
     * missing in between, the child lacks them; the stream may be handed over to the peers before
     * anything after the hole is stored (the engine could never put the hole's points behind it).
     */
    private void checkForHole(ReceivedChart c, long pointTime, long holeTo, byte[] b, int s, int e)
            throws StreamProtocolException {
        long ue = Math.max(1, c.info.updateEvery());
        long covered = c.replayCoveredTo;
        if (pointTime - covered > (PeerHandOver.MIN_MISSING_SLOTS + 1) * ue - 1) {
            if (parser.handOver().holeInAnswer(covered + 1, pointTime - ue, c.heldBeforeDefinitionEnd)) {
                throw new StreamHandedOverException("the replay of chart '" + c.info.id() + "' lacks "
                        + (covered + 1) + ".." + (pointTime - ue) + " (" + (pointTime - ue - covered) + " s) and"
                        + " nothing of it is stored here: handing the host over to the peers that may hold it"
                        + " (line " + parser.lineNumber() + ")");
            }
            // kept: the same stream is asked again for exactly these seconds (StreamHoles)
            parser.holes().remember(c, covered, holeTo, nowMicros.getAsLong() / 1_000_000L);
        }
        c.replayCoveredTo = Math.max(covered, pointTime);
    }

    void replaySet(byte[] b, int s, int e, int n) throws StreamProtocolException {
        if (parser.skipping()) {
            return;
        }
        if (n < 3) {
            ReceivedChart c = parser.current();
            if (c != null && c.replayPointOpen) {
                throw parser.error("RSET needs a dimension and a value", b, s, e);
            }
        }
        replaySet(b, s, e, n < 3 ? 0 : words.start(1), n < 3 ? 0 : words.end(1), n < 3 ? 0 : words.start(2),
                n < 3 ? 0 : words.end(2), n > 3 ? words.start(3) : 0, n > 3 ? words.end(3) : 0);
    }

    /**
     * {@code RSET "<dim>" <value> "<flags>"} (2.x: the flags unquoted, or {@code ''}) in the shapes
     * senders write, split without the general tokenizer (most bytes of a replication answer are these lines). Returns false, having
     * done nothing, for any other shape (escapes, other quotes, NUL, more words): the general path
     * then splits it as Netdata does.
     */
    boolean plainReplaySet(byte[] b, int s, int e) throws StreamProtocolException {
        int dimStart = s + 6;
        int dimEnd = ReceiverParser.closingQuote(b, dimStart, e);
        if (dimEnd < 0) {
            return false;
        }
        int i = dimEnd + 1;
        while (i < e && ReceiverParser.isSeparator(b[i])) {
            i++;
        }
        int valueStart = i;
        while (i < e && !ReceiverParser.isSeparator(b[i])) {
            byte c = b[i];
            if (c == '"' || c == '\'' || c == '\\' || c == 0) {
                return false;
            }
            i++;
        }
        int valueEnd = i;
        if (valueEnd == valueStart) {
            return false;
        }
        while (i < e && ReceiverParser.isSeparator(b[i])) {
            i++;
        }
        int flagsStart = 0;
        int flagsEnd = 0;
        if (i < e) {
            if (b[i] == '\'' && i + 1 < e && b[i + 1] == '\'') {
                // 2.x: '' for no flags
                flagsStart = i + 1;
                flagsEnd = i + 1;
                i += 2;
            } else if (b[i] >= 'A' && b[i] <= 'Z') {
                // 2.x: the flags unquoted (A, R, E)
                flagsStart = i;
                while (i < e && b[i] >= 'A' && b[i] <= 'Z') {
                    i++;
                }
                flagsEnd = i;
            } else if (b[i] != '"') {
                return false;
            } else {
                flagsStart = i + 1;
                flagsEnd = ReceiverParser.closingQuote(b, flagsStart, e);
                if (flagsEnd < 0) {
                    return false;
                }
                i = flagsEnd + 1;
            }
            while (i < e && ReceiverParser.isSeparator(b[i])) {
                i++;
            }
            if (i < e) {
                return false;
            }
        }
        replaySet(b, s, e, dimStart, dimEnd, valueStart, valueEnd, flagsStart, flagsEnd);
        return true;
    }

    private void replaySet(byte[] b, int s, int e, int dimStart, int dimEnd, int valueStart, int valueEnd,
                           int flagsStart, int flagsEnd) throws StreamProtocolException {
        if (parser.skipping()) {
            return;
        }
        ReceivedChart c = parser.current();
        if (c == null) {
            throw parser.error("RSET without RBEGIN", b, s, e);
        }
        if (!c.replayPointOpen) {
            return; // Netdata ignores RSET until a timestamped RBEGIN
        }
        int dim = c.dimensions.get(b, dimStart, dimEnd);
        if (dim < 0) {
            if (c.dimensionsRefused) {
                return;
            }
            throw parser.error("RSET of a dimension that was not defined in chart " + c.info.id(), b, s, e);
        }
        double value = NetdataNumbers.parseDouble(b, valueStart, valueEnd);
        int flags = StorageNumber.SN_DEFAULT_FLAGS;
        boolean empty = false;
        if (flagsEnd > flagsStart) {
            for (int i = flagsStart; i < flagsEnd; i++) {
                if (b[i] == 'E') {
                    empty = true;
                } else if (b[i] == 'R') {
                    flags |= StorageNumber.SN_FLAG_RESET;
                }
            }
        }
        // through the collector: a replayed point moves the chart's collection state, as in Netdata
        // (not in the answer to a hole asked again: the chart is live)
        c.collector.replaySet(dim, empty ? Double.NaN : value, flags);
        StreamHoles.Hole hole = c.holeAsked;
        if (hole != null && !empty && !Double.isNaN(value)) {
            hole.arrived(c.replayPointEnd);
        }
        c.replayedPoints++;
        replayedSinceReport++;
    }

    void replayDimensionState(byte[] b, int s, int e, int n) throws StreamProtocolException {
        if (parser.skipping()) {
            return;
        }
        ReceivedChart c = parser.current();
        if (c == null) {
            throw parser.error("RDSTATE without RBEGIN", b, s, e);
        }
        if (n < 6) {
            throw parser.error("RDSTATE needs 5 values", b, s, e);
        }
        int dim = c.dimensions.get(b, words.start(1), words.end(1));
        if (dim < 0) {
            if (c.dimensionsRefused) {
                return;
            }
            throw parser.error("RDSTATE of a dimension that was not defined in chart " + c.info.id(), b, s, e);
        }
        if (c.holeAsked != null) {
            return; // the chart is live: a hole's answer does not move its collection state
        }
        c.collector.dimensionState(dim,
                NetdataNumbers.parseUnsigned(b, words.start(2), words.end(2)),
                NetdataNumbers.parseSigned(b, words.start(3), words.end(3)),
                NetdataNumbers.parseDouble(b, words.start(4), words.end(4)),
                NetdataNumbers.parseDouble(b, words.start(5), words.end(5)));
    }

    void replayChartState(byte[] b, int s, int e, int n) throws StreamProtocolException {
        if (parser.skipping()) {
            return;
        }
        ReceivedChart c = parser.current();
        if (c == null) {
            throw parser.error("RSSTATE without RBEGIN", b, s, e);
        }
        if (n < 3) {
            throw parser.error("RSSTATE needs 2 values", b, s, e);
        }
        if (c.holeAsked != null) {
            return; // the chart is live: a hole's answer does not move its collection state
        }
        c.collector.chartState(NetdataNumbers.parseUnsigned(b, words.start(1), words.end(1)),
                NetdataNumbers.parseUnsigned(b, words.start(2), words.end(2)));
    }

    void replayEnd(byte[] b, int s, int e, int n) throws StreamProtocolException {
        if (parser.skipping()) {
            return;
        }
        ReceivedChart c = parser.current();
        if (c == null) {
            throw parser.error("REND without RBEGIN", b, s, e);
        }
        if (n < 8) {
            throw parser.error("REND needs 7 values", b, s, e);
        }
        long childUpdateEvery = NetdataNumbers.parseSigned(b, words.start(1), words.end(1));
        long childFirst = NetdataNumbers.parseSigned(b, words.start(2), words.end(2));
        long childLast = NetdataNumbers.parseSigned(b, words.start(3), words.end(3));
        boolean start = ReceiverParser.is(b, words.start(4), words.end(4), W_TRUE);
        long before = NetdataNumbers.parseSigned(b, words.start(6), words.end(6));
        if (c.holeAsked != null) {
            // the answer to a hole asked again ("false" or, from a sender that reached its newest
            // point, "true"): the chart is live already, nothing of its replication state changes
            c.replayPointOpen = false;
            c.collector.replayEndBehindLive();
            parser.holes().answered(c, nowMicros.getAsLong() / 1_000_000L, c.info.updateEvery());
            ReceiverReplication.Request waiting = c.requestAfterHole;
            if (waiting != null) {
                c.requestAfterHole = null;
                parser.sendReplicationRequest(c, waiting, childFirst, childLast);
            }
            return;
        }
        if (start && c.replayCoveredTo > 0) {
            // live data follows: an answer that ended well before its window's end skipped the rest
            checkForHole(c, before, before, b, s, e);
        }
        c.replayPointOpen = false;
        int ue = childUpdateEvery > 0 && childUpdateEvery <= 86_400 ? (int) childUpdateEvery : c.info.updateEvery();
        c.collector.replayEnd(start, ue);
        if (LOG.isDebugEnabled()) {
            LOG.debug("{} {}: REND start={} child holds {}..{}, answered {}..{}, {} values replayed in all, stored {}..{}",
                    parser.hostname(), c.info.id(), start, childFirst, childLast,
                    AsciiNumbers.parseLongC(b, words.start(5), words.end(5)), before, c.replayedPoints,
                    c.dimensionCount() > 0 ? engine.registry().firstTime(c.metricIds[0], 0) : 0, parser.lastStoredTime(c));
        }
        if (start) {
            c.replicating = false;
            c.replayCoveredTo = 0;
            // "true 0 0" answered without a window: nothing to compare the first live point with
            c.streamingStartedAfter = Math.max(0, before);
            parser.observer().chartReplicationFinished(c.chartId);
            return;
        }
        // the child did not start streaming: replication says what to ask next
        ReceiverReplication.Request r = c.replication.stepEnded(before, parser.lastStoredTime(c), childFirst, childLast,
                c.dimensionCount(), nowMicros.getAsLong() / 1_000_000L);
        parser.sendReplicationRequest(c, r, childFirst, childLast);
    }
}
