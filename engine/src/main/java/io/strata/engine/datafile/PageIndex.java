package io.strata.engine.datafile;

/** Where the pages of each metric are in one datafile. Safe for concurrent readers. */
public interface PageIndex {

    /** Receives one page location. */
    @FunctionalInterface
    interface PageVisitor {
        void page(long extentOffset, int extentLength, int indexInExtent, long startTime, int updateEvery,
                  int entries, int type);
    }

    /** Receives one metric's extent of time in this datafile. */
    @FunctionalInterface
    interface MetricVisitor {
        void metric(long uuidMsb, long uuidLsb, long firstTime, long lastTime, int pages);
    }

    /**
     * Visits, in time order, the pages of the metric ({@code metricId} in the registry, named by
     * its UUID) that overlap {@code [after, before]} (unsigned seconds).
     */
    void pages(int metricId, long uuidMsb, long uuidLsb, long after, long before, PageVisitor visitor);

    void forEachMetric(MetricVisitor visitor);

    int extentCount();

    /**
     * The UUID of metric number {@code number} of the datafile's metric table into
     * {@code uuid[0]} (msb) and {@code uuid[1]} (lsb); false when the index knows no such number.
     */
    boolean datafileMetric(int number, long[] uuid);

    /** Offset of extent {@code e} in the datafile; extents are numbered in file order. */
    long extentOffset(int e);

    /** Length in bytes of extent {@code e}. */
    int extentLength(int e);

    int pageCount();

    /** Total of the entries of every page. */
    long pointCount();
}
