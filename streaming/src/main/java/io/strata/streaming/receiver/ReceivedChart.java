package io.strata.streaming.receiver;

import io.strata.engine.meta.ChartInfo;
import io.strata.streaming.collect.Algorithm;
import io.strata.streaming.collect.ChartCollector;
import io.strata.streaming.collect.StoredPointLog;
import io.strata.streaming.collect.StoredPointSink;

import java.util.Arrays;
import java.util.LinkedHashMap;
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
    /** The dimension index the next SET most likely names: the one after the last SET's (0 after BEGIN). */
    int nextDimension;
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
    /** The raw values of the last live collection, by dimension index, and which were set in it. */
    long[] collected = new long[4];
    boolean[] updated = new boolean[4];
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
            collected = Arrays.copyOf(collected, index * 2);
            updated = Arrays.copyOf(updated, index * 2);
        }
        metricIds[index] = metricId;
        int collectorIndex = collector.addDimension(metricId, algorithm, multiplier, divisor);
        if (collectorIndex != index) {
            throw new IllegalStateException("dimension indexes diverged for chart " + info.id());
        }
        return index;
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
