package io.strata.query.api;

import io.strata.engine.StorageEngine;
import io.strata.engine.netdata.SimplePattern;
import io.strata.engine.page.StorageNumber;
import io.strata.engine.registry.MetricRegistry;
import io.strata.query.catalog.ChartView;
import io.strata.query.catalog.HostView;
import io.strata.query.http.ApiError;
import io.strata.query.http.ApiRequest;
import io.strata.query.http.ApiResponse;
import io.strata.query.http.ContentTypes;
import io.strata.query.http.QueryString;
import io.strata.query.text.Out;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * {@code /api/v1/allmetrics}: every metric's current value for scripts and scrapers, in
 * Netdata's {@code shell}, {@code json}, {@code prometheus} and {@code prometheus_all_hosts}
 * formats.
 *
 * <p>Values: {@code shell} and {@code json} print each dimension's newest stored value.
 * Prometheus' default {@code source=average} is the average over the time since the same
 * server's previous scrape ({@code server=}, else the client address, {@code localhost} for a
 * loopback one), in the window Netdata 1.37.1's exporting engine reads
 * ({@code exporting_calculate_value_from_stored_data}): from the previous scrape (a first one: ten
 * seconds back, the exporter's default {@code update every}) to now, both moved two collection
 * intervals back and aligned to the interval, the end one more interval back, clamped to what is
 * stored; {@code source=sum} the sum over it; {@code source=as-collected} the newest stored value
 * (Strata keeps the stored value, not the raw counter Netdata would print).
 */
public final class AllMetricsApi {

    /** The Prometheus exporter's {@code update every} (Netdata's {@code EXPORTING_UPDATE_EVERY_DEFAULT}). */
    static final long EXPORTER_UPDATE_EVERY = 10;

    /** 1.37.1's answer (400, text/plain) to a format it does not know. */
    static final String UNKNOWN_FORMAT =
            "Which format? 'shell', 'prometheus', 'prometheus_all_hosts' and 'json' are currently supported.";

    /** Netdata's {@code PROMETHEUS_ELEMENT_MAX}: bytes of a name part or a label value. */
    static final int PROMETHEUS_ELEMENT_MAX = 256;

    private AllMetricsApi() {
    }

    public static ApiResponse allMetrics(ApiRequest req) throws IOException {
        QueryString q = req.query();
        // an empty value is no value (Netdata skips it), so a format= alone keeps the default
        String format = q.get("format");
        if (format == null) {
            format = "shell";
        }
        // Netdata reads this list with its default separators (white space), unlike the data API's
        SimplePattern filter = SimplePattern.parse(q.get("filter"));
        Out o = new Out(64 * 1024);
        String type;
        switch (format) {
            case "json" -> {
                json(req, o, filter);
                type = ContentTypes.JSON;
            }
            case "prometheus" -> {
                prometheus(req, o, filter, List.of(req.host()), false);
                type = ContentTypes.PROMETHEUS;
            }
            case "prometheus_all_hosts" -> {
                prometheus(req, o, filter, req.catalog().hosts(), true);
                type = ContentTypes.PROMETHEUS;
            }
            case "shell" -> {
                shell(req, o, filter);
                type = ContentTypes.TEXT_PLAIN;
            }
            default -> throw ApiError.badRequest(UNKNOWN_FORMAT);
        }
        return ApiResponse.ok(type, o.toByteBuf(), ApiResponse.Caching.NO_CACHE);
    }

    /** The json format's filter: a chart's id or its name. */
    private static boolean selected(SimplePattern filter, ChartView c) {
        return filter.isEmpty() || filter.matches(c.id()) || filter.matches(c.name());
    }

    /**
     * The shell and prometheus formats' filter: a chart's name only ({@code allmetrics_shell.c};
     * prometheus.c's {@code is_matches_rrdset} with the exporter's default {@code send names
     * instead of ids = yes}, whatever the request's {@code names=}).
     */
    private static boolean selectedByName(SimplePattern filter, ChartView c) {
        return filter.isEmpty() || filter.matches(c.name());
    }

    /** The newest stored value of a metric and its time; NaN and 0 when it has none. */
    private static final class Latest implements StorageEngine.Tier0Consumer {
        double value;
        long time;

        void read(StorageEngine engine, int metric) throws IOException {
            value = Double.NaN;
            time = 0;
            MetricRegistry r = engine.registry();
            if (r.firstTime(metric, 0) == MetricRegistry.NO_TIME) {
                return;
            }
            long last = r.lastTime(metric, 0);
            engine.queryTier0(metric, last, last, this);
        }

        @Override
        public void point(long t, int sn) {
            if (StorageNumber.exists(sn)) {
                value = StorageNumber.unpack(sn);
                time = t;
            }
        }
    }

    // ---- shell --------------------------------------------------------------------------------

    private static void shell(ApiRequest req, Out o, SimplePattern filter) throws IOException {
        StorageEngine engine = req.context().engine();
        Latest latest = new Latest();
        for (ChartView c : req.host().charts()) {
            if (!selectedByName(filter, c)) {
                continue;
            }
            o.a("\n# chart: ").utf8(c.id()).a(" (name: ").utf8(c.name()).a(")\n");
            double total = 0;
            for (int d = 0; d < c.dimensions(); d++) {
                latest.read(engine, c.metric(d));
                o.a("NETDATA_");
                shellName(o, c.name());
                o.ch('_');
                shellName(o, c.dimensionName(d));
                o.a("=\"");
                if (!Double.isNaN(latest.value)) {
                    // Netdata shows the collected magnitude: a dimension stored negated prints positive
                    double v = Math.rint(c.negative(d) ? -latest.value : latest.value);
                    if (!c.hidden(d)) {
                        total += v;
                    }
                    o.fixed(v, 0);
                }
                o.a("\"      # ").utf8(c.info().units()).ch('\n');
            }
            o.a("NETDATA_");
            shellName(o, c.name());
            o.a("_VISIBLETOTAL=\"").fixed(Math.rint(total), 0).a("\"      # ")
                    .utf8(c.info().units()).ch('\n');
        }
        // Netdata lists the running alarms after the charts; without a health engine there are none
        o.a("\n# NETDATA ALARMS RUNNING\n");
    }

    /** Netdata's SHELL_ELEMENT_MAX: a chart or dimension part of a shell name keeps at most this many bytes. */
    static final int SHELL_ELEMENT_MAX = 100;

    /**
     * Writes {@code s} as a shell variable name part, as Netdata's {@code shell_name_copy}: each
     * byte of its UTF-8 upper case when an ASCII letter or digit, else an underscore, and no more
     * than {@link #SHELL_ELEMENT_MAX} bytes.
     */
    static void shellName(Out o, String s) {
        int bytes = 0;
        for (int i = 0; i < s.length() && bytes < SHELL_ELEMENT_MAX; ) {
            int cp = s.codePointAt(i);
            i += Character.charCount(cp);
            if (cp < 128) {
                o.ch(Character.isLetterOrDigit(cp) ? Character.toUpperCase((char) cp) : '_');
                bytes++;
            } else {
                int width = cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
                for (int b = 0; b < width && bytes < SHELL_ELEMENT_MAX; b++, bytes++) {
                    o.ch('_');
                }
            }
        }
    }

    // ---- json ---------------------------------------------------------------------------------

    private static void json(ApiRequest req, Out o, SimplePattern filter) throws IOException {
        StorageEngine engine = req.context().engine();
        Latest latest = new Latest();
        o.a("{");
        boolean firstChart = true;
        for (ChartView c : req.host().charts()) {
            if (!selected(filter, c)) {
                continue;
            }
            long updated = 0;
            o.a(firstChart ? "\n\t" : ",\n\t").jsonString(c.id()).a(": {\n\t\t\"name\":").jsonString(c.name())
                    .a(",\n\t\t\"family\":").jsonString(c.info().family())
                    .a(",\n\t\t\"context\":").jsonString(c.info().context())
                    .a(",\n\t\t\"units\":").jsonString(c.info().units());
            firstChart = false;
            for (int d = 0; d < c.dimensions(); d++) {
                updated = Math.max(updated, engine.registry().lastTime(c.metric(d), 0));
            }
            o.a(",\n\t\t\"last_updated\": ").integer(updated).a(",\n\t\t\"dimensions\": {");
            for (int d = 0; d < c.dimensions(); d++) {
                latest.read(engine, c.metric(d));
                o.a(d == 0 ? "\n\t\t\t" : ",\n\t\t\t").jsonString(c.dimensionId(d)).a(": {\n\t\t\t\t\"name\": ")
                        .jsonString(c.dimensionName(d)).a(",\n\t\t\t\t\"value\": ");
                if (Double.isNaN(latest.value)) {
                    o.a("null");
                } else {
                    o.fixed(latest.value, 7);
                }
                o.a("\n\t\t\t}");
            }
            o.a("\n\t\t}\n\t}");
        }
        o.a("\n}");
    }

    // ---- prometheus ---------------------------------------------------------------------------

    enum Source { AVERAGE, SUM, AS_COLLECTED }

    private static void prometheus(ApiRequest req, Out o, SimplePattern filter, List<HostView> hosts,
                                   boolean allHosts) throws IOException {
        QueryString q = req.query();
        Source source = dataSource(q);
        boolean help = yes(q.get("help"), false);
        boolean types = yes(q.get("types"), false);
        boolean timestamps = yes(q.get("timestamps"), true);
        boolean names = yes(q.get("names"), true);
        boolean hideUnits = yes(q.get("hideunits"), false);
        boolean oldUnits = yes(q.get("oldunits"), false);
        // written as given: Netdata neither checks nor sanitises it
        String prefix = q.get("prefix") != null ? q.get("prefix") : "netdata";
        String server = q.get("server") != null ? q.get("server") : netdataClientName(req.client());
        long now = req.context().nowSeconds();
        // Netdata remembers the last access per server and per host asked (the URL's host, for all hosts too)
        long previous = req.services().scraped(server + "/" + req.host().guid(), now);
        long after = previous == 0 || previous > now ? now - EXPORTER_UPDATE_EVERY : previous;
        StorageEngine engine = req.context().engine();
        String suffix = switch (source) {
            case AVERAGE -> "_average";
            case SUM -> "_sum";
            case AS_COLLECTED -> "";
        };
        // Netdata names averages with their units (unless hideunits, in the old spelling with
        // oldunits), sums and collected values without (prometheus.c)
        boolean withUnits = source == Source.AVERAGE && !hideUnits;
        Latest latest = new Latest();
        WindowSum window = new WindowSum();
        long nowMs = req.context().clock().millis();
        if (help) {
            // prometheus_preparation: once, naming the host of the URL
            o.a("# COMMENT netdata \"").utf8(req.host().hostname()).a("\" to ").a(previous == 0 ? "FIRST SEEN " : "")
                    .a("prometheus \"").utf8(server).a("\", source \"").a(switch (source) {
                        case AVERAGE -> "average";
                        case SUM -> "sum";
                        case AS_COLLECTED -> "as collected";
                    }).a("\", last seen ").integer(previous == 0 ? 0 : now - after)
                    .a(previous == 0 ? " never" : " seconds ago").a(", time range ").integer(after).a(" to ")
                    .integer(now).a("\n\n");
        }
        for (HostView host : hosts) {
            // 1.37.1 names it netdata_info whatever the prefix
            o.a("netdata_info{instance=\"");
            labelCopy(o, host.hostname());
            o.a("\",application=\"netdata\",version=\"").a(InfoApi.NETDATA_VERSION).ch('"');
            Map<String, String> labels = host.info() == null ? Map.of() : host.info().labels();
            for (Map.Entry<String, String> e : labels.entrySet()) {
                // format_prometheus_label_callback: a label whose name or value copies to nothing is left out
                if (exported(e.getKey()) && !e.getKey().isEmpty() && !e.getValue().isEmpty()) {
                    o.ch(',');
                    nameCopy(o, e.getKey(), PROMETHEUS_ELEMENT_MAX);
                    o.a("=\"");
                    labelCopy(o, e.getValue());
                    o.ch('"');
                }
            }
            o.a("} 1");
            if (timestamps) {
                o.ch(' ').integer(nowMs);
            }
            o.ch('\n');
            for (ChartView c : host.charts()) {
                if (!selectedByName(filter, c)) {
                    continue;
                }
                // the chart and dimensions by name, or by id with names=no (PROMETHEUS_OUTPUT_NAMES)
                String chart = names ? c.name() : c.id();
                // averages carry their units, as prometheus_units_copy writes them
                byte[] units = withUnits ? unitsCopy(prometheusUnits(c.info().units(), oldUnits)) : NO_BYTES;
                if (help) {
                    // comments print the names as they are, neither cut nor escaped
                    o.a("\n# COMMENT ").a(source != Source.AS_COLLECTED || c.homogeneous() ? "homogeneous"
                            : "heterogeneous").a(" chart \"")
                            .utf8(chart).a("\", context \"").utf8(c.info().context()).a("\", family \"")
                            .utf8(c.info().family()).a("\", units \"").utf8(c.info().units()).a("\"\n");
                }
                // only collected values differ in kind between dimensions; averages and sums are all alike
                boolean homogeneous = source != Source.AS_COLLECTED || c.homogeneous();
                for (int d = 0; d < c.dimensions(); d++) {
                    int m = c.metric(d);
                    long time;
                    double value;
                    if (source == Source.AS_COLLECTED) {
                        latest.read(engine, m);
                        value = latest.value;
                        time = latest.time;
                        if (time < after) {
                            // 1.37.1 leaves out a dimension not collected since the server's last scrape
                            continue;
                        }
                    } else {
                        long ue = Math.max(1, c.info().updateEvery());
                        long[] w = exportingWindow(engine, m, ue, after, now);
                        window.sum = 0;
                        window.count = 0;
                        if (w != null) {
                            // the storage query from the point at or before the start through the first
                            // at or after the end
                            engine.queryTier0(m, w[0] - ue + 1, w[1] + ue - 1, window);
                        }
                        value = window.count == 0 ? Double.NaN
                                : source == Source.SUM ? window.sum : window.sum / window.count;
                        time = w == null ? 0 : w[1];
                    }
                    if (Double.isNaN(value)) {
                        continue;
                    }
                    String dim = names ? c.dimensionName(d) : c.dimensionId(d);
                    String metricDimension = homogeneous ? null : dim;
                    // a collected counter is named _total, but for the prometheus collector's charts; the
                    // TYPE line keeps the name without it (1.37.1 prints its local, empty suffix there)
                    boolean counter = source == Source.AS_COLLECTED && isCounter(c.algorithm(d));
                    boolean prometheusCollector = "prometheus".equals(c.info().module());
                    String metricSuffix = counter && !prometheusCollector ? "_total" : suffix;
                    if (help) {
                        o.a("# COMMENT ");
                        metricName(o, prefix, c, metricDimension, units, metricSuffix);
                        if (source == Source.AS_COLLECTED) {
                            o.a(": chart \"").utf8(chart).a("\", context \"").utf8(c.info().context())
                                    .a("\", family \"").utf8(c.info().family()).a("\", dimension \"").utf8(dim)
                                    .a("\", value * ");
                            if (prometheusCollector) {
                                o.a("1 / 1");
                            } else {
                                o.integer(c.multiplier(d)).a(" / ").integer(c.divisor(d));
                            }
                            o.a(counter ? " delta gives " : " gives ").utf8(c.info().units())
                                    .a(counter ? " (counter)\n" : " (gauge)\n");
                        } else {
                            o.a(": dimension \"").utf8(dim).a("\", value is ").utf8(c.info().units())
                                    .a(", gauge, dt ").integer(after).a(" to ").integer(time).a(" inclusive\n");
                        }
                    }
                    if (types) {
                        o.a("# TYPE ");
                        metricName(o, prefix, c, metricDimension, units, suffix);
                        o.a(counter ? " counter\n" : " gauge\n");
                    }
                    metricName(o, prefix, c, metricDimension, units, metricSuffix);
                    o.a("{chart=\"");
                    labelCopy(o, chart);
                    o.a("\",family=\"");
                    labelCopy(o, c.info().family());
                    o.ch('"');
                    if (homogeneous) {
                        o.a(",dimension=\"");
                        labelCopy(o, dim);
                        o.ch('"');
                    }
                    if (allHosts) {
                        // the hostname is at most PROMETHEUS_ELEMENT_MAX bytes: PROMETHEUS_LABELS_MAX never cuts it
                        o.a(",instance=\"");
                        labelCopy(o, host.hostname());
                        o.ch('"');
                    }
                    o.a("} ").fixed(value, 7);
                    if (timestamps) {
                        o.ch(' ').integer(time * 1000);
                    }
                    o.ch('\n');
                }
            }
        }
    }

    /**
     * Netdata 1.37.1's {@code exporting_calculate_value_from_stored_data} window of one metric,
     * {after, before} inclusive, or null when it lies outside what is stored.
     */
    static long[] exportingWindow(StorageEngine engine, int metric, long updateEvery, long after, long before) {
        if (engine.registry().firstTime(metric, 0) == MetricRegistry.NO_TIME) {
            return null;
        }
        long first = engine.registry().firstTime(metric, 0);
        long last = engine.registry().lastTime(metric, 0);
        long a = after - updateEvery * 2;
        long b = before - updateEvery * 2;
        a -= a % updateEvery;
        b -= b % updateEvery;
        b -= updateEvery; // the newest point is reported the next time
        if (a > b) {
            a = b;
        }
        a = Math.max(a, first);
        b = Math.min(b, last);
        if (b < first || a > last) {
            return null;
        }
        return new long[]{a, b};
    }

    /** Netdata's name of a client: {@code localhost} for a loopback address ({@code accept_socket}). */
    static String netdataClientName(String client) {
        return "127.0.0.1".equals(client) || "::1".equals(client) || "0:0:0:0:0:0:0:1".equals(client)
                ? "localhost" : client;
    }

    /** Sums the stored values a tier-0 read delivers. */
    private static final class WindowSum implements StorageEngine.Tier0Consumer {
        double sum;
        long count;

        @Override
        public void point(long t, int sn) {
            if (StorageNumber.exists(sn)) {
                double v = StorageNumber.unpack(sn);
                if (!Double.isNaN(v)) {
                    sum += v;
                    count++;
                }
            }
        }
    }

    /**
     * Netdata exports the host labels set by configuration, not the ones it derives itself (the
     * {@code _}-prefixed system facts); the two it derives from netdata.conf settings count as
     * configured.
     */
    static boolean exported(String label) {
        return !label.startsWith("_") || label.equals("_is_ephemeral") || label.equals("_has_unstable_connection");
    }

    private static boolean yes(String v, boolean def) {
        if (v == null) {
            return def;
        }
        return v.equals("yes") || v.equals("1") || v.equals("true");
    }

    /** Netdata's collected counters: the incremental algorithms ({@code RRD_ALGORITHM_INCREMENTAL}, {@code PCENT_OVER_DIFF_TOTAL}). */
    static boolean isCounter(String algorithm) {
        return "incremental".equals(algorithm) || "percentage-of-incremental-row".equals(algorithm);
    }

    /** 1.37.1's units before "Fix for issue 5227", which {@code oldunits=yes} names metrics with. */
    private static final Map<String, String> OLD_UNITS = Map.ofEntries(
            Map.entry("KiB/s", "kilobytes/s"), Map.entry("MiB/s", "MB/s"), Map.entry("GiB/s", "GB/s"),
            Map.entry("KiB", "KB"), Map.entry("MiB", "MB"), Map.entry("GiB", "GB"), Map.entry("inodes", "Inodes"),
            Map.entry("percentage", "percent"), Map.entry("faults/s", "page faults/s"),
            Map.entry("KiB/operation", "kilobytes per operation"),
            Map.entry("milliseconds/operation", "ms per operation"));

    /** The units a metric name carries ({@code prometheus_units_copy}): the chart's, or their old spelling. */
    static String prometheusUnits(String units, boolean oldUnits) {
        return oldUnits ? OLD_UNITS.getOrDefault(units, units) : units;
    }

    /**
     * Netdata's metric name: prefix, context, the dimension for a heterogeneous chart's collected
     * values, {@code units} unless empty ({@code %} as {@code percent}, a trailing {@code /s} as
     * {@code persec}), source.
     */
    static void metricName(Out o, String prefix, ChartView c, String dimension, byte[] units, String suffix) {
        o.utf8(prefix);
        o.ch('_');
        nameCopy(o, c.info().context(), PROMETHEUS_ELEMENT_MAX);
        if (dimension != null) {
            o.ch('_');
            nameCopy(o, dimension, PROMETHEUS_ELEMENT_MAX);
        }
        for (byte b : units) {
            o.raw(b);
        }
        o.a(suffix);
    }

    private static final byte[] NO_BYTES = {};

    /**
     * {@code prometheus_name_copy}: the first {@code usable} bytes of {@code s}'s UTF-8, each an
     * ASCII letter or digit kept, any other byte (a multi-byte character: each of its bytes) an
     * underscore.
     */
    static void nameCopy(Out o, String s, int usable) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        for (int n = 0; n < b.length && n < usable; n++) {
            o.raw(alnum(b[n]) ? b[n] : '_');
        }
    }

    private static boolean alnum(byte c) {
        return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z';
    }

    /**
     * {@code prometheus_label_copy} at {@link #PROMETHEUS_ELEMENT_MAX}: {@code s}'s UTF-8 bytes as
     * they are, a backslash before each {@code "}, {@code \} and newline (a newline stays a
     * newline), until 255 bytes are written, escapes counted; the cut may fall inside a UTF-8
     * sequence, as Netdata's does.
     */
    static void labelCopy(Out o, String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        int usable = PROMETHEUS_ELEMENT_MAX - 1;
        int n = 0;
        for (int i = 0; i < b.length && n < usable; i++, n++) {
            byte c = b[i];
            if (c == '"' || c == '\\' || c == '\n') {
                o.raw('\\');
                n++;
            }
            o.raw(c);
        }
    }

    /**
     * {@code prometheus_units_copy} at {@link #PROMETHEUS_ELEMENT_MAX}: an underscore and the
     * units as a name part, {@code %} alone as {@code _percent}, a trailing {@code /s} as
     * {@code _persec}; empty units leave the underscore alone.
     */
    static byte[] unitsCopy(String units) {
        byte[] s = units.getBytes(StandardCharsets.UTF_8);
        int usable = PROMETHEUS_ELEMENT_MAX;
        byte[] d = new byte[usable + 1];
        int di = 0;
        d[di++] = '_';
        int n = 1;
        for (int si = 0; si < s.length && n < usable; si++, n++) {
            d[di++] = alnum(s[si]) ? s[si] : (byte) '_';
        }
        byte[] tail = null;
        if (n == 2 && s[0] == '%') {
            n = 0;
            di = 0;
            tail = "_percent".getBytes(StandardCharsets.US_ASCII);
        } else if (n > 3 && s[n - 3] == '/' && s[n - 2] == 's') {
            n -= 2;
            di -= 2;
            tail = "_persec".getBytes(StandardCharsets.US_ASCII);
        }
        if (tail != null) {
            for (int t = 0; t < tail.length && n < usable; t++, n++) {
                d[di++] = tail[t];
            }
        }
        return Arrays.copyOf(d, di);
    }

    /**
     * The data source: the last of Netdata's six parameter names for it ({@code data},
     * {@code source}, {@code data source}, {@code data-source}, {@code data_source},
     * {@code datasource}) wins; a value Netdata does not know (it compares case-sensitively) leaves
     * the one before, at first the exporter's default, average ({@code exporting_parse_data_source}).
     */
    static Source dataSource(QueryString q) {
        Source source = Source.AVERAGE;
        for (int i = 0; i < q.size(); i++) {
            switch (q.name(i)) {
                case "data", "source", "data source", "data-source", "data_source", "datasource" -> {
                    switch (q.value(i)) {
                        case "raw", "as collected", "as-collected", "as_collected", "ascollected" ->
                                source = Source.AS_COLLECTED;
                        case "average" -> source = Source.AVERAGE;
                        case "sum", "volume" -> source = Source.SUM;
                        default -> {
                            // Netdata logs it and keeps what it had
                        }
                    }
                }
                default -> {
                }
            }
        }
        return source;
    }
}
