package io.strata.streaming.receiver;

import java.util.concurrent.CompletableFuture;

/**
 * How a parent learns the newest second its peers hold of a host, before it decides whether a
 * host's direct stream is handed over to them ({@link PeerHandOver}). Completes within its own
 * timeout, never exceptionally: -1 when no peer holds the host or none answered.
 */
@FunctionalInterface
public interface PeerLookup {

    /** Knows no peer: -1 at once. */
    PeerLookup NONE = (destinations, machineGuid) -> CompletableFuture.completedFuture(-1L);

    /**
     * @param destinations the host's {@code proxy destination} setting (Netdata's list syntax)
     * @param machineGuid  the host
     */
    CompletableFuture<Long> newestSecond(String destinations, String machineGuid);
}
