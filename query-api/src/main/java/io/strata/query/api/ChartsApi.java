package io.strata.query.api;

import io.netty.handler.codec.http.HttpResponseStatus;
import io.strata.engine.meta.ChartInfo;
import io.strata.engine.registry.MetricRegistry;
import io.strata.query.catalog.Catalog;
import io.strata.query.catalog.ChartView;
import io.strata.query.catalog.HostView;
import io.strata.query.catalog.RetentionSpan;
import io.strata.query.http.ApiError;
import io.strata.query.http.ApiRequest;
import io.strata.query.http.ApiResponse;
import io.strata.query.http.ContentTypes;
import io.strata.query.text.Out;

import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code /api/v1/charts} and {@code /api/v1/chart?chart=}: chart definitions with their
 * retention (first and last point over all tiers), laid out as Netdata 1.37.1 lays them out.
 * Both may be cached by the browser for a day, as Netdata allows.
 */
public final class ChartsApi {

    private ChartsApi() {
    }

    public static ApiResponse charts(ApiRequest req) {
        HostView host = req.host();
        MetricRegistry registry = req.context().engine().registry();
        Out o = new Out(64 * 1024);
        String tz = host.info() != null && !host.info().timezone().isEmpty() ? host.info().timezone()
                : zoneName(req.context().clock().getZone());
        o.a("{\n\t\"hostname\": ").jsonString(host.hostname())
                .a(",\n\t\"version\": \"").a(InfoApi.NETDATA_VERSION)
                .a("\",\n\t\"release_channel\": \"stable\",\n\t\"os\": ")
                .jsonString(host.info() != null && !host.info().os().isEmpty() ? host.info().os() : "linux")
                .a(",\n\t\"timezone\": ").jsonString(tz)
                .a(",\n\t\"update_every\": ").integer(host.updateEvery())
                .a(",\n\t\"history\": 0,\n\t\"memory_mode\": \"dbengine\",\n\t\"custom_info\": \"\",\n\t\"charts\": {");
        int dimensions = 0;
        boolean first = true;
        for (ChartView c : host.charts()) {
            o.a(first ? "\n\t\t" : ",\n\t\t").jsonString(c.id()).a(": ");
            first = false;
            chart(o, registry, c);
            dimensions += c.visibleDimensions();
        }
        Catalog catalog = req.catalog();
        o.a("\n\t},\n\t\"charts_count\": ").integer(host.charts().size())
                .a(",\n\t\"dimensions_count\": ").integer(dimensions)
                .a(",\n\t\"alarms_count\": 0,\n\t\"rrd_memory_bytes\": ")
                .integer((long) dimensions * MetricRegistry.bytesPerMetric(registry.tiers()))
                .a(",\n\t\"hosts_count\": ").integer(catalog.hosts().size())
                .a(",\n\t\"hosts\": [");
        for (int i = 0; i < catalog.hosts().size(); i++) {
            o.a(i == 0 ? "\n\t\t{\n\t\t\t\"hostname\": " : ",\n\t\t{\n\t\t\t\"hostname\": ")
                    .jsonString(catalog.hosts().get(i).hostname()).a("\n\t\t}");
        }
        o.a("\n\t]\n}");
        return ApiResponse.ok(ContentTypes.JSON, o.toByteBuf(), ApiResponse.Caching.PUBLIC);
    }

    public static ApiResponse chart(ApiRequest req) {
        String id = req.query().get("chart");
        if (id == null) {
            throw new ApiError(HttpResponseStatus.BAD_REQUEST, "No chart id is given at the request.");
        }
        ChartView c = req.host().chart(id);
        if (c == null) {
            throw ApiError.notFound("Chart is not found: " + id);
        }
        Out o = new Out(2048);
        chart(o, req.context().engine().registry(), c);
        return ApiResponse.ok(ContentTypes.JSON, o.toByteBuf(), ApiResponse.Caching.PUBLIC);
    }

    /** One chart object, as in Netdata's {@code rrdset2json} (tab-indented for nesting under "charts"). */
    static void chart(Out o, MetricRegistry registry, ChartView c) {
        ChartInfo ci = c.info();
        long first = 0;
        long last = 0;
        for (int d = 0; d < c.dimensions(); d++) {
            long f = RetentionSpan.first(registry, c.metric(d));
            if (f != 0 && (first == 0 || f < first)) {
                first = f;
            }
            last = Math.max(last, RetentionSpan.last(registry, c.metric(d)));
        }
        long duration = first == 0 ? 0 : last - first + ci.updateEvery();
        o.a("\t\t{\n\t\t\t\"id\": ").jsonString(c.id())
                .a(",\n\t\t\t\"name\": ").jsonString(c.name())
                .a(",\n\t\t\t\"type\": ").jsonString(c.type())
                .a(",\n\t\t\t\"family\": ").jsonString(ci.family())
                .a(",\n\t\t\t\"context\": ").jsonString(ci.context())
                .a(",\n\t\t\t\"title\": ").jsonString(ci.title() + " (" + c.name() + ")")
                .a(",\n\t\t\t\"priority\": ").integer(ci.priority())
                .a(",\n\t\t\t\"plugin\": ").jsonString(ci.plugin())
                .a(",\n\t\t\t\"module\": ").jsonString(ci.module())
                .a(",\n\t\t\t\"units\": ").jsonString(ci.units())
                .a(",\n\t\t\t\"data_url\": ").jsonString("/api/v1/data?chart=" + c.name())
                .a(",\n\t\t\t\"chart_type\": ").jsonString(ci.chartType())
                .a(",\n\t\t\t\"duration\": ").integer(duration)
                .a(",\n\t\t\t\"first_entry\": ").integer(first)
                .a(",\n\t\t\t\"last_entry\": ").integer(last)
                .a(",\n\t\t\t\"update_every\": ").integer(ci.updateEvery())
                .a(",\n\t\t\t\"dimensions\": {");
        boolean firstDim = true;
        for (int d = 0; d < c.dimensions(); d++) {
            if (c.hidden(d)) {
                continue;
            }
            o.a(firstDim ? "\n\t\t\t\t" : ",\n\t\t\t\t").jsonString(c.dimensionId(d)).a(": { \"name\": ")
                    .jsonString(c.dimensionName(d)).a(" }");
            firstDim = false;
        }
        o.a("\n\t\t\t},\n\t\t\t\"chart_variables\": {\n\t\t\t},\n\t\t\t\"green\": null,\n\t\t\t\"red\": null,\n")
                .a("\t\t\t\"alarms\": {\n\n\t\t\t},\n\t\t\t\"chart_labels\": {");
        boolean firstLabel = true;
        for (Map.Entry<String, String> e : labels(ci).entrySet()) {
            o.a(firstLabel ? "\n\t\t\t\t" : ",\n\t\t\t\t").jsonString(e.getKey()).ch(':').jsonString(e.getValue());
            firstLabel = false;
        }
        o.a("\n\t\t\t},\n\t\t\t\"functions\": {\n\t\t\t}\n\t\t}");
    }

    /**
     * A chart's labels as Netdata lists them: its collector first ({@code _collect_plugin},
     * {@code _collect_module}, added from the chart's plugin and module when the chart has none,
     * as Netdata labels every chart when it creates it), then the others in the order received.
     */
    static Map<String, String> labels(ChartInfo ci) {
        Map<String, String> rest = new LinkedHashMap<>(ci.labels());
        Map<String, String> ordered = new LinkedHashMap<>();
        String plugin = rest.remove("_collect_plugin");
        String module = rest.remove("_collect_module");
        ordered.put("_collect_plugin", plugin != null ? plugin : ci.plugin());
        ordered.put("_collect_module", module != null ? module : ci.module().isEmpty() ? "[none]" : ci.module());
        ordered.putAll(rest);
        return ordered;
    }

    static String zoneName(ZoneId zone) {
        String id = zone.getId();
        return id.equals("Z") || id.equals("UTC") ? "Etc/UTC" : id;
    }
}
