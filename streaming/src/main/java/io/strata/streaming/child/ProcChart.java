package io.strata.streaming.child;

import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A chart a collector makes, described the way Netdata's {@code rrdset_create} and
 * {@code rrddim_add} describe it, with the raw integers of its current collection. The collector
 * writes {@link #values} (definition order) and hands the chart to its {@link ChartSink}.
 */
public final class ProcChart {

    public static final String PLUGIN = "proc.plugin";

    private final ChartInfo info;
    private final List<DimensionInfo> dimensions;
    /** The raw values of the collection in progress, in definition order. */
    public final long[] values;
    /** Opaque to collectors: what the sink keeps for this chart. */
    Object sinkHandle;

    private ProcChart(ChartInfo info, List<DimensionInfo> dimensions) {
        this.info = info;
        this.dimensions = List.copyOf(dimensions);
        this.values = new long[dimensions.size()];
    }

    public ChartInfo info() {
        return info;
    }

    public String id() {
        return info.id();
    }

    public List<DimensionInfo> dimensions() {
        return dimensions;
    }

    /**
     * Starts a chart as Netdata names it: {@code type.id}, with the chart's name defaulting to its
     * id, and {@code context} defaulting to {@code type.id} as {@code rrdset_create} does.
     */
    public static Builder builder(UUID host, String type, String id) {
        return new Builder(host, type, id);
    }

    /** Builds one chart definition. */
    public static final class Builder {
        private final UUID host;
        private final String fullId;
        private String name;
        private String family = "";
        private String context;
        private String title = "";
        private String units = "";
        private String module = "";
        private String plugin = PLUGIN;
        private String chartType = "line";
        private long priority = 1000;
        private int updateEvery = 1;
        private final Map<String, String> labels = new LinkedHashMap<>();
        private final List<DimensionInfo> dims = new ArrayList<>();

        private Builder(UUID host, String type, String id) {
            this.host = host;
            this.fullId = type + "." + id;
            this.name = fullId;
            this.context = fullId;
        }

        /** The chart's name part after the type (Netdata: the name given to rrdset_create). */
        public Builder name(String nameAfterType) {
            this.name = fullId.substring(0, fullId.indexOf('.') + 1) + nameAfterType;
            return this;
        }

        public Builder family(String v) {
            family = v;
            return this;
        }

        public Builder context(String v) {
            context = v;
            return this;
        }

        public Builder title(String v) {
            title = v;
            return this;
        }

        public Builder units(String v) {
            units = v;
            return this;
        }

        /** The collecting plugin (default {@code proc.plugin}). */
        public Builder plugin(String v) {
            plugin = v;
            return this;
        }

        public Builder module(String v) {
            module = v;
            return this;
        }

        /** line, area or stacked. */
        public Builder type(String v) {
            chartType = v;
            return this;
        }

        public Builder priority(long v) {
            priority = v;
            return this;
        }

        public Builder updateEvery(int v) {
            updateEvery = v;
            return this;
        }

        public Builder label(String key, String value) {
            if (value != null) {
                labels.put(key, value);
            }
            return this;
        }

        public Builder dim(String id, String name, String algorithm, long multiplier, long divisor) {
            return dim(id, name, algorithm, multiplier, divisor, false);
        }

        public Builder dim(String id, String name, String algorithm, long multiplier, long divisor, boolean hidden) {
            dims.add(new DimensionInfo(host, fullId, id, name == null ? id : name, algorithm, multiplier, divisor,
                    hidden ? DimensionInfo.FLAG_HIDDEN : 0));
            return this;
        }

        public ProcChart build() {
            Map<String, String> l = new LinkedHashMap<>();
            l.put("_collect_plugin", plugin);
            l.put("_collect_module", module.isEmpty() ? "[none]" : module);
            l.putAll(labels);
            ChartInfo info = new ChartInfo(host, fullId, name, title, units, family, context, chartType, priority,
                    updateEvery, plugin, module, l);
            return new ProcChart(info, dims);
        }
    }

    /** The algorithm names of Netdata's DIMENSION lines. */
    public static final String ABSOLUTE = "absolute";
    public static final String INCREMENTAL = "incremental";
    public static final String PCENT_OF_INCREMENTAL_ROW = "percentage-of-incremental-row";
}
