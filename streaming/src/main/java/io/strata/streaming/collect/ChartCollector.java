package io.strata.streaming.collect;

import io.strata.engine.page.StorageNumber;

import java.util.Arrays;

/**
 * The collection state of one chart and the completion of a collection into stored points: our
 * port of Netdata 1.37.1's {@code rrdset_next_usec*} / {@code rrdset_timed_done} with the
 * dimension algorithms and the interpolation of collected values onto {@code update_every}
 * boundaries, plus the effects of the replication keywords on that state.
 *
 * <p>Times are kept as Netdata keeps them: {@code lastCollectedUt} is the chart's
 * {@code last_collected_time} (when the latest collection is deemed to have happened, in µs) and
 * {@code lastUpdatedUt} its {@code last_updated} (the end of the latest stored slot, in µs). A
 * collection at time T covering [previous collection, T] is spread over the slots whose end lies
 * in (previous collection, T]; the rest waits for the next collection. See
 * {@code docs/format/stream-values.md} for the arithmetic with worked examples.
 *
 * <p>Single-threaded. After construction and {@link #addDimension} it allocates nothing: all
 * per-dimension state lives in primitive arrays indexed by the dimension index (the one
 * exception: a dimension's first replayed point behind its metric's newest one allocates the
 * dimension's run of such points, {@link PastRunBuffer}, reused from then on).
 */
public final class ChartCollector {

    static final long USEC_PER_SEC = 1_000_000L;

    /**
     * Netdata's per-chart {@code gap_when_lost_iterations_above}: the global default 1, plus 2.
     * A collection that spans this many slots or more stores gaps in its oldest slots instead of
     * interpolating across them.
     */
    static final int GAP_WHEN_LOST_ITERATIONS_ABOVE = 1 + 2;

    /** {@code MAX_INCREMENTAL_PERCENT_RATE}: the largest wrap, in percent of the counter's range. */
    static final long MAX_INCREMENTAL_PERCENT_RATE = 10;

    /**
     * A collection that would leave more than this many slots between the last stored slot and
     * the collection time resets the chart (1.37.x dbengine: one 4 KiB page of 4-byte points).
     * A long duration alone does not: the 1.37.1 "took too long" reset skips dbengine charts,
     * so a trusted BEGIN of 70 s really moves the chart 70 s on (checked against a real parent).
     */
    static final long MAX_SLOTS_BEFORE_RESET = 4096 / 4;

    private static final long UINT32_MAX = 0xFFFF_FFFFL;
    private static final int FLAGS_NORMAL = StorageNumber.SN_FLAG_NOT_ANOMALOUS;
    private static final int FLAGS_GAP = StorageNumber.SN_FLAG_NONE;

    private static final byte ALG_ABSOLUTE = 0;
    private static final byte ALG_INCREMENTAL = 1;
    private static final byte ALG_PERCENTAGE_OF_ABSOLUTE_ROW = 2;
    private static final byte ALG_PERCENTAGE_OF_INCREMENTAL_ROW = 3;

    private static byte code(Algorithm a) {
        switch (a == null ? Algorithm.ABSOLUTE : a) {
            case INCREMENTAL:
                return ALG_INCREMENTAL;
            case PERCENTAGE_OF_ABSOLUTE_ROW:
                return ALG_PERCENTAGE_OF_ABSOLUTE_ROW;
            case PERCENTAGE_OF_INCREMENTAL_ROW:
                return ALG_PERCENTAGE_OF_INCREMENTAL_ROW;
            default:
                return ALG_ABSOLUTE;
        }
    }

    private final StoredPointSink sink;
    /** Replayed points the engine refused as behind their metric's newest one, stored as past runs. */
    private final PastRunBuffer past;

    private int updateEvery;
    private boolean storeFirst;
    /** RRDSET_FLAG_SYNC_CLOCK: the next duration given by BEGIN is replaced by the wall clock. */
    private boolean syncClock = true;

    private long lastCollectedUt;
    private long lastUpdatedUt;
    private long usecSinceLastUpdate;
    private long counter;
    private long counterDone;
    private long lastStoredTimeSeconds;

    /** A BEGIN whose duration is applied at END with END's clock (see {@link #begin(long)}). */
    private boolean beginPending;
    private long pendingBeginMicros;

    /**
     * Slots stored empty since construction because they ended before the previous collection
     * (see {@link #interpolate}): the sender's collection state ({@code RSSTATE}) was read while
     * its collector was between moving its last collected time and storing the slot.
     */
    private long slotsBehindCollectionState;
    /** The first and last such slot of the latest collection, 0 when it stored none. */
    private long behindStateFrom;
    private long behindStateTo;
    /** The previous collection time (µs) the latest collection found past those slots. */
    private long behindStatePreviousUt;

    /** End time (s) of the replicated point opened by {@link #replayBegin}; 0 = RSET disabled. */
    private long replayPointEndSeconds;
    /**
     * The open replayed point belongs to an answer for a hole behind the chart's live data
     * ({@link #replayBeginBehindLive}): stored with this update_every, the collection state untouched.
     */
    private boolean behindLive;
    private int behindLiveUpdateEvery;

    private int dimensionCount;
    private int[] metricIds = new int[0];
    /**
     * Each dimension's algorithm as one of the {@code ALG_} codes: a switch on a byte, not on an
     * enum (whose switch reads the constant's ordinal and a lookup table for every dimension of
     * every collection).
     */
    private byte[] algorithms = new byte[0];
    /** Dimensions whose algorithm is a percentage of the row: without any, the row's totals are not needed. */
    private int percentageDimensions;
    private long[] multipliers = new long[0];
    private long[] divisors = new long[0];
    private boolean[] resetDetectionDisabled = new boolean[0];
    private boolean[] updated = new boolean[0];
    private long[] collectedValues = new long[0];
    private long[] lastCollectedValues = new long[0];
    private long[] collectedValueMax = new long[0];
    private long[] collectionsCounters = new long[0];
    private long[] dimensionLastCollectedUt = new long[0];
    private double[] calculatedValues = new double[0];
    private double[] lastCalculatedValues = new double[0];
    private double[] lastStoredValues = new double[0];
    /** The values of the slot being stored (NaN: a gap), handed to the sink together. */
    private double[] slotValues = new double[0];

    /**
     * A new chart, as Netdata creates one: never collected, its clock to be synced to the wall
     * clock on its second collection (RRDSET_FLAG_SYNC_CLOCK).
     *
     * @throws IllegalArgumentException if updateEvery is not positive
     * @throws NullPointerException     if sink is null
     */
    public ChartCollector(int updateEvery, StoredPointSink sink) {
        if (sink == null) {
            throw new NullPointerException("sink");
        }
        this.sink = sink;
        this.past = new PastRunBuffer(sink);
        this.updateEvery = checkUpdateEvery(updateEvery);
    }

    // ------------------------------------------------------------------------------------------
    // definition

    /** The chart's update_every changed (CHART line, or replication): takes effect at the next slot. */
    public void updateEvery(int seconds) {
        this.updateEvery = checkUpdateEvery(seconds);
    }

    public int updateEvery() {
        return updateEvery;
    }

    /** Chart option {@code store_first}: store the very first collection instead of dropping it. */
    public void storeFirst(boolean on) {
        this.storeFirst = on;
    }

    /**
     * RRDSET_FLAG_SYNC_CLOCK, which Netdata sets when a chart is created or its definition
     * changes: the next BEGIN's duration is ignored and the wall clock decides.
     */
    public void requestClockSync() {
        this.syncClock = true;
    }

    /**
     * Adds a dimension with a fresh collection state. A multiplier or divisor of 0 becomes 1, as
     * in Netdata.
     *
     * @return the index (0..n-1) by which {@link #set} and the state accessors address it
     */
    public int addDimension(int metricId, Algorithm a, long multiplier, long divisor) {
        int index = dimensionCount;
        if (index == metricIds.length) {
            grow(Math.max(4, index * 2));
        }
        metricIds[index] = metricId;
        dimensionCount = index + 1;
        redefineDimension(index, a, multiplier, divisor);
        lastStoredValues[index] = 0.0;
        return index;
    }

    /** A DIMENSION line changed algorithm/multiplier/divisor: the collection state is kept. */
    public void redefineDimension(int index, Algorithm a, long multiplier, long divisor) {
        checkIndex(index);
        algorithms[index] = code(a);
        int percentages = 0;
        for (int i = 0; i < dimensionCount; i++) {
            if (algorithms[i] >= ALG_PERCENTAGE_OF_ABSOLUTE_ROW) {
                percentages++;
            }
        }
        percentageDimensions = percentages;
        multipliers[index] = multiplier == 0 ? 1 : multiplier;
        divisors[index] = divisor == 0 ? 1 : divisor;
    }

    /** DIMENSION option {@code noreset} / {@code nooverflow}: wraps and resets do not flag the point. */
    public void resetDetection(int index, boolean enabled) {
        checkIndex(index);
        resetDetectionDisabled[index] = !enabled;
    }

    public int dimensionCount() {
        return dimensionCount;
    }

    public int metricId(int index) {
        checkIndex(index);
        return metricIds[index];
    }

    // ------------------------------------------------------------------------------------------
    // collection

    /**
     * BEGIN with the child's duration since its previous collection of this chart (trusted, as the
     * 1.37.1 receiver does); 0 means "unknown: measure it with the wall clock". The duration is
     * applied by {@link #end} with END's clock; use {@link #begin(long, long)} to apply it with
     * BEGIN's clock exactly as Netdata does (the two differ only by the BEGIN..END time).
     * A negative duration is read as 0, as Netdata's parser does.
     */
    public void begin(long microsecondsSinceLastCollection) {
        beginPending = true;
        pendingBeginMicros = Math.max(0, microsecondsSinceLastCollection);
    }

    /** {@link #begin(long)} applied at once with the receiver's wall clock at BEGIN. */
    public void begin(long microsecondsSinceLastCollection, long nowMicros) {
        beginPending = false;
        applyBegin(Math.max(0, microsecondsSinceLastCollection), nowMicros);
    }

    /** SET: the raw collected value of one dimension for the current collection. */
    public void set(int dimensionIndex, long collectedValue) {
        checkIndex(dimensionIndex);
        collectedValues[dimensionIndex] = collectedValue;
        updated[dimensionIndex] = true;
        collectionsCounters[dimensionIndex]++;
        long magnitude = collectedValue >= 0 ? collectedValue : -collectedValue;
        if (magnitude > collectedValueMax[dimensionIndex]) {
            collectedValueMax[dimensionIndex] = magnitude;
        }
    }

    /** END: completes the collection with the receiver's wall clock (µs since the epoch). */
    public void end(long nowMicros) {
        if (beginPending) {
            beginPending = false;
            applyBegin(pendingBeginMicros, nowMicros);
        }
        done(nowMicros);
    }

    /**
     * A local collector's iteration: {@code rrdset_next()} (duration measured with the wall clock)
     * then {@code rrdset_done()}, both at {@code nowMicros}.
     */
    public void collectNow(long nowMicros) {
        beginPending = false;
        if (counterDone != 0) {
            nextUsec(0, nowMicros);
        }
        done(nowMicros);
    }

    // ------------------------------------------------------------------------------------------
    // interpolated collection (BEGIN2 / SET2 / END2 of a 2.x child)

    /**
     * {@code BEGIN2}: the child already interpolated this collection onto the slot ending at
     * {@code endSeconds}; the chart takes {@code updateEvery} and that time as its last collected
     * and last updated time, as Netdata 2.x's {@code pluginsd_begin_v2} does. Nothing is
     * interpolated here: {@link #interpolatedSet} stores what the child computed.
     */
    public void interpolatedBegin(int updateEverySeconds, long endSeconds) {
        if (updateEverySeconds != updateEvery) {
            updateEvery(updateEverySeconds);
        }
        long endUt = endSeconds * USEC_PER_SEC;
        usecSinceLastUpdate = lastCollectedUt > 0 && endUt > lastCollectedUt
                ? endUt - lastCollectedUt : (long) updateEvery * USEC_PER_SEC;
        lastCollectedUt = endUt;
        lastUpdatedUt = endUt;
        counter++;
        counterDone++;
        beginPending = false;
        // the next v1 BEGIN (a child that falls back) measures from here
        syncClock = false;
    }

    /**
     * {@code SET2}: stores the child's value at the slot opened by {@link #interpolatedBegin} with
     * the child's flags, and keeps the collected value as the dimension's collection state.
     *
     * @param value NaN or infinite for an empty slot (stored as a gap)
     * @param flags engine user flags ({@code SN_FLAG_NOT_ANOMALOUS}, {@code SN_FLAG_RESET})
     */
    public void interpolatedSet(int index, long collectedValue, double value, int flags) {
        checkIndex(index);
        long endSeconds = lastCollectedUt / USEC_PER_SEC;
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            sink.store(metricIds[index], endSeconds, updateEvery, Double.NaN, FLAGS_GAP);
        } else {
            sink.store(metricIds[index], endSeconds, updateEvery, value, flags & StorageNumber.SN_USER_FLAGS);
        }
        lastStoredTimeSeconds = endSeconds;
        dimensionLastCollectedUt[index] = lastCollectedUt;
        lastCollectedValues[index] = collectedValue;
        collectedValues[index] = collectedValue;
        lastCalculatedValues[index] = value;
        lastStoredValues[index] = value;
        collectionsCounters[index]++;
    }

    // ------------------------------------------------------------------------------------------
    // replication (RBEGIN / RSET / RDSTATE / RSSTATE / REND)

    /**
     * A timestamped {@code RBEGIN '' start end now}, already checked by the receiver (start < end,
     * both below the child's clock + update_every + 1). The chart adopts {@code end - start} as
     * update_every and {@code end} as its last collected and last stored time, as Netdata does.
     */
    public void replayBegin(long startSeconds, long endSeconds) {
        if (startSeconds <= 0 || endSeconds <= startSeconds) {
            throw new IllegalArgumentException("replicated point needs 0 < start < end, got " + startSeconds + ".." + endSeconds);
        }
        long interval = endSeconds - startSeconds;
        if (interval != updateEvery) {
            updateEvery(checkUpdateEvery(interval > Integer.MAX_VALUE ? -1 : (int) interval));
        }
        lastCollectedUt = endSeconds * USEC_PER_SEC;
        lastUpdatedUt = endSeconds * USEC_PER_SEC;
        counter++;
        counterDone++;
        replayPointEndSeconds = endSeconds;
        behindLive = false;
    }

    /**
     * A timestamped {@code RBEGIN} of an answer for a hole behind the chart's live data (the
     * receiver asked the stream again for seconds it skipped): its {@code RSET}s are stored at
     * {@code endSeconds} (through the past path where the metric holds newer points), and neither
     * the chart's update_every nor its collection times or counters move, so the live collection
     * that goes on meanwhile keeps interpolating from its own last collection.
     */
    public void replayBeginBehindLive(long startSeconds, long endSeconds) {
        if (startSeconds <= 0 || endSeconds <= startSeconds || endSeconds - startSeconds > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("replicated point needs 0 < start < end, got " + startSeconds + ".." + endSeconds);
        }
        replayPointEndSeconds = endSeconds;
        behindLive = true;
        behindLiveUpdateEvery = (int) (endSeconds - startSeconds);
    }

    /** The end ({@code REND}) of an answer for a hole behind live data: its past runs go to the engine. */
    public void replayEndBehindLive() {
        replayPointEndSeconds = 0;
        behindLive = false;
        past.flushAll();
    }

    /**
     * Hands the replayed points gathered behind their metrics' newest points to the engine's past
     * path now rather than at the answer's {@code REND}: for a stream that ends within an answer.
     */
    public void flushPastPoints() {
        past.flushAll();
    }

    /** Replayed values refused by the normal store as behind their metric's newest point, offered to the past path. */
    public long pastPointsOffered() {
        return past.offered();
    }

    /** Runs of {@link #pastPointsOffered()} the engine refused (its queue of past runs was full). */
    public long pastRunsRefused() {
        return past.runsRefused();
    }

    /** An {@code RBEGIN} without timestamps: selects the chart and disables RSET until the next timed one. */
    public void replayBeginUntimed() {
        replayPointEndSeconds = 0;
        behindLive = false;
    }

    /**
     * {@code RSET}: stores an already computed value at the open replicated point's end time, as is.
     *
     * @param value NaN for an empty slot ({@code "E"})
     * @param flags the engine user flags decoded from the RSET flags ({@code "R"} = SN_FLAG_RESET);
     *              ignored for an empty slot
     * @return false if no timestamped {@link #replayBegin} is open, in which case nothing is stored
     */
    public boolean replaySet(int index, double value, int flags) {
        checkIndex(index);
        if (replayPointEndSeconds == 0) {
            return false;
        }
        boolean gap = Double.isNaN(value) || Double.isInfinite(value);
        int storedFlags = gap ? FLAGS_GAP : flags & StorageNumber.SN_USER_FLAGS;
        if (behindLive) {
            int ue = behindLiveUpdateEvery;
            if (!sink.storeReplayed(metricIds[index], replayPointEndSeconds, ue, gap ? Double.NaN : value,
                    storedFlags)) {
                past.add(index, metricIds[index], replayPointEndSeconds, ue,
                        gap ? StorageNumber.SN_EMPTY_SLOT : StorageNumber.pack(value, storedFlags));
            }
            return true;
        }
        if (!sink.storeReplayed(metricIds[index], replayPointEndSeconds, updateEvery, gap ? Double.NaN : value,
                storedFlags)) {
            // behind the metric's newest point (a hole stored past): offered to the engine's past
            // path when the run of such points ends, where the metric holds no value
            past.add(index, metricIds[index], replayPointEndSeconds, updateEvery,
                    gap ? StorageNumber.SN_EMPTY_SLOT : StorageNumber.pack(value, storedFlags));
        }
        lastStoredTimeSeconds = replayPointEndSeconds;
        dimensionLastCollectedUt[index] = replayPointEndSeconds * USEC_PER_SEC;
        collectionsCounters[index]++;
        return true;
    }

    /**
     * {@code REND}: closes a replication answer. With {@code startStreaming} the chart takes the
     * child's update_every and the clock sync is cancelled, so live data continues from the
     * replicated state with the child's durations.
     */
    public void replayEnd(boolean startStreaming, int childUpdateEvery) {
        replayPointEndSeconds = 0;
        behindLive = false;
        past.flushAll();
        counter++;
        counterDone++;
        if (startStreaming) {
            if (childUpdateEvery != updateEvery) {
                updateEvery(childUpdateEvery);
            }
            syncClock = false;
        }
    }

    /**
     * {@code RDSTATE}: the child's collection state of a dimension. The last collected time only
     * moves forward; the values are overwritten.
     */
    public void dimensionState(int index, long lastCollectedUt, long lastCollectedValue,
                               double lastCalculatedValue, double lastStoredValue) {
        checkIndex(index);
        if (Long.compareUnsigned(lastCollectedUt, dimensionLastCollectedUt[index]) > 0) {
            dimensionLastCollectedUt[index] = lastCollectedUt;
        }
        lastCollectedValues[index] = lastCollectedValue;
        lastCalculatedValues[index] = lastCalculatedValue;
        lastStoredValues[index] = lastStoredValue;
        // The child handed over its last collection, so the next live value is this dimension's
        // second, not its first. Without this, an answer without points (the parent already held
        // them: a failover to a parent that had the host through its peer) leaves the first live
        // second empty, as 1.37.1 does; only RSET counted before. A state with no collection time
        // hands over nothing: the sender never collected the dimension (its value is 0), and a
        // delta from it would store the whole counter as one rate.
        if (collectionsCounters[index] == 0 && lastCollectedUt != 0) {
            collectionsCounters[index] = 1;
        }
    }

    /**
     * {@code RSSTATE}: the child's chart collection times (µs). Each only moves forward; the chart
     * counts as collected from now on (no first-collection treatment for the next END).
     */
    public void chartState(long lastCollectedUt, long lastUpdatedUt) {
        if (Long.compareUnsigned(lastCollectedUt, this.lastCollectedUt) > 0) {
            this.lastCollectedUt = lastCollectedUt;
        }
        if (Long.compareUnsigned(lastUpdatedUt, this.lastUpdatedUt) > 0) {
            this.lastUpdatedUt = lastUpdatedUt;
        }
        counter++;
        counterDone++;
    }

    // ------------------------------------------------------------------------------------------
    // state out (RDSTATE / RSSTATE / BEGIN of a child)

    public long lastCollectedUt(int index) {
        checkIndex(index);
        return dimensionLastCollectedUt[index];
    }

    public long lastCollectedValue(int index) {
        checkIndex(index);
        return lastCollectedValues[index];
    }

    public double lastCalculatedValue(int index) {
        checkIndex(index);
        return lastCalculatedValues[index];
    }

    public double lastStoredValue(int index) {
        checkIndex(index);
        return lastStoredValues[index];
    }

    public long chartLastCollectedUt() {
        return lastCollectedUt;
    }

    public long chartLastUpdatedUt() {
        return lastUpdatedUt;
    }

    /** The duration of the latest collection, what a child writes in BEGIN. */
    public long microsecondsSinceLastCollection() {
        return usecSinceLastUpdate;
    }

    /**
     * Slots stored empty since construction because they ended before the previous collection: a
     * sender's {@code RSSTATE} that had moved its last collected time past a slot it had not stored
     * yet (a Netdata 1.37.1 sender answers replication without the chart's collection lock). No
     * collection the sender streamed covers them.
     */
    public long slotsBehindCollectionState() {
        return slotsBehindCollectionState;
    }

    /** The first slot (s) the latest collection stored empty so, 0 when none. */
    public long latestSlotsBehindStateFrom() {
        return behindStateFrom;
    }

    /** The last slot (s) the latest collection stored empty so, 0 when none. */
    public long latestSlotsBehindStateTo() {
        return behindStateTo;
    }

    /** The previous collection time (µs) that lay past {@link #latestSlotsBehindStateFrom()}. */
    public long latestSlotsBehindStatePreviousUt() {
        return behindStatePreviousUt;
    }

    /** End time of the latest slot this collector stored (value or gap), 0 if none yet. */
    public long lastStoredTimeSeconds() {
        return lastStoredTimeSeconds;
    }

    /** How many times a collection was completed (END, RSSTATE, RBEGIN and REND count, as in Netdata). */
    public long completedCollections() {
        return counterDone;
    }

    // ------------------------------------------------------------------------------------------
    // rrdset_next_usec* : the duration of the current collection

    private void applyBegin(long micros, long nowMicros) {
        // the first BEGIN of a chart never collected leaves the timing to END
        if (counterDone == 0) {
            return;
        }
        if (micros != 0) {
            nextUsecUnfiltered(micros, nowMicros);
        } else {
            nextUsec(0, nowMicros);
        }
    }

    private void nextUsecUnfiltered(long micros, long nowMicros) {
        if (lastCollectedUt == 0 || micros == 0 || syncClock) {
            nextUsec(micros, nowMicros);
            return;
        }
        usecSinceLastUpdate = micros;
    }

    private void nextUsec(long micros, long nowMicros) {
        if (syncClock) {
            syncClock = false;
            micros = 0;
        }
        if (lastCollectedUt == 0) {
            micros = updateEvery * USEC_PER_SEC;
        } else if (micros == 0) {
            // Netdata takes the absolute difference: a clock that went back still moves the chart on
            micros = Math.abs(nowMicros - lastCollectedUt);
        } else {
            long sinceLast = nowMicros - lastCollectedUt;
            if (sinceLast < 0) {
                micros = 0;
            } else if (sinceLast > updateEvery * 5L * USEC_PER_SEC) {
                micros = sinceLast;
            }
        }
        usecSinceLastUpdate = micros;
    }

    // ------------------------------------------------------------------------------------------
    // rrdset_timed_done

    private void done(long nowMicros) {
        behindStateFrom = 0;
        behindStateTo = 0;
        long updateEveryUt = updateEvery * USEC_PER_SEC;
        boolean storeThisEntry = true;
        boolean firstEntry = false;

        long lastCollectUt;
        if (lastCollectedUt == 0) {
            lastCollectedUt = alignedFirstCollection(nowMicros);
            lastCollectUt = lastCollectedUt - updateEveryUt;
            storeThisEntry = false;
            firstEntry = true;
        } else {
            lastCollectUt = lastCollectedUt;
            lastCollectedUt += usecSinceLastUpdate;
        }

        if (lastUpdatedUt == 0) {
            initLastUpdated();
            storeThisEntry = false;
            firstEntry = true;
        }

        if (Math.abs(lastCollectedUt - lastUpdatedUt) > MAX_SLOTS_BEFORE_RESET * updateEveryUt) {
            // too far from the stored timeline: start over (the current collection is not stored)
            reset();
            initLastUpdated();
            usecSinceLastUpdate = updateEveryUt;
            storeThisEntry = false;
            firstEntry = true;
        }

        long nowCollectUt = lastCollectedUt;
        long lastStoredUt = lastUpdatedUt;
        long nextStoreUt = (lastUpdatedUt / USEC_PER_SEC + updateEvery) * USEC_PER_SEC;

        if (counterDone == 0) {
            // never completed before: the stored timeline restarts at the current collection
            initLastUpdated();
            lastStoredUt = lastUpdatedUt;
            nextStoreUt = (lastUpdatedUt / USEC_PER_SEC + updateEvery) * USEC_PER_SEC;
            if (storeFirst) {
                storeThisEntry = true;
                lastCollectUt = nextStoreUt - updateEveryUt;
            } else {
                storeThisEntry = false;
            }
        }
        // A real 1.37.1 parent stores the first collection of a store_first chart with every
        // dimension treated as already collected once (raw value for absolute, value - 0 for
        // incremental); we reproduce that observed behaviour by lowering the history bar.
        long requiredHistory = counterDone == 0 && storeFirst ? 0 : 1;
        counterDone++;

        boolean hasResetValue = calculate(requiredHistory);
        interpolate(updateEveryUt, lastStoredUt, nextStoreUt, lastCollectUt, nowCollectUt, storeThisEntry, hasResetValue,
                requiredHistory);
        finishCollection(firstEntry, nowMicros);
    }

    /** rrdset_reset: the chart and its dimensions forget their timing (values are kept). */
    private void reset() {
        lastCollectedUt = 0;
        lastUpdatedUt = 0;
        counter = 0;
        counterDone = 0;
        for (int i = 0; i < dimensionCount; i++) {
            dimensionLastCollectedUt[i] = 0;
            collectionsCounters[i] = 0;
        }
    }

    /** The first collection is put in the middle of its slot (or at its start with store_first). */
    private long alignedFirstCollection(long nowMicros) {
        long seconds = Math.floorDiv(nowMicros, USEC_PER_SEC);
        seconds -= seconds % updateEvery;
        return seconds * USEC_PER_SEC + (storeFirst ? 0 : 500_000L);
    }

    private void initLastUpdated() {
        long seconds = Math.floorDiv(lastCollectedUt, USEC_PER_SEC);
        if (storeFirst) {
            seconds -= updateEvery;
        }
        seconds -= seconds % updateEvery;
        lastUpdatedUt = seconds * USEC_PER_SEC;
    }

    /**
     * Applies the algorithms to the collected values of this collection (no interpolation yet).
     *
     * @return whether a counter of the chart wrapped or was reset (the next stored point is flagged)
     */
    private boolean calculate(long requiredHistory) {
        boolean hasResetValue = false;
        long collectedTotal = 0;
        long lastCollectedTotal = 0;
        // the row's totals serve the percentage algorithms only
        for (int i = 0; percentageDimensions > 0 && i < dimensionCount; i++) {
            if (!updated[i]) {
                continue;
            }
            if (algorithms[i] == ALG_PERCENTAGE_OF_INCREMENTAL_ROW && lastCollectedValues[i] > collectedValues[i]) {
                // a counter that went back restarts from here: zero increment for this collection
                if (!resetDetectionDisabled[i]) {
                    hasResetValue = true;
                }
                lastCollectedValues[i] = collectedValues[i];
            }
            lastCollectedTotal += lastCollectedValues[i];
            collectedTotal += collectedValues[i];
        }

        for (int i = 0; i < dimensionCount; i++) {
            if (!updated[i]) {
                calculatedValues[i] = 0;
                continue;
            }
            long collected = collectedValues[i];
            long previous = lastCollectedValues[i];
            switch (algorithms[i]) {
                case ALG_ABSOLUTE:
                    calculatedValues[i] = (double) collected * (double) multipliers[i] / (double) divisors[i];
                    break;
                case ALG_PERCENTAGE_OF_ABSOLUTE_ROW:
                    calculatedValues[i] = collectedTotal == 0 ? 0 : 100.0 * (double) collected / (double) collectedTotal;
                    break;
                case ALG_INCREMENTAL:
                    if (collectionsCounters[i] <= requiredHistory) {
                        calculatedValues[i] = 0;
                        break;
                    }
                    if (Long.compareUnsigned(previous, collected) > 0) {
                        if (!resetDetectionDisabled[i]) {
                            hasResetValue = true;
                        }
                        // a 32-bit counter wraps at 2^32-1, anything bigger at 2^64-1 (two's complement)
                        long cap = Long.compareUnsigned(collectedValueMax[i], UINT32_MAX) > 0 ? -1L : UINT32_MAX;
                        long delta = cap - previous + collected;
                        long maxAcceptableRate = Long.divideUnsigned(cap, 100) * MAX_INCREMENTAL_PERCENT_RATE;
                        if (Long.compareUnsigned(delta, maxAcceptableRate) < 0) {
                            calculatedValues[i] += unsignedToDouble(delta) * (double) multipliers[i] / (double) divisors[i];
                        }
                        // else: a reset, which contributes nothing to this collection
                    } else {
                        calculatedValues[i] += (double) (collected - previous) * (double) multipliers[i] / (double) divisors[i];
                    }
                    break;
                case ALG_PERCENTAGE_OF_INCREMENTAL_ROW:
                    if (collectionsCounters[i] <= requiredHistory) {
                        calculatedValues[i] = 0;
                        break;
                    }
                    if (collectedTotal == lastCollectedTotal) {
                        calculatedValues[i] = 0;
                    } else {
                        calculatedValues[i] = 100.0 * (double) (collected - previous)
                                / (double) (collectedTotal - lastCollectedTotal);
                    }
                    break;
                default:
                    throw new AssertionError(algorithms[i]);
            }
        }
        return hasResetValue;
    }

    /** rrdset_done_interpolate: stores every slot whose end lies in (previous collection, now]. */
    private void interpolate(long updateEveryUt, long lastStoredUt, long nextStoreUt, long lastCollectUt,
                             long nowCollectUt, boolean storeThisEntry, boolean hasResetValue, long requiredHistory) {
        long iterations = (nowCollectUt - lastStoredUt) / updateEveryUt;
        if (nowCollectUt % updateEveryUt == 0) {
            iterations++;
        }
        int storageFlags = hasResetValue ? FLAGS_NORMAL | StorageNumber.SN_FLAG_RESET : FLAGS_NORMAL;

        for (; nextStoreUt <= nowCollectUt; nextStoreUt += updateEveryUt, iterations--) {
            long pointTimeSeconds = nextStoreUt / USEC_PER_SEC;
            if (nextStoreUt < lastCollectUt) {
                // A slot ending before the previous collection: the sender's chart state said it
                // collected later than the slot after its last stored one (a 1.37.1 parent answers
                // replication while its receiver is between the two in rrdset_done). No pair of
                // collections spans it; 1.37.1 takes the negative time since the last collection as
                // unsigned (~1.8e19 µs) and stores garbage. Stored empty, and the collection is
                // spread from the previous collection onwards.
                Arrays.fill(slotValues, 0, dimensionCount, Double.NaN);
                Arrays.fill(lastStoredValues, 0, dimensionCount, Double.NaN);
                sink.storeSlot(metricIds, slotValues, dimensionCount, pointTimeSeconds, updateEvery, storageFlags);
                slotsBehindCollectionState++;
                if (behindStateFrom == 0) {
                    behindStateFrom = pointTimeSeconds;
                }
                behindStateTo = pointTimeSeconds;
                behindStatePreviousUt = lastCollectUt;
                counter++;
                lastUpdatedUt = pointTimeSeconds * USEC_PER_SEC;
                lastStoredTimeSeconds = pointTimeSeconds;
                lastStoredUt = nextStoreUt;
                continue;
            }
            double sinceLastCollect = unsignedToDouble(nextStoreUt - lastCollectUt);
            double collectionSpan = unsignedToDouble(nowCollectUt - lastCollectUt);

            for (int i = 0; i < dimensionCount; i++) {
                double newValue;
                if (algorithms[i] == ALG_INCREMENTAL) {
                    // the slot gets its share of the increase, plus what the previous collection left over
                    newValue = calculatedValues[i] * sinceLastCollect / collectionSpan;
                    calculatedValues[i] -= newValue;
                    newValue += lastCalculatedValues[i];
                    lastCalculatedValues[i] = 0;
                    newValue /= updateEvery;
                    long slotSoFar = nextStoreUt - lastStoredUt;
                    if (slotSoFar < updateEveryUt) {
                        newValue = newValue * (double) updateEveryUt / unsignedToDouble(slotSoFar);
                    }
                } else if (iterations == 1) {
                    newValue = calculatedValues[i];
                } else {
                    newValue = (calculatedValues[i] - lastCalculatedValues[i]) * sinceLastCollect / collectionSpan
                            + lastCalculatedValues[i];
                }

                if (!storeThisEntry) {
                    slotValues[i] = Double.NaN;
                    continue;
                }
                if (updated[i] && collectionsCounters[i] > requiredHistory && iterations < GAP_WHEN_LOST_ITERATIONS_ABOVE) {
                    slotValues[i] = newValue;
                    lastStoredValues[i] = newValue;
                } else {
                    slotValues[i] = Double.NaN;
                    lastStoredValues[i] = Double.NaN;
                }
            }
            // the slot's points, NaN a gap (FLAGS_GAP), in one call
            sink.storeSlot(metricIds, slotValues, dimensionCount, pointTimeSeconds, updateEvery, storageFlags);

            // only the first slot of a collection carries the reset flag
            storageFlags = FLAGS_NORMAL;
            counter++;
            lastUpdatedUt = pointTimeSeconds * USEC_PER_SEC;
            lastStoredTimeSeconds = pointTimeSeconds;
            lastStoredUt = nextStoreUt;
            lastCollectUt = nextStoreUt;
        }
    }

    private void finishCollection(boolean firstEntry, long nowMicros) {
        for (int i = 0; i < dimensionCount; i++) {
            if (!updated[i]) {
                continue;
            }
            lastCollectedValues[i] = collectedValues[i];
            if (algorithms[i] == ALG_INCREMENTAL) {
                // what was not yet stored is carried to the next collection's first slot
                if (!firstEntry) {
                    lastCalculatedValues[i] += calculatedValues[i];
                }
            } else {
                lastCalculatedValues[i] = calculatedValues[i];
            }
            calculatedValues[i] = 0;
            collectedValues[i] = 0;
            updated[i] = false;
            dimensionLastCollectedUt[i] = nowMicros;
        }
    }

    // ------------------------------------------------------------------------------------------

    private static double unsignedToDouble(long v) {
        if (v >= 0) {
            return (double) v;
        }
        // round like C's uint64 -> double conversion: halve with the low bit kept as sticky bit
        return ((double) ((v >>> 1) | (v & 1))) * 2.0;
    }

    private static int checkUpdateEvery(int seconds) {
        if (seconds <= 0) {
            throw new IllegalArgumentException("update_every must be a positive number of seconds, got " + seconds);
        }
        return seconds;
    }

    private void checkIndex(int index) {
        if (index < 0 || index >= dimensionCount) {
            throw new IndexOutOfBoundsException("dimension index " + index + " outside 0.." + (dimensionCount - 1));
        }
    }

    private void grow(int capacity) {
        metricIds = Arrays.copyOf(metricIds, capacity);
        algorithms = Arrays.copyOf(algorithms, capacity);
        multipliers = Arrays.copyOf(multipliers, capacity);
        divisors = Arrays.copyOf(divisors, capacity);
        resetDetectionDisabled = Arrays.copyOf(resetDetectionDisabled, capacity);
        updated = Arrays.copyOf(updated, capacity);
        collectedValues = Arrays.copyOf(collectedValues, capacity);
        lastCollectedValues = Arrays.copyOf(lastCollectedValues, capacity);
        collectedValueMax = Arrays.copyOf(collectedValueMax, capacity);
        collectionsCounters = Arrays.copyOf(collectionsCounters, capacity);
        dimensionLastCollectedUt = Arrays.copyOf(dimensionLastCollectedUt, capacity);
        calculatedValues = Arrays.copyOf(calculatedValues, capacity);
        lastCalculatedValues = Arrays.copyOf(lastCalculatedValues, capacity);
        lastStoredValues = Arrays.copyOf(lastStoredValues, capacity);
        slotValues = Arrays.copyOf(slotValues, capacity);
    }
}
