package io.strata.streaming.receiver;

import java.util.concurrent.CompletableFuture;

/**
 * How a parent learns the newest second its peers hold of a host, before it decides whether a
 * host's direct stream is handed over to them ({@link PeerHandOver}). Completes within its own
 * timeout, never exceptionally.
 */
@FunctionalInterface
public interface PeerLookup {

    /** Knows no peer: nobody holds the host, at once. */
    PeerLookup NONE = (destinations, machineGuid) -> CompletableFuture.completedFuture(Answer.NOBODY);

    /**
     * @param destinations the host's {@code proxy destination} setting (Netdata's list syntax)
     * @param machineGuid  the host
     */
    CompletableFuture<Answer> newestSecond(String destinations, String machineGuid);

    /**
     * What the peers said.
     *
     * @param newest          the newest second of the host that a peer which answered holds; -1 when
     *                        none of them holds the host (or none answered)
     * @param everyPeerAnswered false when a peer asked did not answer (down, stopped, partitioned,
     *                        too slow): it may hold more of the host than {@code newest}
     */
    record Answer(long newest, boolean everyPeerAnswered) {

        /** Every peer answered, none holds the host (or there is no peer to ask). */
        public static final Answer NOBODY = new Answer(-1, true);
        /** No peer answered in time. */
        public static final Answer NO_ANSWER = new Answer(-1, false);

        /** Every peer answered; the newest of them holds the host up to {@code newest} (-1: none). */
        public static Answer held(long newest) {
            return new Answer(newest, true);
        }
    }
}
