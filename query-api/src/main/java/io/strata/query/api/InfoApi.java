package io.strata.query.api;

import io.strata.engine.EngineConfig;
import io.strata.engine.registry.MetricRegistry;
import io.strata.query.catalog.ChartView;
import io.strata.query.catalog.HostView;
import io.strata.query.http.ApiRequest;
import io.strata.query.http.ApiResponse;
import io.strata.query.http.ContentTypes;
import io.strata.query.text.Out;

import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * {@code /api/v1/info}: the agent's identity and, for a parent, the hosts it holds
 * ({@code mirrored_hosts}, {@code mirrored_hosts_status}). Same fields, order and layout as
 * Netdata 1.37.1; system facts come from the host's {@code _os_name}-style labels (what a child
 * streams), features Strata does not have (cloud, health, exporting) are reported off.
 */
public final class InfoApi {

    /** The Netdata version the API is compatible with, as clients expect to parse it. */
    public static final String NETDATA_VERSION = "v1.37.1";
    /** A host whose newest point is younger than this is reported reachable. */
    static final long REACHABLE_SECONDS = 60;

    private InfoApi() {
    }

    public static ApiResponse info(ApiRequest req) {
        HostView host = req.host();
        Out o = new Out(4096);
        long now = req.context().nowSeconds();
        MetricRegistry registry = req.context().engine().registry();
        o.a("{\n\t\"version\": \"").a(NETDATA_VERSION).a("\",\n\t\"uid\": \"").a(host.guid().toString()).a("\",\n");
        o.a("\t\"mirrored_hosts\": [\n");
        var hosts = req.catalog().hosts();
        for (int i = 0; i < hosts.size(); i++) {
            o.a("\t\t").jsonString(hosts.get(i).hostname()).a(i + 1 < hosts.size() ? ",\n" : "\n");
        }
        o.a("\t],\n\t\"mirrored_hosts_status\": [\n");
        for (int i = 0; i < hosts.size(); i++) {
            HostView h = hosts.get(i);
            boolean reachable = h.local() || newestPoint(registry, h) >= now - REACHABLE_SECONDS;
            o.a("\t\t{ \"guid\": \"").a(h.guid().toString()).a("\", \"hostname\": ").jsonString(h.hostname())
                    .a(", \"reachable\": ").a(reachable ? "true" : "false").a(", \"hops\": ").integer(h.local() ? 0 : 1)
                    .a(", \"claim_id\": null, \"node_id\": null }").a(i + 1 < hosts.size() ? ",\n" : "\n");
        }
        o.a("\t],\n\t\"alarms\": {\n\t\t\"normal\": 0,\n\t\t\"warning\": 0,\n\t\t\"critical\": 0\n\t},\n");
        // Netdata answers the host's system info, which a child's stream handshake gives (its labels carry
        // only some of it: no OS id, no kernel name); the labels answer for a host defined without a handshake
        field(o, "os_name", host.systemInfo("NETDATA_HOST_OS_NAME", "_os_name"));
        field(o, "os_id", host.systemInfo("NETDATA_HOST_OS_ID", "_os_id"));
        field(o, "os_id_like", host.systemInfo("NETDATA_HOST_OS_ID_LIKE", "_os_id_like"));
        field(o, "os_version", host.systemInfo("NETDATA_HOST_OS_VERSION", "_os_version"));
        field(o, "os_version_id", host.systemInfo("NETDATA_HOST_OS_VERSION_ID", "_os_version_id"));
        field(o, "os_detection", host.systemInfo("NETDATA_HOST_OS_DETECTION", "_os_detection"));
        field(o, "cores_total", host.systemInfo("NETDATA_SYSTEM_CPU_LOGICAL_CPU_COUNT", "_system_cores"));
        field(o, "total_disk_space", host.systemInfo("NETDATA_SYSTEM_TOTAL_DISK_SIZE", "_system_disk_space"));
        field(o, "cpu_freq", host.systemInfo("NETDATA_SYSTEM_CPU_FREQ", "_system_cpu_freq"));
        field(o, "ram_total", host.systemInfo("NETDATA_SYSTEM_TOTAL_RAM", "_system_ram_total"));
        field(o, "kernel_name", host.systemInfo("NETDATA_SYSTEM_KERNEL_NAME", "_kernel_name"));
        field(o, "kernel_version", host.systemInfo("NETDATA_SYSTEM_KERNEL_VERSION", "_kernel_version"));
        field(o, "architecture", host.systemInfo("NETDATA_SYSTEM_ARCHITECTURE", "_architecture"));
        field(o, "virtualization", host.systemInfo("NETDATA_SYSTEM_VIRTUALIZATION", "_virtualization"));
        field(o, "virt_detection", host.systemInfo("NETDATA_SYSTEM_VIRT_DETECTION", "_virt_detection"));
        field(o, "container", host.systemInfo("NETDATA_SYSTEM_CONTAINER", "_container"));
        field(o, "container_detection", host.systemInfo("NETDATA_SYSTEM_CONTAINER_DETECTION", "_container_detection"));
        o.a("\t\"host_labels\": {\n");
        Map<String, String> labels = host.info() == null ? Map.of() : host.info().labels();
        int k = 0;
        for (Map.Entry<String, String> e : labels.entrySet()) {
            o.a("\t\t").jsonString(e.getKey()).ch(':').jsonString(e.getValue()).a(++k < labels.size() ? ",\n" : "\n");
        }
        o.a("\t},\n\t\"functions\": {\n\n\t},\n\t\"collectors\": [\n");
        Set<String> seen = new LinkedHashSet<>();
        for (ChartView c : host.charts()) {
            seen.add(c.info().plugin() + "\u0000" + c.info().module());
        }
        int n = 0;
        for (String pm : seen) {
            int z = pm.indexOf('\u0000');
            o.a("\t\t{\n\t\t\t\"plugin\": ").jsonString(pm.substring(0, z)).a(",\n\t\t\t\"module\": ")
                    .jsonString(pm.substring(z + 1)).a("\n\t\t}").a(++n < seen.size() ? ",\n" : "\n");
        }
        EngineConfig cfg = req.context().engine().config();
        long quota = 0;
        for (int t = 0; t < cfg.tiers(); t++) {
            quota += cfg.quotaBytes(t);
        }
        o.a("\t],\n\t\"cloud-enabled\": false,\n\t\"cloud-available\": false,\n\t\"agent-claimed\": false,\n")
                .a("\t\"aclk-available\": false,\n\t\"memory-mode\": \"dbengine\",\n")
                .a("\t\"multidb-disk-quota\": ").integer(quota >> 20).a(",\n")
                .a("\t\"page-cache-size\": ").integer(cfg.autoCacheBytes(registry.size()) >> 20).a(",\n")
                .a("\t\"stream-enabled\": false,\n\t\"stream-compression\": null,\n")
                .a("\t\"hosts-available\": ").integer(hosts.size()).a(",\n")
                .a("\t\"https-enabled\": false,\n\t\"buildinfo\": \"dbengine\",\n\t\"release-channel\": \"stable\",\n")
                .a("\t\"web-enabled\": true,\n\t\"notification-methods\": null,\n\t\"exporting-enabled\": null,\n")
                .a("\t\"exporting-connectors\": null,\n\t\"allmetrics-prometheus-used\": null,\n")
                .a("\t\"allmetrics-shell-used\": null,\n\t\"allmetrics-json-used\": null,\n")
                .a("\t\"dashboard-used\": null,\n\t\"charts-count\": null,\n\t\"metrics-count\": null\n}");
        return ApiResponse.ok(ContentTypes.JSON, o.toByteBuf(), ApiResponse.Caching.NO_CACHE);
    }

    private static void field(Out o, String name, String value) {
        o.a("\t\"").a(name).a("\": ").jsonString(value).a(",\n");
    }

    /** The newest point time of any of the host's metrics (0 when none). */
    static long newestPoint(MetricRegistry registry, HostView h) {
        long newest = 0;
        for (ChartView c : h.charts()) {
            for (int d = 0; d < c.dimensions(); d++) {
                newest = Math.max(newest, registry.lastTime(c.metric(d), 0));
            }
        }
        return newest;
    }
}
