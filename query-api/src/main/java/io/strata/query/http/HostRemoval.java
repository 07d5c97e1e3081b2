package io.strata.query.http;

import io.strata.engine.meta.MetadataStore;

import java.util.UUID;

/**
 * Removes an obsolete host ({@code DELETE /api/v1/manage/host}) with its metadata. The node's own
 * removal refuses a host that streams into it now and frees the host's place under its API key;
 * a query API without receivers (a child, a test) removes from the metadata store alone.
 */
public interface HostRemoval {

    /** What a removal did. */
    enum Outcome {
        /** The host and its charts and dimensions are gone from the metadata store. */
        REMOVED,
        /** A stream of the host is live: nothing was removed. */
        STREAMING,
        /** No host has this machine GUID (any more). */
        UNKNOWN
    }

    Outcome remove(UUID machineGuid);

    /** Removes from {@code store} only: for a node that receives no streams. */
    static HostRemoval metadataOnly(MetadataStore store) {
        return guid -> store.removeHost(guid) ? Outcome.REMOVED : Outcome.UNKNOWN;
    }
}
