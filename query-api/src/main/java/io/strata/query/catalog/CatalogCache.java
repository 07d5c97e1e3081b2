package io.strata.query.catalog;

import io.strata.engine.meta.MetadataStore;

import java.util.UUID;
import java.util.function.LongSupplier;

/**
 * Keeps one {@link Catalog} and rebuilds it when the store gained hosts, charts or dimensions, or
 * after {@link #MAX_AGE_NANOS} (a redefined title or hidden flag changes no count). Requests on
 * a busy parent then share a snapshot instead of each walking every definition.
 */
public final class CatalogCache {

    static final long MAX_AGE_NANOS = 2_000_000_000L;

    private final MetadataStore store;
    private final UUID localGuid;
    private final String localHostname;
    private final LongSupplier nanoClock;
    private volatile Snapshot current;

    private record Snapshot(Catalog catalog, long builtAt, int hosts, int charts, int dimensions, int removals) {
    }

    public CatalogCache(MetadataStore store, UUID localGuid, String localHostname, LongSupplier nanoClock) {
        this.store = store;
        this.localGuid = localGuid;
        this.localHostname = localHostname;
        this.nanoClock = nanoClock;
    }

    public Catalog get() {
        Snapshot s = current;
        long now = nanoClock.getAsLong();
        if (s != null && now - s.builtAt < MAX_AGE_NANOS && s.hosts == store.hostCount()
                && s.charts == store.chartCount() && s.dimensions == store.dimensionCount()
                && s.removals == store.removals()) {
            return s.catalog;
        }
        synchronized (this) {
            s = current;
            if (s != null && now - s.builtAt < MAX_AGE_NANOS && s.hosts == store.hostCount()
                    && s.charts == store.chartCount() && s.dimensions == store.dimensionCount()
                    && s.removals == store.removals()) {
                return s.catalog;
            }
            // counts first: a definition added while building shows up at the next call
            int hosts = store.hostCount();
            int charts = store.chartCount();
            int dims = store.dimensionCount();
            int removals = store.removals();
            Catalog c = Catalog.build(store, localGuid, localHostname);
            current = new Snapshot(c, now, hosts, charts, dims, removals);
            return c;
        }
    }
}
