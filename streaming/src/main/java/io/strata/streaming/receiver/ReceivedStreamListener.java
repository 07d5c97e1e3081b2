package io.strata.streaming.receiver;

import io.strata.streaming.collect.StoredPointLog;

import io.netty.channel.EventLoop;
import io.strata.streaming.auth.StreamAuthorizer;
import io.strata.streaming.handshake.StreamRequest;

import java.util.UUID;

/**
 * What a parent does with a received host besides storing it: forwarding it to its own parents
 * (Netdata's proxy), for example. One {@link Observer} per accepted stream; every call of the
 * observer comes from the stream's event loop, one at a time, right after the engine stored what
 * the call reports, so an observer must not block.
 */
public interface ReceivedStreamListener {

    /** Stores only. */
    ReceivedStreamListener NONE = stream -> Observer.NONE;

    /** A stream was accepted and its host registered; no line was parsed yet. */
    Observer accepted(ReceivedStream stream);

    /** Events of one stream, on its event loop. */
    interface Observer {

        Observer NONE = new Observer() {
        };

        /**
         * A chart was (re)defined ({@code CHART}); its dimensions follow. A forwarder sends the
         * definition again before the chart's next data.
         */
        default void chartDefined(int chartId) {
        }

        /**
         * A live collection ({@code BEGIN}/{@code SET}/{@code END}) was stored; what was set is in
         * {@link ReceivedStream#collectedValues}.
         */
        default void chartCollected(int chartId) {
        }

        /** The chart's replication from the child finished ({@code REND ... true}). */
        default void chartReplicationFinished(int chartId) {
        }

        /** One read from the socket was parsed: a good moment to flush what was batched. */
        default void readComplete() {
        }

        /** The stream ended (the child left, a protocol error, or a replacing connection). */
        default void closed(String reason) {
        }
    }

    /**
     * A read-only view of one received stream for its observer. Chart ids are the engine's
     * ({@code MetadataStore}); dimensions are addressed by engine metric id.
     */
    interface ReceivedStream {

        UUID machineGuid();

        /** The child's request, as parsed (key, hops, system info). */
        StreamRequest request();

        /** What stream.conf says for this host (proxy keys among them). */
        StreamAuthorizer.EffectiveSettings settings();

        long negotiatedCapabilities();

        /** The event loop of the stream: observer calls happen on it; tasks given to it run between lines. */
        EventLoop eventLoop();

        /** Engine ids of the charts this stream defined so far, in definition order. Event loop only. */
        int[] chartIds();

        /** True while the receiver waits for the child's replication answers for the chart. Any thread. */
        boolean replicating(int chartId);

        /** Live collections of the chart stored since the stream started. Event loop only. */
        long collections(int chartId);

        /** The µs between the chart's last two collections, as the child reported them. Event loop only. */
        long microsecondsSinceLastCollection(int chartId);

        /**
         * Whether the engine refused every point of the chart's last collection (this node holds
         * other values for those seconds; a collection that offered none is not refused): a forwarder
         * does not forward such a collection, since a parent lacking those seconds would store
         * values this node does not hold (docs/chaos.md, finding 3). Event loop only.
         */
        boolean lastCollectionRefused(int chartId);

        /**
         * The last collection of the chart: for each engine metric of {@code metrics}, its raw
         * collected value and whether it was set in that collection (false for a metric the stream
         * does not define). Event loop only.
         */
        void collectedValues(int chartId, int[] metrics, long[] values, boolean[] updated);

        /**
         * The points the chart's last collection stored here (what a forwarder sends on in
         * BEGIN2/SET2), empty for a chart this stream does not define. Event loop only.
         */
        default StoredPointLog storedPoints(int chartId) {
            return StoredPointLog.EMPTY;
        }

        /**
         * The collection state of one dimension and of the chart, for a replication answer
         * (RDSTATE/RSSTATE); {@code metric} is an engine metric id. Zeros when unknown.
         */
        long lastCollectedUt(int chartId, int metric);

        long lastCollectedValue(int chartId, int metric);

        double lastCalculatedValue(int chartId, int metric);

        double lastStoredValue(int chartId, int metric);

        long chartLastCollectedUt(int chartId);

        long chartLastUpdatedUt(int chartId);
    }
}
