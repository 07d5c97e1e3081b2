package io.strata.engine;

/**
 * Told of every page {@link StorageEngine#storePast} stores, once readers see it: a consumer that
 * follows the engine by time (the exporter, from its acknowledged position) learns of points that
 * arrived behind a metric's newest one. Called on the thread that stored the run (the caller of
 * {@code storePast}, or the past-writer thread for {@code submitPast}); it must only copy what it
 * needs and return: no lock a reader holds, no fsync and no read, at most one append of a few
 * hundred bytes to a file of its own (the exporter's fill journal), as the engine's own
 * pending-rebuild journal does on the same thread.
 */
@FunctionalInterface
public interface PastPageListener {

    /**
     * {@code sns[0 .. count)} at {@code firstTime + i × updateEvery}: exactly the slots this page
     * filled hold a value (every other slot is {@code StorageNumber.SN_EMPTY_SLOT}:
     * the metric held a value there before, or the run had none). The array is the writer's scratch:
     * valid during the call only.
     */
    void pastPageStored(int metric, long firstTime, int updateEvery, int[] sns, int count);
}
