package io.strata.replication.peer;

import io.strata.engine.StorageEngine;
import io.strata.engine.log.RepeatedFailureLog;
import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.HostInfo;
import io.strata.engine.meta.MetadataStore;
import io.strata.engine.page.StorageNumber;
import io.strata.engine.registry.MetricRegistry;
import io.strata.engine.thread.StrataThreads;
import io.strata.replication.sender.PastRangeAnswer;
import io.strata.streaming.receiver.ReceiverRegistry;
import io.strata.streaming.sender.SenderWireFormat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * A parent's repair of the holes behind its newest seconds from its peers (docs/replication.md, "A
 * hole filled from the peers later"). A parent that receives a host directly asks only that host
 * for what it lacks, from its newest second on; seconds the host lost (a SIGKILL) while a peer
 * received them live are behind that second, and no stream brings them. Each round this service:
 *
 * <ol>
 *   <li>scans, chart by chart (round-robin over every host but this node's own, at most
 *       {@link Settings#chartsPerRound()} charts a round), the last {@link Settings#windowSeconds()}
 *       of tier 0 for <em>holes</em>: runs of slots where a dimension of the chart lacks a value
 *       within its own first and last second, between the window's start (or the chart's first
 *       second) and its newest second;</li>
 *   <li>asks each peer in turn ({@link PeerFetch}: {@code replay_chart}, docs/format/peer-replay.md) for a
 *       hole's range, at most {@link Settings#holesPerRound()} holes a round, and stops asking once
 *       the hole is filled;</li>
 *   <li>stores what arrives through {@link StorageEngine#submitPast} (the engine's past-writer
 *       thread): only slots this parent lacks are filled, a value it holds always wins, and tiers 1+
 *       are rebuilt over the range;</li>
 *   <li>hands a hole the peers did not fill (or could not be asked for) to the stream this parent
 *       receives its host on, if any ({@link #askStreams}): that stream's receiver asks its sender
 *       {@code REPLAY_CHART "false"} for exactly it, on the stream's event loop, with its own backoff
 *       and bounds, unless it holds an overlapping hole already. Once per hole and stream.</li>
 * </ol>
 *
 * <p>Backoff: a hole no peer filled is asked again after {@code interval × 2^attempts} (jittered), at
 * most {@link Settings#maxAttempts()} times, then counted unfillable and left (the host's own
 * downtime: no one holds it). A peer that does not answer (no connection, a timeout, a malformed
 * answer) is skipped for {@code interval × 2^failures} (at most 10 minutes), logged at WARN once a
 * minute at most. Rounds run on the service's own thread, every {@link Settings#intervalSeconds()}
 * ± 20 %.
 */
public final class HoleRepair implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(HoleRepair.class);
    private static final long PEER_BACKOFF_MAX_SECONDS = 600;
    /** Holes remembered for their backoff; past it the oldest half is forgotten (they are asked again). */
    private static final int MAX_REMEMBERED_HOLES = 100_000;

    /**
     * @param windowSeconds    how far behind now holes are looked for
     * @param intervalSeconds  seconds between rounds (± 20 %)
     * @param chartsPerRound   charts scanned a round
     * @param holesPerRound    holes asked a round
     * @param maxAttempts      rounds a hole is asked in before it counts as unfillable
     */
    public record Settings(long windowSeconds, long intervalSeconds, int chartsPerRound, int holesPerRound,
                           int maxAttempts) {
        public static final long DEFAULT_WINDOW_SECONDS = 3600;
        public static final long DEFAULT_INTERVAL_SECONDS = 60;
        public static final Settings DEFAULTS = new Settings(DEFAULT_WINDOW_SECONDS, DEFAULT_INTERVAL_SECONDS, 2000,
                64, 6);

        public Settings {
            if (windowSeconds <= 0 || intervalSeconds <= 0 || chartsPerRound <= 0 || holesPerRound <= 0
                    || maxAttempts <= 0) {
                throw new IllegalArgumentException("every bound of the hole repair must be positive");
            }
        }
    }

    /** A peer parent: a plain-HTTP destination and the API key this parent streams to it with. */
    public record Peer(String host, int port, String apiKey) {
        public Peer {
            Objects.requireNonNull(host, "host");
            Objects.requireNonNull(apiKey, "apiKey");
        }

        @Override
        public String toString() {
            return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
        }
    }

    /** A peer's answer: its HTTP status and body. */
    public record PeerAnswer(int status, byte[] body, int length) {
    }

    /** How a peer is asked (HTTP in a node: {@link PeerRangeClient}); blocking. */
    @FunctionalInterface
    public interface PeerFetch {
        /** @throws IOException when the peer did not answer (no connection, a timeout, an oversized answer) */
        PeerAnswer fetch(Peer peer, UUID host, String chartId, long after, long before) throws IOException;
    }

    /** What one round did. */
    public record Round(int chartsScanned, int holesFound, int holesAsked, long samplesFilled, int holesUnfillable) {
    }

    private final StorageEngine engine;
    private final UUID self;
    private final List<Peer> peers;
    private final PeerFetch fetch;
    private final Settings settings;
    private final LongSupplier wallMillis;
    private final PeerRangeParser parser = new PeerRangeParser();
    private final RepeatedFailureLog peerFailures;
    private final SplittableRandom jitter;

    private final LongAdder samplesFilled = new LongAdder();
    private final LongAdder holesAsked = new LongAdder();
    private final LongAdder holesUnfillable = new LongAdder();
    private final LongAdder peerRequestsFailed = new LongAdder();
    private final LongAdder rounds = new LongAdder();

    /** Rounds run one at a time, under this lock; it guards the fields below it. */
    private final Object roundLock = new Object();
    private int chartCursor;
    private final Map<Long, HoleAttempts> holes = new HashMap<>();
    private final long[] peerDownUntil;
    private final int[] peerFailureCount;
    /** Reused scan buffers. */
    private boolean[] held = new boolean[0];
    private boolean[] missing = new boolean[0];
    private int[][] answer = new int[0][];

    /** The streams this parent receives; null: no stream is asked. */
    private volatile ReceiverRegistry receivers;
    private final LongAdder holesAskedOfStream = new LongAdder();
    /** Guarded by this. */
    private ScheduledExecutorService executor;
    private volatile boolean closed;

    private static final class HoleAttempts {
        int attempts;
        long notBeforeSecond;
        boolean givenUp;
        /** The serial of the stream the hole was handed to (not the stream: a closed one is not kept); 0: none. */
        long streamAsked;
    }

    /**
     * @param self       this node's own machine GUID (its own host is never repaired from peers)
     * @param wallMillis the wall clock (the window and the backoff)
     */
    public HoleRepair(StorageEngine engine, UUID self, List<Peer> peers, PeerFetch fetch, Settings settings,
                      LongSupplier wallMillis) {
        this.engine = Objects.requireNonNull(engine, "engine");
        this.self = Objects.requireNonNull(self, "self");
        this.peers = List.copyOf(peers);
        this.fetch = Objects.requireNonNull(fetch, "fetch");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.wallMillis = Objects.requireNonNull(wallMillis, "wallMillis");
        this.peerFailures = new RepeatedFailureLog(RepeatedFailureLog.forWarn(LOG), 60_000, wallMillis);
        this.peerDownUntil = new long[this.peers.size()];
        this.peerFailureCount = new int[this.peers.size()];
        this.jitter = new SplittableRandom(self.getLeastSignificantBits() ^ System.nanoTime());
    }

    /**
     * The streams this parent receives: a hole no peer filled in a chart of a host received here is
     * handed to that host's stream, which asks its sender for it ({@code StreamHoles}). Set before
     * {@link #start()}.
     */
    public void askStreams(ReceiverRegistry registry) {
        this.receivers = registry;
    }

    /** Holes handed to the stream this parent receives their host on, since start. */
    public long holesAskedOfStream() {
        return holesAskedOfStream.sum();
    }

    /** The peers asked, in the order asked. */
    public List<Peer> peers() {
        return peers;
    }

    /** Starts the rounds on the service's own daemon thread; the first after one interval (± 20 %). */
    public synchronized void start() {
        if (closed || executor != null) {
            return;
        }
        executor = StrataThreads.newSingleThreadScheduledExecutor(StrataThreads.daemonThreadFactory("strata-hole-repair"));
        scheduleNext();
        LOG.info("repairing holes of the last {} s from {} peer(s) ({}) every {} s", settings.windowSeconds(),
                peers.size(), peers, settings.intervalSeconds());
    }

    private synchronized void scheduleNext() {
        if (closed || executor == null) {
            return;
        }
        long base = settings.intervalSeconds() * 1000;
        long delay = base + (long) ((jitter.nextDouble() - 0.5) * 0.4 * base);
        try {
            executor.schedule(this::scheduledRound, Math.max(1, delay), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // closing
        }
    }

    private void scheduledRound() {
        try {
            Round r = runRound();
            if (r.samplesFilled() > 0 || r.holesUnfillable() > 0) {
                LOG.info("hole repair: {} samples filled from peers in {} of {} holes asked; {} holes no peer holds"
                        + " (given up); {} charts scanned", r.samplesFilled(), r.holesAsked(), r.holesFound(),
                        r.holesUnfillable(), r.chartsScanned());
            }
        } catch (RuntimeException | IOException e) {
            peerFailures.failed("round", "hole repair: a round failed: " + e);
        } finally {
            scheduleNext();
        }
    }

    /** Runs one round now, on the calling thread (tests; the scheduled rounds call it too). */
    public Round runRound() throws IOException {
        synchronized (roundLock) {
            return round();
        }
    }

    private Round round() throws IOException {
        rounds.increment();
        long now = wallMillis.getAsLong() / 1000;
        long windowStart = now - settings.windowSeconds();
        MetadataStore meta = engine.metadata();
        Set<UUID> live = new HashSet<>();
        for (HostInfo h : meta.hosts()) {
            live.add(h.machineGuid());
        }
        live.remove(self);
        forgetOldHoles(windowStart);
        int charts = meta.chartCount();
        int scanned = 0;
        int found = 0;
        int asked = 0;
        long filledNow = 0;
        int unfillable = 0;
        for (int i = 0; i < charts && scanned < settings.chartsPerRound() && asked < settings.holesPerRound()
                && !closed; i++) {
            int chart = chartCursor % charts;
            chartCursor = (chartCursor + 1) % charts;
            ChartInfo info = meta.chart(chart);
            if (!live.contains(info.hostGuid())) {
                continue;
            }
            List<Integer> metricList = meta.metrics(chart);
            if (metricList.isEmpty()) {
                continue;
            }
            scanned++;
            int[] metrics = new int[metricList.size()];
            byte[][] ids = new byte[metrics.length][];
            for (int d = 0; d < metrics.length; d++) {
                metrics[d] = metricList.get(d);
                DimensionInfo dim = meta.dimension(metrics[d]);
                ids[d] = SenderWireFormat.utf8(dim == null ? "" : dim.id());
            }
            List<long[]> chartHoles = scan(metrics, info.updateEvery(), windowStart);
            for (long[] hole : chartHoles) {
                found++;
                long key = ((long) chart << 32) ^ hole[0];
                HoleAttempts a = holes.get(key);
                if (a != null && (a.givenUp || a.notBeforeSecond > now)) {
                    continue;
                }
                if (asked >= settings.holesPerRound()) {
                    break;
                }
                asked++;
                holesAsked.increment();
                long got = ask(info, metrics, ids, hole[0], hole[1], now);
                if (got > 0) {
                    filledNow += got;
                    samplesFilled.add(got);
                    holes.remove(key);
                    continue;
                }
                if (a == null) {
                    a = new HoleAttempts();
                    holes.put(key, a);
                }
                askStream(info, hole[0], hole[1], a);
                if (got == 0) {
                    a.attempts++;
                }
                if (a.attempts >= settings.maxAttempts()) {
                    a.givenUp = true;
                    unfillable++;
                    holesUnfillable.increment();
                    LOG.debug("hole repair: no peer holds {} {}..{}; given up after {} rounds", info.id(), hole[0],
                            hole[1], a.attempts);
                } else {
                    long wait = settings.intervalSeconds() << Math.min(20, Math.max(1, a.attempts));
                    a.notBeforeSecond = now + wait - (long) (jitter.nextDouble() * 0.2 * wait);
                }
            }
        }
        return new Round(scanned, found, asked, filledNow, unfillable);
    }

    /**
     * A hole no peer filled: handed to the stream this parent receives its host on, once per stream
     * (a sender that lacked it then lacks it later too; a new stream, maybe another sender, is asked
     * again). The stream's receiver asks its sender for exactly it, on its own event loop, unless it
     * holds an overlapping hole already (then it is being asked).
     */
    private void askStream(ChartInfo info, long from, long to, HoleAttempts a) {
        ReceiverRegistry r = receivers;
        if (r == null) {
            return;
        }
        ReceiverRegistry.Active stream = r.active(info.hostGuid().toString());
        if (stream == null || stream.serial() == a.streamAsked) {
            return;
        }
        if (stream.askHole(info.id(), from - info.updateEvery(), to)) {
            a.streamAsked = stream.serial();
            holesAskedOfStream.increment();
            LOG.debug("hole repair: no peer filled {} {}..{}; asked of the host's stream (hops {})", info.id(), from,
                    to, stream.hops());
        }
    }

    private void forgetOldHoles(long windowStart) {
        Iterator<Map.Entry<Long, HoleAttempts>> it = holes.entrySet().iterator();
        while (it.hasNext()) {
            long from = it.next().getKey() & 0xFFFF_FFFFL;
            if (from < windowStart) {
                it.remove();
            }
        }
        if (holes.size() > MAX_REMEMBERED_HOLES) {
            holes.clear();
        }
    }

    /**
     * The holes of a chart: {@code [from, to]} (slot times on the grid of the chart's newest second)
     * of runs of slots where a dimension lacks a value within its own first and last second, between
     * {@code max(windowStart, the chart's first second)} and the newest second.
     */
    private List<long[]> scan(int[] metrics, int ue, long windowStart) throws IOException {
        MetricRegistry reg = engine.registry();
        long newest = 0;
        long first = 0;
        for (int m : metrics) {
            newest = Math.max(newest, reg.lastTime(m, 0));
            long f = reg.firstTime(m, 0);
            if (f != MetricRegistry.NO_TIME && (first == 0 || f < first)) {
                first = f;
            }
        }
        List<long[]> out = new ArrayList<>();
        if (newest == 0 || first == 0) {
            return out;
        }
        long start = Math.max(windowStart, first);
        long last = newest;
        if (start >= last) {
            return out;
        }
        long k = (last - start) / ue;
        long base = last - k * ue;
        int slots = (int) k + 1;
        if (held.length < slots) {
            held = new boolean[slots];
            missing = new boolean[slots];
        }
        boolean[] h = held;
        boolean[] miss = missing;
        Arrays.fill(miss, 0, slots, false);
        for (int m : metrics) {
            long mFirst = reg.firstTime(m, 0);
            long mLast = reg.lastTime(m, 0);
            if (mFirst == MetricRegistry.NO_TIME || mLast < base) {
                continue;
            }
            Arrays.fill(h, 0, slots, false);
            engine.queryTier0Runs(m, base, last, (sns, from, to, firstTime, step) -> {
                long t = firstTime;
                for (int i = from; i < to; i++, t += step) {
                    if (t < base || t > last || StorageNumber.isEmpty(sns[i])) {
                        continue;
                    }
                    // a point off the grid (an update_every changed) holds the slot it falls in
                    int slot = (int) ((t - base + ue - 1) / ue);
                    if (slot < slots) {
                        h[slot] = true;
                    }
                }
            });
            // only within the dimension's own retention: one added later, or no longer collected, has no hole there
            int from = (int) Math.max(0, (mFirst - base + ue - 1) / ue);
            int to = (int) Math.min(slots - 1, (mLast - base) / ue);
            for (int slot = from; slot <= to; slot++) {
                if (!h[slot]) {
                    miss[slot] = true;
                }
            }
        }
        int s = 0;
        while (s < slots) {
            if (!miss[s]) {
                s++;
                continue;
            }
            int e = s;
            while (e < slots && miss[e]) {
                e++;
            }
            out.add(new long[] {base + (long) s * ue, base + (long) (e - 1) * ue});
            s = e;
        }
        return out;
    }

    /**
     * Asks the peers for {@code [from, to]} of a chart, a bounded range at a time: each peer in turn
     * until one's answer brings values this parent lacks, which are submitted (what is left is found
     * again next round, and the next peer asked). Returns the values submitted, or -1 when no peer
     * could be asked (all down or failing: the hole's attempt is not counted).
     */
    private long ask(ChartInfo info, int[] metrics, byte[][] ids, long from, long to, long now) throws IOException {
        int ue = info.updateEvery();
        int n = metrics.length;
        int chunk = (int) Math.max(1, Math.min(PastRangeAnswer.MAX_SLOTS, PastRangeAnswer.MAX_VALUES / n));
        if (answer.length < n || answer[0].length < chunk) {
            // at most MAX_VALUES ints: chunk × n is bounded by it
            answer = new int[n][chunk];
        }
        long submitted = 0;
        boolean anyPeerAnswered = false;
        for (long chunkFrom = from; chunkFrom <= to && !closed; chunkFrom += (long) chunk * ue) {
            int slots = (int) Math.min(chunk, (to - chunkFrom) / ue + 1);
            for (int p = 0; p < peers.size() && !closed; p++) {
                if (peerDownUntil[p] > now) {
                    continue;
                }
                Peer peer = peers.get(p);
                PeerAnswer a;
                try {
                    a = fetch.fetch(peer, info.hostGuid(), info.id(), chunkFrom - ue, chunkFrom + (long) (slots - 1) * ue);
                } catch (IOException | RuntimeException e) {
                    peerDown(p, now, "does not answer: " + e);
                    continue;
                }
                if (a.status() == 404) {
                    // the peer does not know the host or chart: it holds nothing of it
                    anyPeerAnswered = true;
                    peerUp(p);
                    continue;
                }
                if (a.status() != 200) {
                    peerDown(p, now, "answers " + a.status() + ": " + printable(a.body(), a.length()));
                    continue;
                }
                try {
                    parser.parse(a.body(), a.length(), info.id(), ids, chunkFrom, ue, slots, answer);
                } catch (PeerRangeParser.MalformedAnswerException e) {
                    peerDown(p, now, "sent an answer that is not a replication answer: " + e.getMessage());
                    continue;
                }
                anyPeerAnswered = true;
                peerUp(p);
                long got = parser.values() == 0 ? 0 : submit(metrics, ue, chunkFrom, slots);
                if (got > 0) {
                    submitted += got;
                    break;
                }
            }
        }
        return submitted == 0 && !anyPeerAnswered ? -1 : submitted;
    }

    /**
     * Submits the values of {@link #answer} at the slots where this parent holds no value now (read
     * again: the engine keeps a held value anyway, this makes the count exact and the runs short).
     */
    private long submit(int[] metrics, int ue, long chunkFrom, int slots) throws IOException {
        long values = 0;
        long chunkTo = chunkFrom + (long) (slots - 1) * ue;
        for (int d = 0; d < metrics.length; d++) {
            int[] row = answer[d];
            engine.queryTier0Runs(metrics[d], chunkFrom, chunkTo, (sns, from, to, firstTime, step) -> {
                long t = firstTime;
                for (int i = from; i < to; i++, t += step) {
                    long offset = t - chunkFrom;
                    if (offset >= 0 && offset % ue == 0 && offset / ue < slots && !StorageNumber.isEmpty(sns[i])) {
                        row[(int) (offset / ue)] = StorageNumber.SN_EMPTY_SLOT;
                    }
                }
            });
            int count = 0;
            int first = -1;
            int last = -1;
            for (int s = 0; s < slots; s++) {
                if (!StorageNumber.isEmpty(row[s])) {
                    count++;
                    if (first < 0) {
                        first = s;
                    }
                    last = s;
                }
            }
            if (count == 0) {
                continue;
            }
            if (engine.submitPast(metrics[d], chunkFrom + (long) first * ue, ue, row, first, last - first + 1)) {
                values += count;
            } else {
                peerFailures.failed("queue", "hole repair: the engine's queue of past runs is full; a run of "
                        + count + " values from a peer was not stored (asked again later)");
            }
        }
        return values;
    }

    private void peerDown(int p, long now, String why) {
        peerRequestsFailed.increment();
        int failures = ++peerFailureCount[p];
        long wait = Math.min(PEER_BACKOFF_MAX_SECONDS, settings.intervalSeconds() << Math.min(20, failures - 1));
        peerDownUntil[p] = now + wait;
        peerFailures.failed("peer " + peers.get(p), "hole repair: peer " + peers.get(p) + " " + why
                + "; not asked for " + wait + " s");
    }

    private void peerUp(int p) {
        if (peerFailureCount[p] > 0) {
            peerFailureCount[p] = 0;
            peerDownUntil[p] = 0;
            peerFailures.recovered("peer " + peers.get(p), "hole repair: peer " + peers.get(p) + " answers again");
        }
    }

    private static String printable(byte[] b, int length) {
        int to = Math.min(length, 200);
        StringBuilder sb = new StringBuilder(to);
        for (int i = 0; i < to; i++) {
            char c = (char) (b[i] & 0xFF);
            sb.append(c < 0x20 || c >= 0x7f ? '?' : c);
        }
        return sb.toString();
    }

    /** Values from peers handed to the engine at slots this parent lacked, since start. */
    public long samplesFilled() {
        return samplesFilled.sum();
    }

    /** Holes asked of the peers (each round a hole is asked in counts once). */
    public long holesAsked() {
        return holesAsked.sum();
    }

    /** Holes asked {@link Settings#maxAttempts()} times that no peer filled: given up. */
    public long holesUnfillable() {
        return holesUnfillable.sum();
    }

    /** Requests a peer did not answer usably (no connection, a timeout, an error status, a malformed answer). */
    public long peerRequestsFailed() {
        return peerRequestsFailed.sum();
    }

    /** Rounds run since start. */
    public long rounds() {
        return rounds.sum();
    }

    @Override
    public void close() {
        ScheduledExecutorService e;
        synchronized (this) {
            closed = true;
            e = executor;
        }
        if (e != null) {
            e.shutdownNow();
            try {
                if (!e.awaitTermination(10, TimeUnit.SECONDS)) {
                    LOG.warn("hole repair: its round did not stop within 10 s");
                }
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
