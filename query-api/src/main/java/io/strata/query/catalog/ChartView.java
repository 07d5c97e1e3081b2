package io.strata.query.catalog;

import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;

/**
 * A chart as the API shows it: its definition and its dimensions, in definition order, as
 * parallel arrays indexed by dimension position.
 */
public final class ChartView {

    private final int chartId;
    private final ChartInfo info;
    private final int[] metrics;
    private final String[] dimensionIds;
    private final String[] dimensionNames;
    private final boolean[] hidden;
    private final boolean[] obsolete;
    /** True when the dimension is stored negated (multiplier or divisor below 0), e.g. disk writes. */
    private final boolean[] negative;
    private final String[] algorithms;
    private final long[] multipliers;
    private final long[] divisors;

    ChartView(int chartId, ChartInfo info, DimensionInfo[] dims, int[] metrics) {
        this.chartId = chartId;
        this.info = info;
        this.metrics = metrics;
        int n = dims.length;
        this.dimensionIds = new String[n];
        this.dimensionNames = new String[n];
        this.hidden = new boolean[n];
        this.obsolete = new boolean[n];
        this.negative = new boolean[n];
        this.algorithms = new String[n];
        this.multipliers = new long[n];
        this.divisors = new long[n];
        for (int i = 0; i < n; i++) {
            DimensionInfo d = dims[i];
            dimensionIds[i] = d.id();
            dimensionNames[i] = d.name();
            hidden[i] = (d.flags() & DimensionInfo.FLAG_HIDDEN) != 0;
            obsolete[i] = (d.flags() & DimensionInfo.FLAG_OBSOLETE) != 0;
            negative[i] = d.multiplier() < 0 ^ d.divisor() < 0;
            algorithms[i] = d.algorithm();
            multipliers[i] = d.multiplier();
            divisors[i] = d.divisor();
        }
    }

    public int chartId() {
        return chartId;
    }

    public ChartInfo info() {
        return info;
    }

    public String id() {
        return info.id();
    }

    public String name() {
        return info.name();
    }

    /** Netdata's chart "type": the id up to its first dot. */
    public String type() {
        int dot = info.id().indexOf('.');
        return dot < 0 ? info.id() : info.id().substring(0, dot);
    }

    public int dimensions() {
        return metrics.length;
    }

    public int metric(int d) {
        return metrics[d];
    }

    public String dimensionId(int d) {
        return dimensionIds[d];
    }

    public String dimensionName(int d) {
        return dimensionNames[d];
    }

    public boolean hidden(int d) {
        return hidden[d];
    }

    /** True when the dimension was marked obsolete: it is no longer collected. */
    public boolean obsolete(int d) {
        return obsolete[d];
    }

    public boolean negative(int d) {
        return negative[d];
    }

    public String algorithm(int d) {
        return algorithms[d];
    }

    public long multiplier(int d) {
        return multipliers[d];
    }

    public long divisor(int d) {
        return divisors[d];
    }

    public int visibleDimensions() {
        int n = 0;
        for (boolean h : hidden) {
            if (!h) {
                n++;
            }
        }
        return n;
    }

    /**
     * True when all dimensions share algorithm, multiplier and divisor: Netdata's test of whether
     * one Prometheus metric with a dimension label can carry the chart's collected values.
     */
    public boolean homogeneous() {
        for (int d = 1; d < metrics.length; d++) {
            if (!algorithms[d].equals(algorithms[0]) || multipliers[d] != multipliers[0]
                    || divisors[d] != divisors[0]) {
                return false;
            }
        }
        return true;
    }
}
