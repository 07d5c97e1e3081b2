package io.strata.streaming.receiver;

import io.strata.streaming.collect.StoredPointLog;

import io.netty.channel.EventLoop;
import io.strata.streaming.auth.StreamAuthorizer;
import io.strata.streaming.collect.ChartCollector;
import io.strata.streaming.handshake.StreamRequest;

import java.util.UUID;

/** The {@link ReceivedStreamListener.ReceivedStream} of one accepted stream, backed by its parser. */
final class ReceivedStreamView implements ReceivedStreamListener.ReceivedStream {

    private final ReceiverParser parser;
    private final UUID guid;
    private final StreamRequest request;
    private final StreamAuthorizer.EffectiveSettings settings;
    private final long caps;
    private final EventLoop loop;

    ReceivedStreamView(ReceiverParser parser, UUID guid, StreamRequest request,
                       StreamAuthorizer.EffectiveSettings settings, long caps, EventLoop loop) {
        this.parser = parser;
        this.guid = guid;
        this.request = request;
        this.settings = settings;
        this.caps = caps;
        this.loop = loop;
    }

    @Override
    public UUID machineGuid() {
        return guid;
    }

    @Override
    public StreamRequest request() {
        return request;
    }

    @Override
    public StreamAuthorizer.EffectiveSettings settings() {
        return settings;
    }

    @Override
    public long negotiatedCapabilities() {
        return caps;
    }

    @Override
    public EventLoop eventLoop() {
        return loop;
    }

    @Override
    public int[] chartIds() {
        return parser.chartIds();
    }

    @Override
    public boolean replicating(int chartId) {
        ReceivedChart c = parser.byChartId(chartId);
        return c != null && c.replicating;
    }

    @Override
    public long collections(int chartId) {
        ReceivedChart c = parser.byChartId(chartId);
        return c == null ? 0 : c.collections;
    }

    @Override
    public long microsecondsSinceLastCollection(int chartId) {
        ReceivedChart c = parser.byChartId(chartId);
        return c == null ? 0 : c.collector.microsecondsSinceLastCollection();
    }

    @Override
    public boolean lastCollectionRefused(int chartId) {
        ReceivedChart c = parser.byChartId(chartId);
        return c != null && c.refused;
    }

    @Override
    public StoredPointLog storedPoints(int chartId) {
        ReceivedChart c = parser.byChartId(chartId);
        return c == null ? StoredPointLog.EMPTY : c.stored;
    }

    @Override
    public void collectedValues(int chartId, int[] metrics, long[] values, boolean[] updated) {
        ReceivedChart c = parser.byChartId(chartId);
        for (int i = 0; i < metrics.length; i++) {
            int d = c == null ? -1 : c.indexOfMetric(metrics[i]);
            if (d < 0) {
                values[i] = 0;
                updated[i] = false;
            } else {
                values[i] = c.collectedValue(d);
                updated[i] = c.updated(d);
            }
        }
    }

    /** The collector of the chart when it defines {@code metric}, else null; {@link #dim} is its index. */
    private ChartCollector collectorOf(int chartId, int metric) {
        ReceivedChart c = parser.byChartId(chartId);
        dim = c == null ? -1 : c.indexOfMetric(metric);
        return dim < 0 ? null : c.collector;
    }

    /** Out-parameter of {@link #collectorOf}: the accessors run on the stream's event loop only (a replication answer's snapshot). */
    private int dim;

    @Override
    public long lastCollectedUt(int chartId, int metric) {
        ChartCollector c = collectorOf(chartId, metric);
        return c == null ? 0 : c.lastCollectedUt(dim);
    }

    @Override
    public long lastCollectedValue(int chartId, int metric) {
        ChartCollector c = collectorOf(chartId, metric);
        return c == null ? 0 : c.lastCollectedValue(dim);
    }

    @Override
    public double lastCalculatedValue(int chartId, int metric) {
        ChartCollector c = collectorOf(chartId, metric);
        return c == null ? 0 : c.lastCalculatedValue(dim);
    }

    @Override
    public double lastStoredValue(int chartId, int metric) {
        ChartCollector c = collectorOf(chartId, metric);
        return c == null ? 0 : c.lastStoredValue(dim);
    }

    @Override
    public long chartLastCollectedUt(int chartId) {
        ReceivedChart c = parser.byChartId(chartId);
        return c == null ? 0 : c.collector.chartLastCollectedUt();
    }

    @Override
    public long chartLastUpdatedUt(int chartId) {
        ReceivedChart c = parser.byChartId(chartId);
        return c == null ? 0 : c.collector.chartLastUpdatedUt();
    }
}
