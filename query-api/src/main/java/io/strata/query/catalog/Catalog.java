package io.strata.query.catalog;

import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.HostInfo;
import io.strata.engine.meta.MetadataStore;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.Arrays;

/**
 * An immutable snapshot of the hosts, charts and dimensions the engine holds, built from the
 * {@link MetadataStore} so that a request looks charts up without locking the store once per
 * dimension. The node's own host comes first, as Netdata lists localhost first.
 */
public final class Catalog {

    private final List<HostView> hosts;
    private final Map<String, HostView> byName = new HashMap<>();
    private final Map<String, HostView> byGuid = new HashMap<>();
    private final int chartCount;
    private final int dimensionCount;

    private Catalog(List<HostView> hosts) {
        this.hosts = List.copyOf(hosts);
        int charts = 0;
        int dims = 0;
        for (HostView h : this.hosts) {
            byName.putIfAbsent(h.hostname(), h);
            byGuid.put(h.guid().toString().toLowerCase(Locale.ROOT), h);
            charts += h.charts().size();
            for (ChartView c : h.charts()) {
                dims += c.dimensions();
            }
        }
        this.chartCount = charts;
        this.dimensionCount = dims;
    }

    /** Reads the whole store; {@code localGuid}/{@code localHostname} name the node's own host. */
    public static Catalog build(MetadataStore md, UUID localGuid, String localHostname) {
        // by host id: a removed host's slot is null, and its charts have no host (-1)
        HostInfo[] infos = md.hostsById();
        List<List<ChartView>> chartsByHost = new ArrayList<>(infos.length);
        for (int h = 0; h < infos.length; h++) {
            chartsByHost.add(new ArrayList<>());
        }
        int n = md.chartCount();
        for (int c = 0; c < n; c++) {
            ChartInfo ci = md.chart(c);
            int host = md.chartHost(c);
            List<Integer> metrics = md.metrics(c);
            List<DimensionInfo> dims = new ArrayList<>(metrics.size());
            int[] ids = new int[metrics.size()];
            int k = 0;
            for (int m : metrics) {
                DimensionInfo d = md.dimension(m);
                if (d != null) {
                    dims.add(d);
                    ids[k++] = m;
                }
            }
            if (k == 0 || host < 0 || host >= chartsByHost.size()) {
                continue;
            }
            chartsByHost.get(host).add(new ChartView(c, ci, dims.toArray(new DimensionInfo[0]),
                    Arrays.copyOf(ids, k)));
        }
        List<HostView> hosts = new ArrayList<>(infos.length + 1);
        int localId = md.hostId(localGuid);
        if (localId >= infos.length) {
            localId = -1; // defined after the snapshot of the hosts was taken: at the next build
        }
        hosts.add(new HostView(localGuid, localHostname, localId >= 0 ? infos[localId] : null, true,
                localId >= 0 ? chartsByHost.get(localId) : List.of()));
        for (int h = 0; h < infos.length; h++) {
            if (h != localId && infos[h] != null) {
                HostInfo hi = infos[h];
                hosts.add(new HostView(hi.machineGuid(), hi.hostname(), hi, false, chartsByHost.get(h)));
            }
        }
        return new Catalog(hosts);
    }

    public List<HostView> hosts() {
        return hosts;
    }

    public HostView local() {
        return hosts.get(0);
    }

    /** The host named {@code key} (hostname, else machine GUID in any case), or null. */
    public HostView find(String key) {
        HostView h = byName.get(key);
        return h != null ? h : byGuid.get(key.toLowerCase(Locale.ROOT));
    }

    public int chartCount() {
        return chartCount;
    }

    public int dimensionCount() {
        return dimensionCount;
    }
}
