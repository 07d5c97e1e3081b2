package io.strata.streaming.receiver;

import io.strata.engine.StorageEngine;
import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.HostInfo;
import io.strata.engine.meta.MetadataStore;
import io.strata.engine.page.StorageNumber;
import io.strata.streaming.collect.Algorithm;
import io.strata.streaming.collect.CountingEngineSink;
import io.strata.streaming.wire.AsciiNumbers;
import io.strata.streaming.wire.LineSplitter;
import io.strata.streaming.wire.LineTokenizer;
import io.strata.streaming.wire.NetdataNumbers;
import io.strata.streaming.wire.StreamProtocolException;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import io.strata.streaming.server.LogText;
import io.strata.streaming.auth.StreamConfig;
import io.strata.streaming.server.PerAddressLogLimiter;

/**
 * The parent's side of one stream after the handshake: every keyword a 1.37.1 child sends
 * (docs/protocol/netdata-stream.md §4, §6), turned into metadata and stored points. Lines arrive whole (the
 * {@link LineSplitter} joins what spans LZ4 blocks and reads); {@code SET} and {@code RSET} find
 * their dimension from the line's bytes and go to the chart's collector or the engine without an
 * object per sample. Any violation of the protocol is a {@link StreamProtocolException} naming the
 * line: the connection is closed, nothing already stored is touched.
 */
public final class ReceiverParser implements LineSplitter.LineConsumer {

    private static final Logger LOG = LoggerFactory.getLogger(ReceiverParser.class);
    /** Refused definitions: one line per host and kind every 10 s, whatever the number of its streams. */
    private static final PerAddressLogLimiter REFUSALS_LOG = new PerAddressLogLimiter(10_000_000_000L);

    private static final byte[] K_SET = ascii("SET");
    private static final byte[] K_BEGIN = ascii("BEGIN");
    private static final byte[] K_END = ascii("END");
    private static final byte[] K_SET2 = ascii("SET2");
    private static final byte[] K_BEGIN2 = ascii("BEGIN2");
    private static final byte[] K_END2 = ascii("END2");
    private static final byte[] W_SLOT = ascii("SLOT:");
    private static final byte[] K_RSET = ascii("RSET");
    private static final byte[] K_RBEGIN = ascii("RBEGIN");
    private static final byte[] K_RDSTATE = ascii("RDSTATE");
    private static final byte[] K_RSSTATE = ascii("RSSTATE");
    private static final byte[] K_REND = ascii("REND");
    private static final byte[] K_CHART = ascii("CHART");
    private static final byte[] K_DIMENSION = ascii("DIMENSION");
    private static final byte[] K_CLABEL = ascii("CLABEL");
    private static final byte[] K_CLABEL_COMMIT = ascii("CLABEL_COMMIT");
    private static final byte[] K_CHART_DEFINITION_END = ascii("CHART_DEFINITION_END");
    private static final byte[] K_VARIABLE = ascii("VARIABLE");
    private static final byte[] K_LABEL = ascii("LABEL");
    private static final byte[] K_OVERWRITE = ascii("OVERWRITE");
    private static final byte[] K_CLAIMED_ID = ascii("CLAIMED_ID");
    private static final byte[] K_FUNCTION = ascii("FUNCTION");
    private static final byte[] K_FUNCTION_RESULT_BEGIN = ascii("FUNCTION_RESULT_BEGIN");
    private static final byte[] K_FUNCTION_RESULT_END = ascii("FUNCTION_RESULT_END");
    private static final byte[] K_FLUSH = ascii("FLUSH");
    private static final byte[] K_DISABLE = ascii("DISABLE");
    private static final byte[] W_GLOBAL = ascii("GLOBAL");
    private static final byte[] W_HOST = ascii("HOST");
    private static final byte[] W_CHART = ascii("CHART");
    private static final byte[] W_LOCAL = ascii("LOCAL");
    private static final long UNREAD = Long.MIN_VALUE;
    /** Lines of {@link #firstLivePointAfterReplay} logged at INFO per stream; the rest at DEBUG. */
    private static final int MAX_SKIPPED_SLOTS_LOGGED = 10;

    /** Receives function results ({@code FUNCTION_RESULT_BEGIN} … {@code FUNCTION_RESULT_END}). */
    public interface FunctionResults {
        void result(String transaction, int status, String contentType, long expires, String payload);
    }

    private final StorageEngine engine;
    private final MetadataStore metadata;
    private final LineTokenizer words = new LineTokenizer();
    private final ParentCommands commands;
    private final ReceiverReplication replication;
    private final boolean replicationNegotiated;
    private final ReceiverLimits limits;
    private final ReceiverStats stats;
    private final LongSupplier nowMicros;
    /** Between {@link #readStarted()} and {@link #readEnded()}: BEGIN and END share {@link #readMicros}. */
    private boolean inRead;
    /** The wall clock as the first BEGIN or END of the current socket read read it; {@link #UNREAD} before. */
    private long readMicros = UNREAD;
    private final FunctionResults functionResults;
    private final CountingEngineSink sink;
    /** RBEGIN, RSET, RSSTATE, RDSTATE and REND: the child's replication answers. */
    private final ReplayAnswerParser replay;
    /** The holes the answers left behind, asked again of this stream. */
    private final StreamHoles holes;

    private final UUID hostGuid;
    private HostInfo host;
    private final Map<String, String> pendingHostLabels = new LinkedHashMap<>();
    private final Map<String, String> hostVariables = new LinkedHashMap<>();
    private final Map<String, String> hostFunctions = new LinkedHashMap<>();
    private String claimId;

    private final ByteKeyIndex chartIndex = new ByteKeyIndex();
    private final List<ReceivedChart> charts = new ArrayList<>();
    /** The charts by engine chart id (sparse: the engine's ids span every host). */
    private ReceivedChart[] byChartId = new ReceivedChart[16];
    private ReceivedStreamListener.Observer observer = ReceivedStreamListener.Observer.NONE;
    private PeerHandOver handOver = PeerHandOver.NEVER;
    /** The chart of the latest CHART, BEGIN or RBEGIN: DIMENSION, CLABEL, SET, RSET apply to it. */
    private ReceivedChart current;
    /** The chart index the next BEGIN most likely names: the one after the last BEGIN's. */
    private int nextChart;

    private long lineNumber;
    private long samplesSinceReport;
    private boolean disabled;
    /**
     * The latest CHART was refused (over a limit), or a BEGIN/RBEGIN named a chart that may have
     * been: what follows for that chart (DIMENSION, SET, RSET, ...) is skipped, not an error.
     */
    private boolean skipping;
    /** A chart of this stream was refused: a BEGIN of an unknown chart may be for it. */
    private boolean chartsRefused;
    /** Charts holding a {@link ReceivedChart#deferredRequest}, and where the next send looks first. */
    private int deferredRequests;
    private int deferredCursor;
    /** Lines of {@link #firstLivePointAfterReplay} logged at INFO on this stream (then DEBUG). */
    private int skippedSlotsLogged;

    // FUNCTION_RESULT payload being collected
    private StringBuilder functionPayload;
    private String functionTransaction;
    private int functionStatus;
    private String functionContentType;
    private long functionExpires;

    public ReceiverParser(StorageEngine engine, HostInfo host, ParentCommands commands, ReceiverReplication replication,
                          boolean replicationNegotiated, ReceiverLimits limits, ReceiverStats stats,
                          LongSupplier nowMicros, FunctionResults functionResults) {
        this.engine = engine;
        this.metadata = engine.metadata();
        this.commands = commands;
        this.replication = replication;
        this.replicationNegotiated = replicationNegotiated;
        this.limits = limits;
        this.stats = stats;
        this.nowMicros = nowMicros;
        this.functionResults = functionResults;
        this.hostGuid = host.machineGuid();
        this.sink = new CountingEngineSink(engine);
        this.replay = new ReplayAnswerParser(this, words, engine, stats, nowMicros);
        HostInfo known = knownHost(host.machineGuid());
        // A reconnecting host keeps the labels it had until it sends new ones.
        this.host = known != null && host.labels().isEmpty()
                ? host.withLabels(known.labels())
                : host;
        metadata.upsertHost(this.host);
        this.holes = new StreamHoles(stats, replication.secondsToReplicate(),
                "host '" + LogText.escape(this.host.hostname()) + "' (" + hostGuid + ")");
    }

    private HostInfo knownHost(UUID guid) {
        int id = metadata.hostId(guid);
        return id < 0 ? null : metadata.host(id);
    }

    public boolean disabled() {
        return disabled;
    }

    public String claimId() {
        return claimId;
    }

    /**
     * The stream ended (event loop): replayed points gathered behind their metrics' newest points,
     * which an answer's {@code REND} would have handed to the engine's past path, are handed on now,
     * so that an answer cut off by the connection keeps what it delivered.
     */
    public void streamEnded() {
        for (ReceivedChart c : charts) {
            c.collector.flushPastPoints();
        }
        holes.streamEnded();
    }

    /**
     * After a socket read: asks the stream again for the holes its answers left behind whose
     * backoff has passed, of charts with no request in flight ({@link StreamHoles}); never while the
     * stream's commands are held back for the peers or the stream is handed over. Event loop only.
     */
    public void askForHoles() {
        if (holes.size() == 0 || disabled || handOver.holdsOrHandsOver()) {
            return;
        }
        holes.askDue(nowMicros.getAsLong() / 1_000_000L, commands, this);
    }

    /**
     * The parent's hole repair lacks {@code (after, before]} of chart {@code chartId} of this host
     * and no peer filled it: kept with the holes the answers left ({@link
     * StreamHoles#rememberFromRepair}) and asked after the next socket read. Event loop only.
     *
     * @return whether it was kept (false: the chart is not in this stream, a hole kept overlaps it,
     *         or a bound says no)
     */
    boolean holeFromRepair(String chartId, long after, long before) {
        if (disabled) {
            return false;
        }
        byte[] id = chartId.getBytes(StandardCharsets.UTF_8);
        int index = chartIndexOf(id, 0, id.length);
        if (index < 0) {
            return false;
        }
        return holes.rememberFromRepair(charts.get(index), after, before, nowMicros.getAsLong() / 1_000_000L);
    }

    /** Holes kept to be asked again. Event loop only. */
    public int holesKept() {
        return holes.size();
    }

    StreamHoles holes() {
        return holes;
    }

    public int chartCount() {
        return charts.size();
    }

    /** Charts whose replication has not finished yet. */
    public int chartsReplicating() {
        int n = 0;
        for (ReceivedChart c : charts) {
            if (c.replicating) {
                n++;
            }
        }
        return n;
    }

    /**
     * For meters on another thread: charts whose replication has not finished. Walks the chart
     * list by index without the event loop: a chart added meanwhile may be missed, never a failure.
     */
    public int chartsReplicatingFromAnyThread() {
        int n = 0;
        for (int i = charts.size() - 1; i >= 0; i--) {
            ReceivedChart c = chartFromAnyThread(i);
            if (c != null && c.replicating) {
                n++;
            }
        }
        return n;
    }

    /**
     * For meters on another thread: seconds by which the newest stored point of the most-behind
     * chart still replicating trails {@code nowSeconds}; 0 when none replicates. Charts holding
     * nothing yet have no stored time to measure from and count only in
     * {@link #chartsReplicatingFromAnyThread()}.
     */
    public long replicationLagSeconds(long nowSeconds) {
        long lag = 0;
        for (int i = charts.size() - 1; i >= 0; i--) {
            ReceivedChart c = chartFromAnyThread(i);
            if (c == null || !c.replicating) {
                continue;
            }
            int[] ids = c.metricIds;
            int dims = Math.min(c.dimensionCount(), ids.length);
            long last = 0;
            for (int d = 0; d < dims; d++) {
                last = Math.max(last, engine.registry().lastTime(ids[d], 0));
            }
            if (last > 0) {
                lag = Math.max(lag, nowSeconds - last);
            }
        }
        return lag;
    }

    private ReceivedChart chartFromAnyThread(int i) {
        try {
            return charts.get(i);
        } catch (IndexOutOfBoundsException e) {
            // the list grew on the event loop while we looked
            return null;
        }
    }

    public Map<String, String> hostVariables() {
        return hostVariables;
    }

    /** The host's functions ({@code FUNCTION GLOBAL}) by name, their help as value. Event loop only. */
    Map<String, String> hostFunctions() {
        return hostFunctions;
    }

    /** Who hears of definitions, collections and replication ends (a forwarder). Event loop only. */
    void observe(ReceivedStreamListener.Observer o) {
        this.observer = o == null ? ReceivedStreamListener.Observer.NONE : o;
    }

    ReceivedStreamListener.Observer observer() {
        return observer;
    }

    /** Whether a hole in the host's replay answers hands its stream over to the peers. Event loop only. */
    void handOver(PeerHandOver h) {
        this.handOver = h == null ? PeerHandOver.NEVER : h;
    }

    PeerHandOver handOver() {
        return handOver;
    }

    // ---------------------------------------------------------------- state the replay answers share

    /** The chart of the latest CHART, BEGIN or RBEGIN; null after FLUSH or a refused chart. */
    ReceivedChart current() {
        return current;
    }

    /** Lines of a refused chart are being skipped. */
    boolean skipping() {
        return skipping;
    }

    /** A chart of this stream was refused: a line naming an unknown chart may be for it. */
    boolean chartsRefused() {
        return chartsRefused;
    }

    /** The index of the chart whose id is {@code b[s, e)}, or -1. */
    int chartIndexOf(byte[] b, int s, int e) {
        return chartIndex.get(b, s, e);
    }

    /** An RBEGIN named the chart at {@code index}: the lines that follow apply to it. */
    void replayChart(int index) {
        skipping = false;
        current = charts.get(index);
    }

    /** The number of the line being parsed (1 = the first after the handshake), for errors. */
    long lineNumber() {
        return lineNumber;
    }

    String hostname() {
        return host.hostname();
    }

    /** The chart of an engine chart id if this stream defined it, else null. */
    ReceivedChart byChartId(int chartId) {
        ReceivedChart[] a = byChartId;
        return chartId >= 0 && chartId < a.length ? a[chartId] : null;
    }

    int[] chartIds() {
        int[] ids = new int[charts.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = charts.get(i).chartId;
        }
        return ids;
    }

    private void indexChart(ReceivedChart c, int chartId) {
        if (c.chartId == chartId) {
            return;
        }
        if (chartId >= byChartId.length) {
            byChartId = Arrays.copyOf(byChartId, Math.max(chartId + 1, byChartId.length * 2));
        }
        byChartId[chartId] = c;
        c.chartId = chartId;
    }

    @Override
    public void line(byte[] b, int s, int e) throws StreamProtocolException {
        lineNumber++;
        if (functionPayload != null) {
            functionPayloadLine(b, s, e);
            return;
        }
        if (!disabled && e - s > 6 && b[s] == 'R' && b[s + 1] == 'S' && b[s + 2] == 'E' && b[s + 3] == 'T'
                && b[s + 4] == ' ' && b[s + 5] == '"' && replay.plainReplaySet(b, s, e)) {
            return;
        }
        if (!disabled && e - s > 5 && b[s] == 'S' && b[s + 1] == 'E' && b[s + 2] == 'T' && b[s + 3] == ' '
                && b[s + 4] == '"' && plainSet(b, s, e)) {
            return;
        }
        if (!disabled && e - s == 3 && b[s] == 'E' && b[s + 1] == 'N' && b[s + 2] == 'D') {
            end(b, s, e);
            return;
        }
        if (!disabled && e - s > 7 && b[s] == 'B' && b[s + 1] == 'E' && b[s + 2] == 'G' && b[s + 3] == 'I'
                && b[s + 4] == 'N' && b[s + 5] == ' ' && b[s + 6] == '"' && plainBegin(b, s, e)) {
            return;
        }
        int n = words.tokenize(b, s, e);
        if (n == 0) {
            return;
        }
        if (disabled) {
            throw error("data after DISABLE", b, s, e);
        }
        int ks = words.start(0);
        int ke = words.end(0);
        if (is(b, ks, ke, K_SET)) {
            set(b, s, e, n);
        } else if (is(b, ks, ke, K_SET2)) {
            set2(b, s, e, n);
        } else if (is(b, ks, ke, K_BEGIN2)) {
            begin2(b, s, e, n);
        } else if (is(b, ks, ke, K_END2)) {
            end2(b, s, e);
        } else if (is(b, ks, ke, K_BEGIN)) {
            begin(b, s, e, n);
        } else if (is(b, ks, ke, K_END)) {
            end(b, s, e);
        } else if (is(b, ks, ke, K_RSET)) {
            replay.replaySet(b, s, e, n);
        } else if (is(b, ks, ke, K_RBEGIN)) {
            replay.replayBegin(b, s, e, n);
        } else if (is(b, ks, ke, K_RDSTATE)) {
            replay.replayDimensionState(b, s, e, n);
        } else if (is(b, ks, ke, K_RSSTATE)) {
            replay.replayChartState(b, s, e, n);
        } else if (is(b, ks, ke, K_REND)) {
            replay.replayEnd(b, s, e, n);
        } else if (is(b, ks, ke, K_CHART)) {
            chart(b, s, e, n);
        } else if (is(b, ks, ke, K_DIMENSION)) {
            dimension(b, s, e, n);
        } else if (is(b, ks, ke, K_CLABEL)) {
            chartLabel(b, s, e, n);
        } else if (is(b, ks, ke, K_CLABEL_COMMIT)) {
            chartLabelCommit(b, s, e);
        } else if (is(b, ks, ke, K_CHART_DEFINITION_END)) {
            chartDefinitionEnd(b, s, e, n);
        } else if (is(b, ks, ke, K_VARIABLE)) {
            variable(b, s, e, n);
        } else if (is(b, ks, ke, K_LABEL)) {
            hostLabel(b, s, e, n);
        } else if (is(b, ks, ke, K_OVERWRITE)) {
            hostLabelsCommit();
        } else if (is(b, ks, ke, K_CLAIMED_ID)) {
            claimedId(b, s, e, n);
        } else if (is(b, ks, ke, K_FUNCTION)) {
            functionDefinition(b, s, e, n);
        } else if (is(b, ks, ke, K_FUNCTION_RESULT_BEGIN)) {
            functionResultBegin(b, s, e, n);
        } else if (is(b, ks, ke, K_FLUSH)) {
            current = null;
            skipping = false;
        } else if (is(b, ks, ke, K_DISABLE)) {
            disabled = true;
        } else {
            throw error("unknown keyword", b, s, e);
        }
    }

    /**
     * Sends the replication requests planned while the child's channel was not writable, in chart
     * order, until none is left or the channel is full again. Event loop only.
     */
    public void sendDeferredRequests() {
        while (deferredRequests > 0 && commands.writable()) {
            if (deferredCursor >= charts.size()) {
                deferredCursor = 0;
            }
            ReceivedChart c = charts.get(deferredCursor++);
            ReceiverReplication.Request r = c.deferredRequest;
            if (r != null) {
                c.deferredRequest = null;
                deferredRequests--;
                commands.send(r.line(c.info.id()));
            }
        }
    }

    /** Replication requests waiting for the child to read. */
    public int deferredRequests() {
        return deferredRequests;
    }

    /**
     * A socket read's bytes are about to be parsed: until {@link #readEnded()}, every BEGIN and END
     * takes the wall clock as the first of them read it. A read of a live stream holds hundreds of
     * collections; reading the clock for each BEGIN and END cost more than parsing their lines
     * (docs/benchmarks.md, "The wall clock at BEGIN and END"). The time a collection is taken to
     * arrive at is then the moment its read began to be parsed, not the moment its line was
     * reached: earlier by at most the time a read takes to parse (under a millisecond for 64 KiB),
     * which is within what a child's send and the parent's scheduling already shift it by (the
     * collector measures in whole {@code update_every} slots and takes a child's durations as
     * given). Outside a read (lines handed to {@link #line} directly) every BEGIN and END reads it.
     */
    public void readStarted() {
        inRead = true;
        readMicros = UNREAD;
    }

    /** The socket read's bytes are parsed (or refused): publishes its counts ({@link #publishStats()}). */
    public void readEnded() {
        inRead = false;
        readMicros = UNREAD;
        publishStats();
    }

    /** The wall clock for BEGIN and END: once per socket read within one ({@link #readStarted()}). */
    private long collectionClock() {
        if (!inRead) {
            return nowMicros.getAsLong();
        }
        long t = readMicros;
        if (t == UNREAD) {
            t = nowMicros.getAsLong();
            readMicros = t;
        }
        return t;
    }

    /**
     * Adds what was counted since the last call to the shared {@link ReceiverStats}: the receiver calls
     * it after each read, so that a counter shared by every stream is touched once per read.
     */
    public void publishStats() {
        replay.publishStats();
    }

    // ---------------------------------------------------------------- data

    private void begin(byte[] b, int s, int e, int n) throws StreamProtocolException {
        if (n < 2) {
            throw error("BEGIN without a chart id", b, s, e);
        }
        long usec = n > 2 ? AsciiNumbers.parseLongC(b, words.start(2), words.end(2)) : 0;
        begin(b, s, e, words.start(1), words.end(1), usec);
    }

    /**
     * {@code BEGIN "<chart>" <microseconds>} (or without the microseconds) in the shape senders write
     * it, split without the general tokenizer, the number read in the same pass. Returns false,
     * having done nothing, for any other shape (escapes, other quotes, NUL, more words): the general
     * path then splits it as Netdata does.
     */
    private boolean plainBegin(byte[] b, int s, int e) throws StreamProtocolException {
        int idStart = s + 7;
        int idEnd = closingQuote(b, idStart, e);
        if (idEnd < 0) {
            return false;
        }
        int i = idEnd + 1;
        if (i < e && !isSeparator(b[i])) {
            return false;
        }
        while (i < e && isSeparator(b[i])) {
            i++;
        }
        long usec = 0;
        if (i < e) {
            int valueStart = i;
            int valueEnd = scanValueWord(b, i, e);
            if (valueEnd < 0) {
                return false;
            }
            i = valueEnd;
            while (i < e && isSeparator(b[i])) {
                i++;
            }
            if (i < e) {
                return false;
            }
            usec = scannedValue(b, valueStart, valueEnd);
        }
        begin(b, s, e, idStart, idEnd, usec);
        return true;
    }

    /** A BEGIN of the chart whose id is {@code b[idStart, idEnd)} with the child's microseconds since its last collection. */
    private void begin(byte[] b, int s, int e, int idStart, int idEnd, long usec) throws StreamProtocolException {
        int index = chartIndex.get(b, idStart, idEnd, nextChart);
        if (index < 0) {
            if (chartsRefused) {
                skipRefusedChart();
                return;
            }
            throw error("BEGIN of a chart that was not defined", b, s, e);
        }
        nextChart = index + 1;
        skipping = false;
        ReceivedChart c = charts.get(index);
        current = c;
        c.collecting = true;
        // this parent interpolates v1 collections itself: the slot it stores is its own choice
        c.streamingStartedAfter = 0;
        c.interpolated = false;
        c.stored.clear();
        c.nextDimension = 0;
        c.collectionNumber++;
        sink.startCounting();
        c.collector.begin(Math.max(0, usec), collectionClock());
    }

    /** A BEGIN/RBEGIN of a chart this stream does not know, after a chart was refused: probably that one. */
    void skipRefusedChart() {
        skipping = true;
        current = null;
    }

    private void set(byte[] b, int s, int e, int n) throws StreamProtocolException {
        if (skipping) {
            return;
        }
        ReceivedChart c = current;
        if (c == null || !c.collecting || c.interpolated) {
            throw error("SET outside BEGIN/END", b, s, e);
        }
        if (n < 2) {
            throw error("SET without a dimension id", b, s, e);
        }
        int vs = n < 3 ? 0 : words.start(2);
        int ve = n < 3 ? 0 : words.end(2);
        set(b, s, e, words.start(1), words.end(1), vs == ve ? 0 : AsciiNumbers.parseLongC(b, vs, ve), vs != ve);
    }

    /**
     * {@code SET "<dim>" = <value>} in the one shape senders write it, split without the general
     * tokenizer (most lines of a live stream are these). Returns false, having done nothing, for
     * any other shape (escapes, other quotes, NUL, no value, more words): the general path then
     * splits it as Netdata does.
     */
    private boolean plainSet(byte[] b, int s, int e) throws StreamProtocolException {
        int dimStart = s + 5;
        int dimEnd = closingQuote(b, dimStart, e);
        if (dimEnd < 0) {
            return false;
        }
        int i = dimEnd + 1;
        if (i >= e || !isSeparator(b[i])) {
            return false;
        }
        while (i < e && isSeparator(b[i])) {
            i++;
        }
        int valueStart = i;
        int valueEnd = scanValueWord(b, i, e);
        if (valueEnd <= valueStart) {
            return false;
        }
        i = valueEnd;
        while (i < e && isSeparator(b[i])) {
            i++;
        }
        if (i < e) {
            return false;
        }
        if (skipping) {
            return true;
        }
        ReceivedChart c = current;
        if (c == null || !c.collecting) {
            throw error("SET outside BEGIN/END", b, s, e);
        }
        set(b, s, e, dimStart, dimEnd, scannedValue(b, valueStart, valueEnd), true);
        return true;
    }

    /** Decimal digits a long holds whatever they are: 10^18 - 1 < 2^63 - 1. */
    private static final int MAX_PLAIN_DIGITS = 18;

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    /** Out-parameter of {@link #scanDigits}: the value of the digits it read (wrapped past 18 of them). */
    private long scannedDigits;
    /** Out-parameter of {@link #scanValueWord}: the word was 1..18 decimal digits, the first not 0, valued {@link #scannedDigits}. */
    private boolean scannedPlain;

    /**
     * Scans the value word of a fast-path line from {@code i}: returns its end (the first separator,
     * or {@code e}), or -1 when it holds a quote, a backslash or NUL (the general path then splits the
     * line as Netdata does). A decimal of 1..18 digits not starting with 0 is what strtoll makes of it
     * and is read in the same pass ({@link #scannedPlain}); anything else is left to
     * {@link #scannedValue}'s strtoll port.
     */
    private int scanValueWord(byte[] b, int i, int e) {
        int start = i;
        boolean decimal = i < e && b[i] >= '1' && b[i] <= '9';
        if (decimal) {
            i = scanDigits(b, i, e);
        }
        while (i < e && !isSeparator(b[i])) {
            byte c = b[i];
            if (c == '"' || c == '\'' || c == '\\' || c == 0) {
                return -1;
            }
            decimal = false; // more than digits: strtoll decides
            i++;
        }
        scannedPlain = decimal && i - start <= MAX_PLAIN_DIGITS;
        return i;
    }

    /** The value of the word {@link #scanValueWord} scanned last, {@code b[start, end)}. */
    private long scannedValue(byte[] b, int start, int end) {
        if (scannedPlain) {
            return scannedDigits;
        }
        return end - start == 1 && b[start] == '0' ? 0 : AsciiNumbers.parseLongC(b, start, end);
    }

    /**
     * Reads the decimal digits from {@code i} on, eight at a time while eight more bytes are in the
     * line (a counter has 10 to 20 of them), and leaves their value in {@link #scannedDigits};
     * returns the index of the first byte that is not a digit, or {@code e}.
     */
    private int scanDigits(byte[] b, int i, int e) {
        long value = 0;
        while (i + Long.BYTES <= e) {
            long w = (long) LONGS.get(b, i);
            // every byte 0x30..0x39: its high nibble is 3, and adding 6 leaves it 3
            if (((w & 0xF0F0F0F0F0F0F0F0L) | (((w + 0x0606060606060606L) & 0xF0F0F0F0F0F0F0F0L) >>> 4))
                    != 0x3333333333333333L) {
                break;
            }
            value = value * 100_000_000L + eightDigits(w);
            i += Long.BYTES;
        }
        for (; i < e; i++) {
            int digit = b[i] - '0';
            if (digit < 0 || digit > 9) {
                break;
            }
            value = value * 10 + digit;
        }
        scannedDigits = value;
        return i;
    }

    /** The value of eight ASCII digits read little-endian (the first digit in the lowest byte): pairs, fours, then eight. */
    static long eightDigits(long w) {
        long v = w - 0x3030303030303030L;
        v = (v * 10 + (v >>> 8)) & 0x00FF00FF00FF00FFL;
        v = (v * 100 + (v >>> 16)) & 0x0000FFFF0000FFFFL;
        return (v * 10_000 + (v >>> 32)) & 0xFFFF_FFFFL;
    }

    /**
     * A SET of chart {@link #current}, collecting: the dimension id as a range of the line, and the
     * value ({@code hasValue} false for an empty value: not collected this time).
     */
    private void set(byte[] b, int s, int e, int dimStart, int dimEnd, long value, boolean hasValue)
            throws StreamProtocolException {
        ReceivedChart c = current;
        int dim = c.dimensionOf(b, dimStart, dimEnd);
        if (dim < 0) {
            if (c.dimensionsRefused) {
                return;
            }
            throw error("SET of a dimension that was not defined in chart " + c.info.id(), b, s, e);
        }
        if (!hasValue) {
            return;
        }
        c.collector.set(dim, value);
        c.collected(dim, value);
        samplesSinceReport++;
    }

    private void end(byte[] b, int s, int e) throws StreamProtocolException {
        if (skipping) {
            return;
        }
        ReceivedChart c = current;
        if (c == null || !c.collecting || c.interpolated) {
            throw error("END without BEGIN", b, s, e);
        }
        c.collecting = false;
        // the points END stores are read back (in chartCollected) by a forwarder only
        c.stored.record(observer != ReceivedStreamListener.Observer.NONE);
        try {
            c.collector.end(collectionClock());
        } catch (IllegalArgumentException outOfRange) {
            // a time the engine cannot hold (past 2106, or a chart pushed there by the child's durations)
            throw error("END: " + outOfRange.getMessage(), b, s, e);
        }
        if (c.collector.latestSlotsBehindStateFrom() != 0) {
            slotsBehindCollectionState(c);
        }
        c.refused = sink.refusedAll();
        c.collections++;
        observer.chartCollected(c.chartId);
        if (samplesSinceReport > 0) {
            stats.samplesCollected.add(samplesSinceReport);
            samplesSinceReport = 0;
        }
    }

    // ---------------------------------------------------------------- interpolated data (2.x)

    /** The index of the first word after the keyword and an optional {@code SLOT:<n>} (never negotiated). */
    private int afterSlot(byte[] b, int n) {
        if (n > 1) {
            int ws = words.start(1);
            if (words.end(1) - ws >= W_SLOT.length && AsciiNumbers.equalsAscii(b, ws, ws + W_SLOT.length, W_SLOT)) {
                return 2;
            }
        }
        return 1;
    }

    /**
     * {@code BEGIN2 '<chart>' <update every> <end time> <wall clock|#>}: the child interpolated the
     * collection onto the slot ending at {@code end time}; its SET2 values are stored as they are.
     */
    private void begin2(byte[] b, int s, int e, int n) throws StreamProtocolException {
        int i = afterSlot(b, n);
        if (n < i + 4) {
            throw error("BEGIN2 missing parameters", b, s, e);
        }
        int index = chartIndex.get(b, words.start(i), words.end(i));
        if (index < 0) {
            if (chartsRefused) {
                skipRefusedChart();
                return;
            }
            throw error("BEGIN2 of a chart that was not defined", b, s, e);
        }
        long updateEvery = NetdataNumbers.parseUnsigned(b, words.start(i + 1), words.end(i + 1));
        long endTime = NetdataNumbers.parseUnsigned(b, words.start(i + 2), words.end(i + 2));
        // the wall clock (i + 3, '#' = the end time) is not needed to store the point
        if (updateEvery <= 0 || updateEvery > 86_400) {
            throw error("BEGIN2 update_every out of range", b, s, e);
        }
        if (endTime <= 0 || endTime > 0xFFFF_FFFFL - 86_400) {
            throw error("BEGIN2 end time out of range", b, s, e);
        }
        skipping = false;
        ReceivedChart c = charts.get(index);
        current = c;
        if (c.streamingStartedAfter > 0) {
            firstLivePointAfterReplay(c, updateEvery, endTime);
        }
        c.collecting = true;
        c.interpolated = true;
        c.stored.clear();
        c.stored.record(observer != ReceivedStreamListener.Observer.NONE);
        c.collectionNumber++;
        sink.startCounting();
        c.collector.interpolatedBegin((int) updateEvery, endTime);
    }

    /**
     * The first live {@code BEGIN2} of a chart after the replay answer that started its stream
     * ended at {@link ReceivedChart#streamingStartedAfter}: slots between were sent neither way.
     *
     * <p>Netdata 2.9.0 loses them on the child: {@code rrdset_timed_done()} decides whether a
     * collection is streamed ({@code stream_send_metrics_init()}: not while the chart's replication
     * is in progress) before it takes the chart's {@code data_collection_lock}, and the replication
     * answer that starts streaming holds that lock while it covers the chart up to its
     * {@code last_updated} (capped at the wall clock it read before taking the lock;
     * {@code src/streaming/stream-replication-sender.c}). A collection that decided while the answer
     * was being prepared, then waited for the lock, is stored on the child but is in neither the
     * answer nor the live stream. This parent cannot store those slots later (a metric's points are
     * stored in time order and this point is stored now), so they are counted and told, as the
     * child's loss, never invented.
     */
    private void firstLivePointAfterReplay(ReceivedChart c, long updateEvery, long endTime) {
        long after = c.streamingStartedAfter;
        c.streamingStartedAfter = 0;
        if (endTime <= after + updateEvery) {
            return;
        }
        long from = after + updateEvery;
        long to = endTime - updateEvery;
        long slots = (to - from) / updateEvery + 1;
        stats.slotsSkippedAtStreamingStart.add(slots);
        if (skippedSlotsLogged < MAX_SKIPPED_SLOTS_LOGGED) {
            skippedSlotsLogged++;
            LOG.info("host '{}' ({}): chart '{}': the child sent no point for {}..{} ({} slot(s)): its replay answer"
                            + " that started streaming ended at {}, its first live point is at {}{}",
                    LogText.escape(host.hostname()), hostGuid, LogText.escape(c.info.id()), from, to, slots, after,
                    endTime, skippedSlotsLogged == MAX_SKIPPED_SLOTS_LOGGED ? " (further ones of this stream are"
                            + " logged at DEBUG)" : "");
        } else if (LOG.isDebugEnabled()) {
            LOG.debug("host '{}' ({}): chart '{}': the child sent no point for {}..{} ({} slot(s)): its replay answer"
                            + " that started streaming ended at {}, its first live point is at {}",
                    LogText.escape(host.hostname()), hostGuid, LogText.escape(c.info.id()), from, to, slots, after,
                    endTime);
        }
    }

    /**
     * The v1 collection just completed found the chart's previous collection time past slots it
     * had to store, and stored them empty ({@code ChartCollector}): the
     * replay answer's {@code RSSTATE} gave a last collected time an {@code update_every} or more past
     * its last updated time, a state no whole collection leaves. A 1.37.1 sender reads it so while
     * its collector is inside {@code rrdset_timed_done()}: that function moves
     * {@code last_collected_time} first, decides whether the collection is streamed
     * ({@code rrdset_done_push()}: not while the chart replicates) and only then stores its slot and
     * moves {@code last_updated}; {@code replicate_chart_collection_state()} takes no lock. The answer
     * ends at {@code last_updated}, the collection is not streamed, and the slot is on the child
     * only. Counted and told as the child's loss, as a skipped first live point is.
     */
    private void slotsBehindCollectionState(ReceivedChart c) {
        long from = c.collector.latestSlotsBehindStateFrom();
        long to = c.collector.latestSlotsBehindStateTo();
        long ue = Math.max(1, c.collector.updateEvery());
        long slots = (to - from) / ue + 1;
        stats.slotsSkippedAtStreamingStart.add(slots);
        long previousUt = c.collector.latestSlotsBehindStatePreviousUt();
        if (skippedSlotsLogged < MAX_SKIPPED_SLOTS_LOGGED) {
            skippedSlotsLogged++;
            LOG.info("host '{}' ({}): chart '{}': the child sent no point for {}..{} ({} slot(s)): its replay answer's"
                            + " state (RSSTATE) put its last collection at {}.{}, past these slots it had not stored"
                            + " (a state read during a collection); stored empty{}",
                    LogText.escape(host.hostname()), hostGuid, LogText.escape(c.info.id()), from, to, slots,
                    previousUt / 1_000_000L, String.format("%06d", previousUt % 1_000_000L),
                    skippedSlotsLogged == MAX_SKIPPED_SLOTS_LOGGED ? " (further ones of this stream are logged at"
                            + " DEBUG)" : "");
        } else if (LOG.isDebugEnabled()) {
            LOG.debug("host '{}' ({}): chart '{}': the child sent no point for {}..{} ({} slot(s)): its replay answer's"
                            + " state (RSSTATE) put its last collection at {} µs, past these slots",
                    LogText.escape(host.hostname()), hostGuid, LogText.escape(c.info.id()), from, to, slots,
                    previousUt);
        }
    }

    /** {@code SET2 '<dimension>' <collected> <value|#> <flags>}: {@code #} = the collected value; flags A, R, E. */
    private void set2(byte[] b, int s, int e, int n) throws StreamProtocolException {
        if (skipping) {
            return;
        }
        ReceivedChart c = current;
        if (c == null || !c.collecting || !c.interpolated) {
            throw error("SET2 outside BEGIN2/END2", b, s, e);
        }
        int i = afterSlot(b, n);
        if (n < i + 4) {
            throw error("SET2 missing parameters", b, s, e);
        }
        int dim = c.dimensions.get(b, words.start(i), words.end(i));
        if (dim < 0) {
            if (c.dimensionsRefused) {
                return;
            }
            throw error("SET2 of a dimension that was not defined in chart " + c.info.id(), b, s, e);
        }
        long collected = NetdataNumbers.parseSigned(b, words.start(i + 1), words.end(i + 1));
        int vs = words.start(i + 2);
        int ve = words.end(i + 2);
        double value = vs < ve && b[vs] == '#' ? (double) collected : NetdataNumbers.parseDouble(b, vs, ve);
        int flags = StorageNumber.SN_FLAG_NONE;
        for (int f = words.start(i + 3), fe = words.end(i + 3); f < fe; f++) {
            byte ch = b[f];
            if (ch == 'A') {
                flags |= StorageNumber.SN_FLAG_NOT_ANOMALOUS;
            } else if (ch == 'R') {
                flags |= StorageNumber.SN_FLAG_RESET;
            } else if (ch == 'E') {
                value = Double.NaN;
                break;
            }
        }
        c.collector.interpolatedSet(dim, collected, value, flags);
        c.collected(dim, collected);
        samplesSinceReport++;
    }

    private void end2(byte[] b, int s, int e) throws StreamProtocolException {
        if (skipping) {
            return;
        }
        ReceivedChart c = current;
        if (c == null || !c.collecting || !c.interpolated) {
            throw error("END2 without BEGIN2", b, s, e);
        }
        c.collecting = false;
        c.interpolated = false;
        c.refused = sink.refusedAll();
        c.collections++;
        observer.chartCollected(c.chartId);
        if (samplesSinceReport > 0) {
            stats.samplesCollected.add(samplesSinceReport);
            samplesSinceReport = 0;
        }
    }

    // ---------------------------------------------------------------- definitions

    private void chart(byte[] b, int s, int e, int n) throws StreamProtocolException {
        if (n < 2) {
            throw error("CHART without an id", b, s, e);
        }
        String id = str(b, 1);
        int dot = id.indexOf('.');
        if (dot <= 0 || dot == id.length() - 1) {
            throw error("CHART id must be type.id", b, s, e);
        }
        String name = n > 2 ? str(b, 2) : "";
        if (name.isEmpty() || name.equals("NULL")) {
            name = id;
        } else if (!name.startsWith(id.substring(0, dot + 1))) {
            name = id.substring(0, dot + 1) + name;
        }
        String title = n > 3 ? str(b, 3) : "";
        String units = n > 4 ? str(b, 4) : "";
        String family = n > 5 ? str(b, 5) : "";
        String context = n > 6 ? str(b, 6) : "";
        String type = n > 7 ? str(b, 7) : "line";
        long priority = n > 8 ? AsciiNumbers.parseLongC(b, words.start(8), words.end(8)) : 1000;
        long updateEvery = n > 9 ? AsciiNumbers.parseLongC(b, words.start(9), words.end(9)) : host.updateEvery();
        String options = n > 10 ? str(b, 10) : "";
        String plugin = n > 11 ? str(b, 11) : "";
        String module = n > 12 ? str(b, 12) : "";
        if (updateEvery <= 0) {
            updateEvery = host.updateEvery() > 0 ? host.updateEvery() : 1;
        }
        if (updateEvery > 86_400) {
            throw error("CHART update_every out of range", b, s, e);
        }
        if (context.isEmpty()) {
            context = id;
        }
        if (family.isEmpty()) {
            family = id.substring(dot + 1);
        }
        int index = chartIndex.get(id);
        ReceivedChart c;
        Map<String, String> labels = index >= 0 ? charts.get(index).info.labels() : Map.of();
        ChartInfo info = new ChartInfo(hostGuid, id, name, title, units, family, context, type, priority,
                (int) updateEvery, plugin, module, labels);
        if (index >= 0) {
            c = charts.get(index);
            if (c.info.updateEvery() != info.updateEvery()) {
                c.collector.updateEvery(info.updateEvery());
            }
            c.info = info;
        } else {
            if (metadata.chartId(hostGuid, id) < 0
                    && metadata.chartsOfHost(metadata.hostId(hostGuid)) >= limits.maxChartsPerHost()) {
                refuseChart(id);
                return;
            }
            c = new ReceivedChart(info, sink, replication.chart());
            chartIndex.add(id);
            charts.add(c);
        }
        skipping = false;
        c.obsolete = options.contains("obsolete");
        c.collector.storeFirst(options.contains("store_first"));
        if (index >= 0) {
            c.collector.requestClockSync();
        }
        c.pendingLabels.clear();
        c.collecting = false;
        // A redefined chart waits for its replication again, as in Netdata.
        c.replicating = replicationNegotiated;
        indexChart(c, metadata.upsertChart(info));
        current = c;
        observer.chartDefined(c.chartId);
    }

    private void dimension(byte[] b, int s, int e, int n) throws StreamProtocolException {
        if (skipping) {
            return;
        }
        ReceivedChart c = requireChart("DIMENSION", b, s, e);
        if (n < 2 || words.start(1) == words.end(1)) {
            throw error("DIMENSION without an id", b, s, e);
        }
        String id = str(b, 1);
        String name = n > 2 ? str(b, 2) : id;
        Algorithm algorithm = n > 3 ? Algorithm.parse(b, words.start(3), words.end(3)) : Algorithm.ABSOLUTE;
        long multiplier = n > 4 ? AsciiNumbers.parseLongC(b, words.start(4), words.end(4)) : 1;
        long divisor = n > 5 ? AsciiNumbers.parseLongC(b, words.start(5), words.end(5)) : 1;
        String options = n > 6 ? str(b, 6) : "";
        if (multiplier == 0) {
            multiplier = 1;
        }
        if (divisor == 0) {
            divisor = 1;
        }
        int flags = (options.contains("hidden") ? DimensionInfo.FLAG_HIDDEN : 0)
                | (options.contains("obsolete") ? DimensionInfo.FLAG_OBSOLETE : 0);
        DimensionInfo definition = new DimensionInfo(hostGuid, c.info.id(), id, name, algorithm.netdataName(),
                multiplier, divisor, flags);
        if (c.dimensions.get(id) < 0) {
            if (c.dimensionCount() >= limits.maxDimensionsPerChart()) {
                refuseDimension(c, id, "dimensions in chart " + c.info.id(), limits.maxDimensionsPerChart());
                return;
            }
            if (!metadata.hasDimension(definition)
                    && metadata.dimensionsOfHost(metadata.hostId(hostGuid)) >= limits.maxDimensionsPerHost()) {
                refuseDimension(c, id, "dimensions of the host (" + StreamConfig.MAX_DIMENSIONS_PER_HOST + ")",
                        limits.maxDimensionsPerHost());
                return;
            }
        }
        int metric = metadata.upsertDimension(definition);
        int index = c.defineDimension(id, metric, algorithm, multiplier, divisor);
        c.collector.resetDetection(index, !options.contains("noreset") && !options.contains("nooverflow"));
    }

    /** A chart over the host's total: not stored, its lines skipped until the next chart; the stream goes on. */
    private void refuseChart(String id) {
        stats.chartsRefused.increment();
        skipping = true;
        chartsRefused = true;
        current = null;
        long suppressed = REFUSALS_LOG.admit(hostGuid.toString(), "charts", System.nanoTime());
        if (suppressed >= 0) {
            LOG.warn("host '{}' ({}): chart '{}' refused: the host has {} charts, its limit ({} in stream.conf);"
                            + " the chart's data is not stored, the stream goes on{}", LogText.escape(host.hostname()),
                    hostGuid, LogText.escape(id), limits.maxChartsPerHost(), StreamConfig.MAX_CHARTS_PER_HOST,
                    PerAddressLogLimiter.suppressedNote(suppressed));
        }
    }

    /** A dimension over a limit: not stored, its values skipped; the chart and the stream go on. */
    private void refuseDimension(ReceivedChart c, String id, String what, int limit) {
        stats.dimensionsRefused.increment();
        c.dimensionsRefused = true;
        long suppressed = REFUSALS_LOG.admit(hostGuid.toString(), "dimensions", System.nanoTime());
        if (suppressed >= 0) {
            LOG.warn("host '{}' ({}): dimension '{}' of chart '{}' refused: {} {}, the limit; its values are not"
                            + " stored, the stream goes on{}", LogText.escape(host.hostname()), hostGuid,
                    LogText.escape(id), LogText.escape(c.info.id()), limit, what,
                    PerAddressLogLimiter.suppressedNote(suppressed));
        }
    }

    private void chartLabel(byte[] b, int s, int e, int n) throws StreamProtocolException {
        if (skipping) {
            return;
        }
        ReceivedChart c = requireChart("CLABEL", b, s, e);
        if (n < 3) {
            throw error("CLABEL needs a name and a value", b, s, e);
        }
        if (c.pendingLabels.size() >= limits.maxLabelsPerHost()) {
            throw error("too many chart labels", b, s, e);
        }
        c.pendingLabels.put(str(b, 1), str(b, 2));
    }

    private void chartLabelCommit(byte[] b, int s, int e) throws StreamProtocolException {
        if (skipping) {
            return;
        }
        ReceivedChart c = requireChart("CLABEL_COMMIT", b, s, e);
        ChartInfo i = c.info;
        c.info = new ChartInfo(i.hostGuid(), i.id(), i.name(), i.title(), i.units(), i.family(), i.context(),
                i.chartType(), i.priority(), i.updateEvery(), i.plugin(), i.module(), c.pendingLabels);
        c.pendingLabels.clear();
        metadata.upsertChart(c.info);
    }

    private void chartDefinitionEnd(byte[] b, int s, int e, int n) throws StreamProtocolException {
        if (skipping) {
            return; // a refused chart is not replicated
        }
        ReceivedChart c = requireChart("CHART_DEFINITION_END", b, s, e);
        long childFirst = n > 1 ? AsciiNumbers.parseLongC(b, words.start(1), words.end(1)) : 0;
        long childLast = n > 2 ? AsciiNumbers.parseLongC(b, words.start(2), words.end(2)) : 0;
        long parentLast = lastStoredTime(c);
        long nowSeconds = nowMicros.getAsLong() / 1_000_000L;
        // a chart the host stored nothing of yet (0 0): its retention starts now
        long hostFirst = childFirst > 0 ? childFirst : nowSeconds;
        if (handOver.retentionStartsAfter(parentLast, hostFirst)) {
            throw new StreamHandedOverException("chart '" + c.info.id() + "': the host's retention starts at "
                    + hostFirst + ", after the newest second held here (" + parentLast + "): handing the host"
                    + " over to the peers that may hold the seconds between (line " + lineNumber + ")");
        }
        ReceiverReplication.Request r = c.replication.definitionEnded(parentLast, childFirst, childLast,
                c.dimensionCount(), nowSeconds);
        c.replayCoveredTo = 0;
        c.heldBeforeDefinitionEnd = parentLast > 0;
        c.streamingStartedAfter = 0;
        sendReplicationRequest(c, r, childFirst, childLast);
    }

    void sendReplicationRequest(ReceivedChart c, ReceiverReplication.Request r, long childFirst,
                                        long childLast) {
        c.replicating = true;
        if (c.replayCoveredTo == 0 && r.after() > 0 && r.before() > 0) {
            // the answer's first point is expected right after the request's start (or after the
            // child's first second, from which a 1.37.1 child answers): later, the child lacks it
            c.replayCoveredTo = Math.max(r.after(), childFirst);
        }
        if (c.holeAsked != null) {
            // one request of a chart in flight at a time: a 1.37.1 sender ignores a second one of the
            // same chart while the first waits, and its answer would be taken for the other's
            c.requestAfterHole = r;
            return;
        }
        if (!commands.writable()) {
            // a child that does not read: the request waits in its chart (one per chart, the latest)
            if (c.deferredRequest == null) {
                deferredRequests++;
            }
            c.deferredRequest = r;
            return;
        }
        if (LOG.isDebugEnabled()) {
            LOG.debug("{} {}: stored up to {}, child holds {}..{}: {}", host.hostname(), c.info.id(),
                    lastStoredTime(c), childFirst, childLast, r);
        }
        commands.send(r.line(c.info.id()));
    }

    /** The newest tier-0 second the engine holds for any dimension of the chart (0 = none). */
    long lastStoredTime(ReceivedChart c) {
        long last = 0;
        for (int i = 0; i < c.dimensionCount(); i++) {
            last = Math.max(last, engine.registry().lastTime(c.metricIds[i], 0));
        }
        return last;
    }

    private void variable(byte[] b, int s, int e, int n) throws StreamProtocolException {
        int i = 1;
        Boolean global = null;
        if (n > 1) {
            int ws = words.start(1);
            int we = words.end(1);
            if (is(b, ws, we, W_HOST) || is(b, ws, we, W_GLOBAL)) {
                global = true;
                i = 2;
            } else if (is(b, ws, we, W_CHART) || is(b, ws, we, W_LOCAL)) {
                global = false;
                i = 2;
            }
        }
        if (n <= i) {
            throw error("VARIABLE without a name", b, s, e);
        }
        if (skipping && !Boolean.TRUE.equals(global)) {
            return; // a variable of a refused chart
        }
        String name = str(b, i);
        String value = n > i + 1 ? str(b, i + 1) : "";
        if (global == null) {
            global = current == null;
        }
        Map<String, String> into = global ? hostVariables : requireChart("VARIABLE CHART", b, s, e).variables;
        if (into.size() >= limits.maxLabelsPerHost() && !into.containsKey(name)) {
            throw error("too many variables", b, s, e);
        }
        into.put(name, value);
    }

    private void hostLabel(byte[] b, int s, int e, int n) throws StreamProtocolException {
        // LABEL "name" = source "value": '=' separates, so the words are name, source, value
        if (n < 4) {
            throw error("LABEL needs a name, a source and a value", b, s, e);
        }
        if (pendingHostLabels.size() >= limits.maxLabelsPerHost()) {
            throw error("too many host labels", b, s, e);
        }
        pendingHostLabels.put(str(b, 1), str(b, 3));
    }

    private void hostLabelsCommit() {
        host = host.withLabels(pendingHostLabels);
        pendingHostLabels.clear();
        metadata.upsertHost(host);
    }

    private void claimedId(byte[] b, int s, int e, int n) throws StreamProtocolException {
        if (n < 3) {
            throw error("CLAIMED_ID needs a machine GUID and a claim id", b, s, e);
        }
        if (!str(b, 1).equalsIgnoreCase(hostGuid.toString())) {
            throw error("CLAIMED_ID for another host than the one streamed", b, s, e);
        }
        String claim = str(b, 2);
        claimId = claim.equals("NULL") ? null : claim;
    }

    private void functionDefinition(byte[] b, int s, int e, int n) throws StreamProtocolException {
        int i = 1;
        if (n > 1 && is(b, words.start(1), words.end(1), W_GLOBAL)) {
            i = 2;
        }
        if (n <= i) {
            throw error("FUNCTION without a name", b, s, e);
        }
        if (skipping && i == 1) {
            return; // a function of a refused chart
        }
        String name = str(b, i);
        String help = n > i + 2 ? str(b, i + 2) : "";
        Map<String, String> into = i == 1 ? requireChart("FUNCTION", b, s, e).functions : hostFunctions;
        if (into.size() >= limits.maxLabelsPerHost() && !into.containsKey(name)) {
            throw error("too many functions", b, s, e);
        }
        into.put(name, help);
    }

    private void functionResultBegin(byte[] b, int s, int e, int n) throws StreamProtocolException {
        if (n < 2) {
            throw error("FUNCTION_RESULT_BEGIN without a transaction", b, s, e);
        }
        functionTransaction = str(b, 1);
        functionStatus = n > 2 ? (int) AsciiNumbers.parseLongC(b, words.start(2), words.end(2)) : 200;
        functionContentType = n > 3 ? str(b, 3) : "text/plain";
        functionExpires = n > 4 ? AsciiNumbers.parseLongC(b, words.start(4), words.end(4)) : 0;
        functionPayload = new StringBuilder();
    }

    private void functionPayloadLine(byte[] b, int s, int e) throws StreamProtocolException {
        int ts = s;
        int te = e;
        while (te > ts && (b[te - 1] == '\r' || b[te - 1] == ' ')) {
            te--;
        }
        if (is(b, ts, te, K_FUNCTION_RESULT_END)) {
            String payload = functionPayload.toString();
            functionPayload = null;
            if (functionResults != null) {
                functionResults.result(functionTransaction, functionStatus, functionContentType, functionExpires,
                        payload);
            }
            return;
        }
        if (functionPayload.length() + (functionPayload.length() > 0 ? 1 : 0) + (e - s) > limits.maxFunctionResultBytes()) {
            throw error("function result larger than " + limits.maxFunctionResultBytes() + " bytes", b, s, e);
        }
        if (functionPayload.length() > 0) {
            functionPayload.append('\n');
        }
        functionPayload.append(new String(b, s, e - s, StandardCharsets.UTF_8));
    }

    // ---------------------------------------------------------------- helpers

    /** The index of the {@code "} closing a plain quoted word that starts at {@code i}; -1 for none, an escape or a NUL. */
    static int closingQuote(byte[] b, int i, int e) {
        for (; i < e; i++) {
            byte c = b[i];
            if (c == '"') {
                return i;
            }
            if (c == '\\' || c == 0) {
                return -1;
            }
        }
        return -1;
    }

    static boolean isSeparator(byte c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '=';
    }

    private ReceivedChart requireChart(String keyword, byte[] b, int s, int e) throws StreamProtocolException {
        if (current == null) {
            throw error(keyword + " without a preceding CHART", b, s, e);
        }
        return current;
    }

    private String str(byte[] b, int word) {
        return AsciiNumbers.string(b, words.start(word), words.end(word));
    }

    static boolean is(byte[] b, int s, int e, byte[] word) {
        return AsciiNumbers.equalsAscii(b, s, e, word);
    }

    StreamProtocolException error(String what, byte[] b, int s, int e) {
        int len = Math.min(e - s, 200);
        String text = new String(b, s, len, StandardCharsets.UTF_8) + (e - s > len ? "..." : "");
        return new StreamProtocolException(what + " (line " + lineNumber + ": " + text + ")");
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
