package io.strata.streaming.receiver;

import io.strata.engine.meta.ChartInfo;
import io.strata.streaming.collect.Algorithm;
import io.strata.streaming.collect.ChartCollector;
import io.strata.streaming.collect.StoredPointLog;
import io.strata.streaming.collect.StoredPointSink;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What the receiver knows of one chart of a streamed host: its definition, dimensions and collection state. */
final class ReceivedChart {

    ChartInfo info;
    /** The engine's id of the chart ({@code MetadataStore.upsertChart}). */
    int chartId = -1;
    final ChartCollector collector;
    /**
     * The latest collection offered points and the engine stored none (this parent holds other
     * values for those seconds): a forwarder does not forward it.
     */
    boolean refused;
    /** What the chart's latest collection (BEGIN..END or BEGIN2..END2) stored, for a forwarder. */
    final StoredPointLog stored;
    final ByteKeyIndex dimensions = new ByteKeyIndex();
    /**
     * The dimension ids again, in index order, each as its length (one byte) then its bytes: a SET
     * compares the id the child sends against the next one here, in the chart's own array, before
     * it asks {@link #dimensions} (whose key bytes and offsets are two more arrays to fetch). An id of
     * {@value #LONG_KEY} bytes or more is written as the length {@value #LONG_KEY} alone: never matched
     * here, always looked up.
     */
    byte[] dimensionSequence = new byte[16];
    /** Where dimension {@code i} starts in {@link #dimensionSequence}; entry {@code dimensionCount()} is its end. */
    int[] dimensionSequenceAt = new int[5];
    /** The dimension index the next SET most likely names: the one after the last SET's (0 after BEGIN). */
    int nextDimension;
    /** The length byte of an id too long to be compared in {@link #dimensionSequence}. */
    static final int LONG_KEY = 255;
    int[] metricIds = new int[4];
    /** Chart labels of the CLABEL lines since the last CLABEL_COMMIT. */
    final Map<String, String> pendingLabels = new LinkedHashMap<>();
    final Map<String, String> variables = new LinkedHashMap<>();
    final Map<String, String> functions = new LinkedHashMap<>();

    /**
     * Replication: a REPLAY_CHART is outstanding; live BEGIN/SET/END is not expected meanwhile.
     * Volatile: a forwarder's sender thread asks it before answering its own parent.
     */
    volatile boolean replicating;
    /** Replication: the request planned while the child did not read (sent when it does), or null. */
    ReceiverReplication.Request deferredRequest;
    /** Replication: the RBEGIN with timestamps of the current replayed point. */
    long replayPointStart;
    long replayPointEnd;
    boolean replayPointOpen;
    /**
     * Replication: the newest second the replay answers of this stream covered so far (the
     * request's start, then each replayed point), checked for holes; 0 when not checked.
     */
    long replayCoveredTo;
    /**
     * Replication: this parent held some second of the chart when its definition ended (before this
     * stream stored any), for {@link PeerHandOver#holeInAnswer}.
     */
    boolean heldBeforeDefinitionEnd;
    /**
     * The end ({@code before}) of the replay answer that started this chart's live stream
     * ({@code REND ... true}), until the chart's first live collection; 0 otherwise. A 2.x child
     * can skip the slots between ({@code ReceiverParser.firstLivePointAfterReplay} says when and why).
     */
    long streamingStartedAfter;
    /** Holes the replay answers left behind, to be asked again ({@link StreamHoles}); null before the first. */
    List<StreamHoles.Hole> holes;
    /**
     * The hole whose {@code REPLAY_CHART} is in flight, or null: the answer's points go behind the
     * chart's newer ones and its collection state lines are not applied (the chart is live).
     */
    StreamHoles.Hole holeAsked;
    /** A replication request planned while a hole's request was in flight: sent at that answer's end. */
    ReceiverReplication.Request requestAfterHole;
    /** Replication: where the chart's steps are (the replication module's state). */
    final ReceiverReplication.ChartReplication replication;
    long replayedPoints;
    boolean obsolete;
    /** A dimension of this chart was refused (over a limit): values of unknown dimensions are skipped. */
    boolean dimensionsRefused;
    /** BEGIN seen and END not yet (or BEGIN2 and END2 not yet, with {@link #interpolated}). */
    boolean collecting;
    /** The open collection is a BEGIN2 one: SET2 and END2 belong to it, SET and END do not. */
    boolean interpolated;
    /**
     * By dimension index, the raw value last collected ({@code [2 i]}) and the number of the live
     * collection that set it ({@code [2 i + 1]}, a {@link #collectionNumber}): a dimension was set in
     * the latest collection when that number is the current one. One array, and nothing to clear at
     * each BEGIN.
     */
    long[] collected = new long[8];
    /** Counts BEGIN and BEGIN2 lines (from 1): the number of the open or latest live collection. */
    long collectionNumber;
    /** Live collections stored since the stream started. */
    long collections;

    ReceivedChart(ChartInfo info, StoredPointSink sink, ReceiverReplication.ChartReplication replication) {
        this.info = info;
        this.replication = replication;
        this.stored = new StoredPointLog(sink);
        this.collector = new ChartCollector(info.updateEvery(), stored);
    }

    /** Adds or redefines a dimension; returns its index. */
    int defineDimension(String id, int metricId, Algorithm algorithm, long multiplier, long divisor) {
        int index = dimensions.get(id);
        if (index >= 0) {
            collector.redefineDimension(index, algorithm, multiplier, divisor);
            return index;
        }
        index = dimensions.add(id);
        if (index == metricIds.length) {
            metricIds = Arrays.copyOf(metricIds, index * 2);
            collected = Arrays.copyOf(collected, index * 4);
        }
        metricIds[index] = metricId;
        appendToSequence(index, id.getBytes(StandardCharsets.UTF_8));
        int collectorIndex = collector.addDimension(metricId, algorithm, multiplier, divisor);
        if (collectorIndex != index) {
            throw new IllegalStateException("dimension indexes diverged for chart " + info.id());
        }
        return index;
    }

    private void appendToSequence(int index, byte[] key) {
        if (index + 2 > dimensionSequenceAt.length) {
            dimensionSequenceAt = Arrays.copyOf(dimensionSequenceAt, dimensionSequenceAt.length * 2);
        }
        int at = dimensionSequenceAt[index];
        boolean inline = key.length < LONG_KEY;
        int size = 1 + (inline ? key.length : 0);
        if (at + size > dimensionSequence.length) {
            dimensionSequence = Arrays.copyOf(dimensionSequence, Math.max(at + size, dimensionSequence.length * 2));
        }
        dimensionSequence[at] = (byte) (inline ? key.length : LONG_KEY);
        if (inline) {
            System.arraycopy(key, 0, dimensionSequence, at + 1, key.length);
        }
        dimensionSequenceAt[index + 1] = at + size;
    }

    /**
     * The index of the dimension whose id is {@code b[s, e)}, or -1: dimension {@link #nextDimension}
     * first, compared in {@link #dimensionSequence}, then {@link #dimensions}. Moves
     * {@link #nextDimension} past the one found.
     */
    int dimensionOf(byte[] b, int s, int e) {
        int next = nextDimension;
        if (next < dimensions.size()) {
            byte[] k = dimensionSequence;
            int at = dimensionSequenceAt[next];
            int length = k[at] & 0xFF;
            if (length == e - s && length != LONG_KEY && sameBytes(k, at + 1, b, s, length)) {
                nextDimension = next + 1;
                return next;
            }
        }
        int index = dimensions.get(b, s, e);
        if (index >= 0) {
            nextDimension = index + 1;
        }
        return index;
    }

    /** A plain loop: ids are a few bytes, too short for a vectorized compare to pay. */
    private static boolean sameBytes(byte[] a, int from, byte[] b, int s, int length) {
        for (int i = 0; i < length; i++) {
            if (a[from + i] != b[s + i]) {
                return false;
            }
        }
        return true;
    }

    /** The raw value last collected for dimension {@code d}. */
    long collectedValue(int d) {
        return collected[2 * d];
    }

    /** Whether the latest live collection set dimension {@code d}. */
    boolean updated(int d) {
        return collectionNumber != 0 && collected[2 * d + 1] == collectionNumber;
    }

    /** A SET or SET2 of the open collection. */
    void collected(int d, long value) {
        collected[2 * d] = value;
        collected[2 * d + 1] = collectionNumber;
    }

    int dimensionCount() {
        return dimensions.size();
    }

    /** The dimension index of an engine metric id, -1 when this stream does not define it. */
    int indexOfMetric(int metricId) {
        int n = dimensions.size();
        for (int i = 0; i < n; i++) {
            if (metricIds[i] == metricId) {
                return i;
            }
        }
        return -1;
    }
}
