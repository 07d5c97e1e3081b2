package io.strata.streaming.child;

/**
 * Where collectors put their charts: defined once, then one collection per pass, then the end
 * of the pass. The node's sink is {@link LocalChartsSink}; tests record.
 */
public interface ChartSink {

    /** Makes the chart known (called once per chart, before its first collection). */
    void define(ProcChart chart);

    /** One collection of {@code chart.values} at {@code nowMicros} (unix microseconds). */
    void collect(ProcChart chart, long nowMicros);

    /** Ends a pass: everything collected since the previous call goes out together. */
    void passDone();
}
