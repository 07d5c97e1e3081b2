package io.strata.query.http;

import java.util.UUID;

/**
 * What the query API needs to know of the node's stream receivers to answer
 * {@code /api/v3/stream_info}: how many children are connected now and whether a host is one of
 * them. The node sets it; a query API without receivers (a child, a test) has none.
 */
public interface StreamIngest {

    /** No receivers: nothing connected, no host received. */
    StreamIngest NONE = new StreamIngest() {
        @Override
        public int connectedReceivers() {
            return 0;
        }

        @Override
        public boolean receiving(UUID host) {
            return false;
        }
    };

    /** The number of children streaming into this node right now. */
    int connectedReceivers();

    /** True while {@code host} streams into this node directly. */
    boolean receiving(UUID host);
}
