package io.strata.engine.meta;

import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.UUID;

/** A dimension (Netdata: RRDDIM) of a chart; its {@link #metricUuid()} keys its points in the engine. */
public record DimensionInfo(UUID hostGuid, String chartId, String id, String name, String algorithm,
                            long multiplier, long divisor, int flags) {

    public static final int FLAG_HIDDEN = 1;
    public static final int FLAG_OBSOLETE = 2;

    public DimensionInfo {
        Objects.requireNonNull(hostGuid, "hostGuid");
        Objects.requireNonNull(chartId, "chartId");
        Objects.requireNonNull(id, "id");
        name = name == null || name.isEmpty() ? id : name;
        algorithm = algorithm == null || algorithm.isEmpty() ? "absolute" : algorithm;
        if (multiplier == 0) {
            multiplier = 1;
        }
        if (divisor == 0) {
            divisor = 1;
        }
    }

    public static DimensionInfo of(UUID hostGuid, String chartId, String id) {
        return new DimensionInfo(hostGuid, chartId, id, id, "absolute", 1, 1, 0);
    }

    /**
     * The metric's UUID, derived from host, chart and dimension so that every replica of a host
     * names the same metric the same way without exchanging UUIDs.
     */
    public UUID metricUuid() {
        return metricUuid(hostGuid, chartId, id);
    }

    public static UUID metricUuid(UUID hostGuid, String chartId, String dimensionId) {
        String key = hostGuid + "/" + chartId + "/" + dimensionId;
        return UUID.nameUUIDFromBytes(key.getBytes(StandardCharsets.UTF_8));
    }
}
