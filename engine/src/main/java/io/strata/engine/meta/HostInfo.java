package io.strata.engine.meta;

import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/** A host (Netdata: RRDHOST): the machine GUID names it everywhere. */
public record HostInfo(UUID machineGuid, String hostname, String os, String timezone, int updateEvery,
                       Map<String, String> labels) {
    public HostInfo {
        Objects.requireNonNull(machineGuid, "machineGuid");
        Objects.requireNonNull(hostname, "hostname");
        os = os == null ? "" : os;
        timezone = timezone == null ? "" : timezone;
        labels = labels == null ? Map.of() : Map.copyOf(labels);
    }
}
