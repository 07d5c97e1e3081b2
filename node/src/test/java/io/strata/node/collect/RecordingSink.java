package io.strata.node.collect;

import io.strata.streaming.child.ChartSink;
import io.strata.streaming.child.ProcChart;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Keeps what collectors define and collect, for assertions. */
final class RecordingSink implements ChartSink {

    final Map<String, ProcChart> defined = new LinkedHashMap<>();
    final Map<String, long[]> last = new LinkedHashMap<>();
    final Map<String, Integer> collections = new LinkedHashMap<>();
    final List<String> collectedThisPass = new ArrayList<>();
    int passes;

    @Override
    public void define(ProcChart chart) {
        if (defined.put(chart.id(), chart) != null) {
            throw new AssertionError("chart " + chart.id() + " defined twice");
        }
    }

    @Override
    public void collect(ProcChart chart, long nowMicros) {
        if (!defined.containsKey(chart.id())) {
            throw new AssertionError("chart " + chart.id() + " collected before it was defined");
        }
        last.put(chart.id(), chart.values.clone());
        collections.merge(chart.id(), 1, Integer::sum);
        collectedThisPass.add(chart.id());
    }

    @Override
    public void passDone() {
        passes++;
    }

    void newPass() {
        collectedThisPass.clear();
    }

    long value(String chart, String dimension) {
        ProcChart c = defined.get(chart);
        if (c == null) {
            throw new AssertionError("no chart " + chart + " among " + defined.keySet());
        }
        for (int i = 0; i < c.dimensions().size(); i++) {
            if (c.dimensions().get(i).id().equals(dimension)) {
                return last.get(chart)[i];
            }
        }
        throw new AssertionError("no dimension " + dimension + " in " + chart);
    }
}
