package io.strata.streaming.child;

import java.util.ArrayList;
import java.util.List;

/** Puts collected charts into a node's {@link LocalCharts}: stored locally and streamed to parents. */
public final class LocalChartsSink implements ChartSink {

    private final LocalCharts local;
    private final List<LocalCharts.Chart> pass = new ArrayList<>();

    public LocalChartsSink(LocalCharts local) {
        this.local = local;
    }

    public LocalCharts local() {
        return local;
    }

    @Override
    public void define(ProcChart chart) {
        chart.sinkHandle = local.define(chart.info(), chart.dimensions());
    }

    @Override
    public void collect(ProcChart chart, long nowMicros) {
        LocalCharts.Chart c = (LocalCharts.Chart) chart.sinkHandle;
        local.collect(c, chart.values, null, nowMicros);
        pass.add(c);
    }

    @Override
    public void passDone() {
        if (pass.isEmpty()) {
            return;
        }
        local.passDone(pass);
        pass.clear();
    }
}
