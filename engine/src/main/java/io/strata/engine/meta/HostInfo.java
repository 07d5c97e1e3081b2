package io.strata.engine.meta;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * A host (Netdata: RRDHOST): the machine GUID names it everywhere. {@code labels} keep the order
 * they were received in (Netdata lists them so); {@code systemInfo} holds the system facts the
 * host's stream handshake gave, under the names Netdata's receiver stores them
 * ({@code NETDATA_HOST_OS_ID}, {@code NETDATA_SYSTEM_KERNEL_NAME}, ...), in the order given.
 * {@code streamKeyDigest} names the API key the host last streamed in with, as a digest (the key
 * itself is a credential and stays out of the metadata): a parent counts its hosts per key from it
 * after a restart; empty for a host that did not come by a stream.
 */
public record HostInfo(UUID machineGuid, String hostname, String os, String timezone, int updateEvery,
                       Map<String, String> labels, Map<String, String> systemInfo, String streamKeyDigest) {
    public HostInfo {
        Objects.requireNonNull(machineGuid, "machineGuid");
        Objects.requireNonNull(hostname, "hostname");
        os = os == null ? "" : os;
        timezone = timezone == null ? "" : timezone;
        labels = ordered(labels);
        systemInfo = ordered(systemInfo);
        streamKeyDigest = streamKeyDigest == null ? "" : streamKeyDigest;
    }

    /** A host that did not come by a stream (no API key). */
    public HostInfo(UUID machineGuid, String hostname, String os, String timezone, int updateEvery,
                    Map<String, String> labels, Map<String, String> systemInfo) {
        this(machineGuid, hostname, os, timezone, updateEvery, labels, systemInfo, "");
    }

    /** A host without system facts (a host defined locally, or by a stream that gave none). */
    public HostInfo(UUID machineGuid, String hostname, String os, String timezone, int updateEvery,
                    Map<String, String> labels) {
        this(machineGuid, hostname, os, timezone, updateEvery, labels, Map.of());
    }

    /** The same host with other labels. */
    public HostInfo withLabels(Map<String, String> newLabels) {
        return new HostInfo(machineGuid, hostname, os, timezone, updateEvery, newLabels, systemInfo, streamKeyDigest);
    }

    /** An unmodifiable copy keeping the iteration order of {@code m} (no null keys or values). */
    static Map<String, String> ordered(Map<String, String> m) {
        if (m == null || m.isEmpty()) {
            return Map.of();
        }
        Map<String, String> copy = new LinkedHashMap<>(m.size() * 2);
        for (Map.Entry<String, String> e : m.entrySet()) {
            copy.put(Objects.requireNonNull(e.getKey(), "label name"), Objects.requireNonNull(e.getValue(),
                    "label value"));
        }
        return Collections.unmodifiableMap(copy);
    }
}
