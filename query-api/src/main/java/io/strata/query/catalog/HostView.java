package io.strata.query.catalog;

import io.strata.engine.meta.HostInfo;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** A host the engine holds, with its charts in definition order and lookups by chart id and name. */
public final class HostView {

    private final UUID guid;
    private final String hostname;
    private final HostInfo info;
    private final boolean local;
    private final List<ChartView> charts;
    private final Map<String, ChartView> byId = new HashMap<>();
    private final Map<String, ChartView> byName = new HashMap<>();

    HostView(UUID guid, String hostname, HostInfo info, boolean local, List<ChartView> charts) {
        this.guid = guid;
        this.hostname = hostname;
        this.info = info;
        this.local = local;
        this.charts = List.copyOf(charts);
        for (ChartView c : this.charts) {
            byId.put(c.id(), c);
            byName.putIfAbsent(c.name(), c);
        }
    }

    public UUID guid() {
        return guid;
    }

    public String hostname() {
        return hostname;
    }

    /** The stored definition, or null for the node's own host before anything defined it. */
    public HostInfo info() {
        return info;
    }

    /** True for the node's own host (Netdata's localhost, hops 0). */
    public boolean local() {
        return local;
    }

    public List<ChartView> charts() {
        return charts;
    }

    /** The chart with this id, else the one with this name (Netdata looks up both), or null. */
    public ChartView chart(String idOrName) {
        ChartView c = byId.get(idOrName);
        return c != null ? c : byName.get(idOrName);
    }

    /** A host label, or "" when the host has none of that name. */
    public String label(String key) {
        if (info == null) {
            return "";
        }
        String v = info.labels().get(key);
        return v == null ? "" : v;
    }

    /**
     * A system fact of the host's stream handshake under Netdata's stored name (e.g.
     * {@code NETDATA_HOST_OS_ID}), else the host label {@code label}, else "".
     */
    public String systemInfo(String name, String label) {
        String v = info == null ? null : info.systemInfo().get(name);
        return v != null ? v : label(label);
    }

    public int updateEvery() {
        return info == null || info.updateEvery() <= 0 ? 1 : info.updateEvery();
    }
}
