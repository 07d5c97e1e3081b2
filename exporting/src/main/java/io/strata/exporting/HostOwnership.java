package io.strata.exporting;

import java.util.UUID;

/**
 * Which hosts this node exports, so that a cluster of parents exports each host once
 * (docs/exporting.md): a node exports its own host, and a parent the hosts it receives directly from
 * the host itself (a live stream with hops = 1); a host received through another parent (hops &gt; 1), or
 * only stored, is exported by the parent that has it directly.
 */
public interface HostOwnership {

    /** True when this node exports {@code host} now. */
    boolean exports(UUID host);

    /** True while the host's missing seconds are still being filled (replication): its export waits. */
    boolean filling(UUID host);
}
