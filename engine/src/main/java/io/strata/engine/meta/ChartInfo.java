package io.strata.engine.meta;

import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * A chart (Netdata: RRDSET, an "instance"); {@code id} is Netdata's {@code type.id}. {@code labels}
 * keep the order they were received in (Netdata lists them so).
 */
public record ChartInfo(UUID hostGuid, String id, String name, String title, String units, String family,
                        String context, String chartType, long priority, int updateEvery, String plugin,
                        String module, Map<String, String> labels) {
    public ChartInfo {
        Objects.requireNonNull(hostGuid, "hostGuid");
        Objects.requireNonNull(id, "id");
        name = name == null || name.isEmpty() ? id : name;
        title = title == null ? "" : title;
        units = units == null ? "" : units;
        family = family == null ? "" : family;
        context = context == null ? "" : context;
        chartType = chartType == null ? "line" : chartType;
        plugin = plugin == null ? "" : plugin;
        module = module == null ? "" : module;
        labels = HostInfo.ordered(labels);
        if (updateEvery <= 0) {
            throw new IllegalArgumentException("chart " + id + ": update_every must be positive, got " + updateEvery);
        }
    }

    /** A minimal chart, for tests and synthetic load. */
    public static ChartInfo of(UUID hostGuid, String id, int updateEvery) {
        return new ChartInfo(hostGuid, id, id, id, "value", "", id, "line", 1000, updateEvery, "", "", Map.of());
    }
}
