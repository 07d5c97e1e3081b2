package io.strata.streaming.receiver;

import io.strata.streaming.auth.StreamAuthorizer;

/**
 * A receiver's gap filling as the wire sees it (netdata-stream.md §6.2): which {@code REPLAY_CHART}
 * the parent sends when a chart's definition ends ({@code CHART_DEFINITION_END}) and after each
 * replication step the child ends without starting to stream ({@code REND ... false}). The
 * receiver parses the replication keywords and stores their points; what to ask, and the state of
 * each chart's steps, belong to the replication module, which the node wires in through
 * {@link ReceiverContext}.
 */
public interface ReceiverReplication {

    /** No gap filling, as a 1.37.1 parent with replication disabled: every chart streams at once ({@code "true" 0 0}). */
    ReceiverReplication NONE = () -> new ChartReplication() {
        @Override
        public Request definitionEnded(long parentLast, long childFirst, long childLast, int dimensions,
                                       long nowSeconds) {
            return Request.START_STREAMING;
        }

        @Override
        public Request stepEnded(long answeredBefore, long parentLast, long childFirst, long childLast,
                                 int dimensions, long nowSeconds) {
            return Request.START_STREAMING;
        }
    };

    /** One per accepted stream, from what stream.conf says for its host ({@code enable replication} and steps). */
    interface Factory {

        Factory NONE = settings -> ReceiverReplication.NONE;

        ReceiverReplication forStream(StreamAuthorizer.EffectiveSettings settings);
    }

    /** The state of one received chart's replication; called on the stream's event loop only. */
    ChartReplication chart();

    /**
     * How far back this stream replicates ({@code seconds to replicate}): a hole an answer left
     * behind is asked again while it is younger ({@link StreamHoles}); 0 keeps none.
     */
    default long secondsToReplicate() {
        return 0;
    }

    /** What the receiver asks: {@code REPLAY_CHART "<chart>" "<start streaming>" <after> <before>}. */
    record Request(boolean startStreaming, long after, long before) {

        /** "Start streaming, send nothing of the past". */
        public static final Request START_STREAMING = new Request(true, 0, 0);

        public String line(String chartId) {
            return "REPLAY_CHART \"" + chartId + "\" \"" + (startStreaming ? "true" : "false") + "\" " + after + " "
                    + before + "\n";
        }
    }

    /** One chart of the stream. Times are unix seconds; 0 means none. */
    interface ChartReplication {

        /**
         * {@code CHART_DEFINITION_END <childFirst> <childLast>}: the first request for the chart
         * (again after a redefinition). {@code parentLast} is the newest second stored here.
         */
        Request definitionEnded(long parentLast, long childFirst, long childLast, int dimensions, long nowSeconds);

        /**
         * {@code REND} with {@code start streaming} false: the next request, from where the step
         * ended ({@code answeredBefore}, REND's {@code before}).
         */
        Request stepEnded(long answeredBefore, long parentLast, long childFirst, long childLast, int dimensions,
                          long nowSeconds);
    }
}
