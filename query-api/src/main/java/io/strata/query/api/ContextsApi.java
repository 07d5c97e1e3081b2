package io.strata.query.api;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.netdata.CNumbers;
import io.strata.engine.netdata.SimplePattern;
import io.strata.engine.registry.MetricRegistry;
import io.strata.query.catalog.ChartView;
import io.strata.query.catalog.HostView;
import io.strata.query.catalog.RetentionSpan;
import io.strata.query.data.QueryWindow;
import io.strata.query.http.ApiError;
import io.strata.query.http.ApiRequest;
import io.strata.query.http.ApiResponse;
import io.strata.query.http.ContentTypes;
import io.strata.query.text.Out;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * {@code /api/v1/contexts} and {@code /api/v1/context?context=}: the host's charts grouped by
 * context, as Netdata 1.37.1's rrdcontext layer lists them, built from the catalog and the
 * engine's retention at request time.
 *
 * <p>Contexts come in the order their first chart was defined, their charts and dimensions in
 * definition order (Netdata's dictionaries keep insertion order, and charts are defined in the
 * order they are created). A context's title and family are its charts' merged with Netdata's
 * "[x]" rule, its units and chart type the last chart's, its priority the lowest; only charts
 * still collected count when there are any, as Netdata prefers live instances to archived ones.
 *
 * <p>"Collected" means the dimension got a point within the last {@link #COLLECTED_SECONDS} (or
 * three of its intervals when longer): the engine knows when points arrive, not whether a
 * collector still runs. A dimension without retention that is not collected is deleted, as is a
 * chart (context) all of whose dimensions (charts) are. The hub queue and post-processing
 * figures of {@code options=queue} have no counterpart here: Strata is never claimed, so like an
 * unclaimed Netdata every context stays {@code QUEUED}; the reasons are empty, the times 0 and
 * {@code version} is the context's newest point time.
 */
public final class ContextsApi {

    /** A dimension whose newest point is younger than this (or 3 intervals) is reported collected. */
    static final long COLLECTED_SECONDS = 60;

    static final int SHOW_INSTANCES = 1;
    static final int SHOW_METRICS = 1 << 1;
    static final int SHOW_QUEUED = 1 << 2;
    static final int SHOW_FLAGS = 1 << 3;
    static final int SHOW_DELETED = 1 << 4;
    static final int SHOW_LABELS = 1 << 5;
    static final int DEEPSCAN = 1 << 6;
    static final int SHOW_UUIDS = 1 << 7;
    static final int SHOW_HIDDEN = 1 << 8;
    static final int SKIP_ID = 1 << 9;
    /** Netdata's {@code full}/{@code all}: everything but hidden contexts. */
    static final int ALL = SHOW_INSTANCES | SHOW_METRICS | SHOW_QUEUED | SHOW_FLAGS | SHOW_DELETED | SHOW_LABELS
            | SHOW_UUIDS;

    private ContextsApi() {
    }

    /** What both endpoints read from the query string, as Netdata reads it. */
    private static final class Params {
        String context;
        long after;
        long before;
        int options;
        SimplePattern labelKey;
        SimplePattern labelsFilter;
        SimplePattern dimensions;

        boolean hasFilter() {
            return labelKey != null || labelsFilter != null || dimensions != null;
        }
    }

    public static ApiResponse contexts(ApiRequest req) {
        Params p = params(req);
        HostView host = req.host();
        Out o = new Out(64 * 1024);
        o.a("{\n\t\"hostname\": ").jsonString(host.hostname())
                .a(",\n\t\"machine_guid\": ").jsonString(host.guid().toString())
                .a(",\n\t\"node_id\": \"\",\n\t\"claim_id\": \"\"");
        if ((p.options & SHOW_LABELS) != 0) {
            o.a(",\n\t\"host_labels\": {\n");
            Map<String, String> labels = host.info() == null ? Map.of() : host.info().labels();
            labelMembers(o, labels, "\t\t");
            o.a("\n\t}");
        }
        o.a(",\n\t\"contexts\": {");
        Walk walk = new Walk(req, p);
        for (Map.Entry<String, List<ChartView>> e : byContext(host).entrySet()) {
            walk.context(o, e.getKey(), e.getValue(), p.options);
        }
        o.a("\n\t}\n}");
        return ApiResponse.ok(ContentTypes.JSON, o.toByteBuf(), ApiResponse.Caching.PUBLIC);
    }

    public static ApiResponse context(ApiRequest req) {
        Params p = params(req);
        if (p.context == null) {
            throw new ApiError(HttpResponseStatus.BAD_REQUEST, "No context is given at the request.");
        }
        List<ChartView> charts = byContext(req.host()).get(p.context);
        Out o = new Out(4096);
        Walk walk = new Walk(req, p);
        if (charts == null || !walk.context(o, p.context, charts, p.options | SKIP_ID)) {
            // Netdata answers an unknown (or wholly filtered) context with an empty 404
            return new ApiResponse(HttpResponseStatus.NOT_FOUND, ContentTypes.JSON, Unpooled.EMPTY_BUFFER,
                    ApiResponse.Caching.NO_CACHE, null);
        }
        return ApiResponse.ok(ContentTypes.JSON, o.toByteBuf(), ApiResponse.Caching.PUBLIC);
    }

    private static Params params(ApiRequest req) {
        Params p = new Params();
        StringBuilder dims = null;
        String labelKey = null;
        String labelsFilter = null;
        for (int i = 0; i < req.query().size(); i++) {
            String name = req.query().name(i);
            String value = req.query().value(i);
            switch (name) {
                case "context", "ctx" -> p.context = value;
                case "after" -> p.after = CNumbers.strtol(value, 10);
                case "before" -> p.before = CNumbers.strtol(value, 10);
                // not accumulated: the last options= wins, as in Netdata
                case "options" -> p.options = options(value);
                case "chart_label_key" -> labelKey = value;
                case "chart_labels_filter" -> labelsFilter = value;
                case "dimension", "dim", "dimensions", "dims" -> {
                    dims = dims == null ? new StringBuilder() : dims;
                    dims.append('|').append(value);
                }
                default -> {
                }
            }
        }
        p.labelKey = filter(labelKey);
        p.labelsFilter = filter(labelsFilter);
        p.dimensions = dims == null ? null : filter(dims.toString());
        if (p.after != 0 && p.before != 0) {
            long[] w = QueryWindow.toAbsolute(p.after, p.before, req.context().nowSeconds());
            p.after = w[0];
            p.before = w[1];
        }
        return p;
    }

    /** Netdata's option words, separated by comma, space or pipe; unknown words are ignored. */
    static int options(String text) {
        int options = 0;
        for (String word : text.split("[, |]")) {
            options |= switch (word) {
                case "full", "all" -> ALL;
                case "charts", "instances" -> SHOW_INSTANCES;
                case "dimensions", "metrics" -> SHOW_METRICS;
                case "queue" -> SHOW_QUEUED;
                case "flags" -> SHOW_FLAGS;
                case "uuids" -> SHOW_UUIDS;
                case "deleted" -> SHOW_DELETED;
                case "labels" -> SHOW_LABELS;
                case "deepscan" -> DEEPSCAN;
                case "hidden" -> SHOW_HIDDEN;
                default -> 0;
            };
        }
        return options;
    }

    /** The host's contexts, each with its charts, in the order their first chart was defined. */
    static Map<String, List<ChartView>> byContext(HostView host) {
        Map<String, List<ChartView>> m = new LinkedHashMap<>();
        for (ChartView c : host.charts()) {
            m.computeIfAbsent(c.info().context(), k -> new ArrayList<>(1)).add(c);
        }
        return m;
    }

    /**
     * Netdata's merge of two differing strings (a context's title or family over its charts):
     * their common prefix, {@code [x]}, their common suffix; an operand that is already
     * {@code [x]} wins.
     */
    static String merge(String a, String b) {
        if (a.equals(b) || a.equals("[x]")) {
            return a;
        }
        if (b.equals("[x]")) {
            return b;
        }
        byte[] x = a.getBytes(StandardCharsets.UTF_8);
        byte[] y = b.getBytes(StandardCharsets.UTF_8);
        int prefix = 0;
        while (prefix < x.length && prefix < y.length && x[prefix] == y[prefix]) {
            prefix++;
        }
        // the suffix may reach back into the prefix, as in Netdata (which walks from both ends independently)
        int suffix = 0;
        while (suffix < x.length && suffix < y.length && x[x.length - 1 - suffix] == y[y.length - 1 - suffix]) {
            suffix++;
        }
        byte[] out = new byte[prefix + 3 + suffix];
        System.arraycopy(x, 0, out, 0, prefix);
        out[prefix] = '[';
        out[prefix + 1] = 'x';
        out[prefix + 2] = ']';
        System.arraycopy(x, x.length - suffix, out, prefix + 3, suffix);
        return new String(out, StandardCharsets.UTF_8);
    }

    private static void labelMembers(Out o, Map<String, String> labels, String indent) {
        boolean first = true;
        for (Map.Entry<String, String> e : labels.entrySet()) {
            o.a(first ? indent : ",\n" + indent).jsonString(e.getKey()).ch(':').jsonString(e.getValue());
            first = false;
        }
    }

    private static void flags(Out o, boolean queued, boolean deleted, boolean collected, boolean live) {
        if (queued) {
            o.a("QUEUED ");
        }
        if (deleted) {
            o.a("DELETED ");
        }
        o.a(collected ? "COLLECTED " : deleted ? "" : "ARCHIVED ");
        if (live) {
            o.a("LIVE_RETENTION ");
        }
    }

    /** Retention and state of one chart's dimensions, read once per request. */
    private static final class ChartState {
        final long[] first;
        final long[] last;
        final boolean[] collected;
        long chartFirst;
        long chartLast;
        boolean anyCollected;
        boolean allDeleted = true;

        ChartState(MetricRegistry registry, ChartView c, long now) {
            int n = c.dimensions();
            first = new long[n];
            last = new long[n];
            collected = new boolean[n];
            long window = Math.max(COLLECTED_SECONDS, 3L * c.info().updateEvery());
            for (int d = 0; d < n; d++) {
                first[d] = RetentionSpan.first(registry, c.metric(d));
                last[d] = RetentionSpan.last(registry, c.metric(d));
                collected[d] = last[d] != 0 && now - last[d] < window && !c.obsolete(d);
                if (first[d] != 0 && (chartFirst == 0 || first[d] < chartFirst)) {
                    chartFirst = first[d];
                }
                chartLast = Math.max(chartLast, last[d]);
                anyCollected |= collected[d];
                allDeleted &= deleted(d);
            }
        }

        boolean deleted(int d) {
            return !collected[d] && first[d] == 0 && last[d] == 0;
        }
    }

    /** One request's walk over contexts, charts and dimensions, with Netdata's filters and combined retention. */
    private static final class Walk {
        private final MetricRegistry registry;
        private final Params p;
        private final long now;
        private int contextsWritten;

        Walk(ApiRequest req, Params p) {
            this.registry = req.context().engine().registry();
            this.p = p;
            this.now = req.context().nowSeconds();
        }

        private boolean outside(long first, long last) {
            return (p.after != 0 && (last == 0 || p.after > last)) || (p.before != 0 && (first == 0 || p.before < first));
        }

        /** Writes one context (a member of "contexts", or the whole object with SKIP_ID); false when filtered out. */
        boolean context(Out o, String id, List<ChartView> charts, int options) {
            ChartState[] states = new ChartState[charts.size()];
            long first = 0;
            long last = 0;
            boolean collected = false;
            boolean deleted = true;
            for (int i = 0; i < states.length; i++) {
                ChartState s = new ChartState(registry, charts.get(i), now);
                states[i] = s;
                if (s.chartFirst != 0 && (first == 0 || s.chartFirst < first)) {
                    first = s.chartFirst;
                }
                last = Math.max(last, s.chartLast);
                collected |= s.anyCollected;
                deleted &= s.allDeleted;
            }
            if (deleted && (options & SHOW_DELETED) == 0) {
                return false;
            }
            if (outside(first, last)) {
                return false;
            }
            Out instances = null;
            if ((options & (SHOW_LABELS | SHOW_INSTANCES | SHOW_METRICS)) != 0 || p.hasFilter()) {
                instances = new Out(4096);
                long[] combined = new long[2];
                boolean[] combinedCollected = new boolean[1];
                int written = 0;
                for (int i = 0; i < states.length; i++) {
                    if (chart(instances, charts.get(i), id, states[i], options, written > 0, combined, combinedCollected)) {
                        written++;
                    }
                }
                if (p.hasFilter() && written == 0) {
                    return false;
                }
                // Netdata's combined figures start at zero: a context whose charts were all filtered shows 0s
                first = combined[0];
                last = combined[1];
                collected = combinedCollected[0];
            }
            String title = null;
            String units = null;
            String family = null;
            String chartType = null;
            long priority = Long.MAX_VALUE;
            boolean preferCollected = anyCollected(states);
            for (int i = 0; i < states.length; i++) {
                if (preferCollected && !states[i].anyCollected) {
                    continue;
                }
                ChartView c = charts.get(i);
                title = title == null ? c.info().title() : merge(title, c.info().title());
                family = family == null ? c.info().family() : merge(family, c.info().family());
                units = c.info().units();
                chartType = c.info().chartType();
                priority = Math.min(priority, c.info().priority());
            }
            if ((options & SKIP_ID) != 0) {
                o.a("\n\t\t{");
            } else {
                o.a(contextsWritten > 0 ? ",\n\t\t" : "\n\t\t").jsonString(id).a(": {");
            }
            o.a("\n\t\t\t\"title\":").jsonString(title)
                    .a(",\n\t\t\t\"units\":").jsonString(units)
                    .a(",\n\t\t\t\"family\":").jsonString(family)
                    .a(",\n\t\t\t\"chart_type\":").jsonString(chartType)
                    .a(",\n\t\t\t\"priority\":").integer(priority)
                    .a(",\n\t\t\t\"first_time_t\":").integer(first)
                    .a(",\n\t\t\t\"last_time_t\":").integer(collected ? now : last)
                    .a(",\n\t\t\t\"collected\":").a(collected ? "true" : "false");
            if ((options & SHOW_DELETED) != 0) {
                o.a(",\n\t\t\t\"deleted\":").a(deleted ? "true" : "false");
            }
            if ((options & SHOW_FLAGS) != 0) {
                o.a(",\n\t\t\t\"flags\":\"");
                flags(o, true, deleted, anyCollected(states), !deleted);
                o.ch('"');
            }
            if ((options & SHOW_QUEUED) != 0) {
                o.a(",\n\t\t\t\"queued_reasons\":\"\",\n\t\t\t\"last_queued\":0,\n\t\t\t\"scheduled_dispatch\":0")
                        .a(",\n\t\t\t\"last_dequeued\":0,\n\t\t\t\"dispatches\":0,\n\t\t\t\"hub_version\":0")
                        .a(",\n\t\t\t\"version\":").integer(lastOf(states))
                        .a(",\n\t\t\t\"pp_reasons\":\"\",\n\t\t\t\"pp_last_queued\":0,\n\t\t\t\"pp_last_dequeued\":0")
                        .a(",\n\t\t\t\"pp_executed\":0");
            }
            if (instances != null) {
                o.a(",\n\t\t\t\"charts\": {").a(instances.text()).a("\n\t\t\t}");
            }
            o.a("\n\t\t}");
            contextsWritten++;
            return true;
        }

        private static boolean anyCollected(ChartState[] states) {
            for (ChartState s : states) {
                if (s.anyCollected) {
                    return true;
                }
            }
            return false;
        }

        private static long lastOf(ChartState[] states) {
            long last = 0;
            for (ChartState s : states) {
                last = Math.max(last, s.chartLast);
            }
            return last;
        }

        private boolean chart(Out o, ChartView c, String context, ChartState s, int options, boolean notFirst,
                              long[] combined, boolean[] combinedCollected) {
            if (s.allDeleted && (options & SHOW_DELETED) == 0) {
                return false;
            }
            if (outside(s.chartFirst, s.chartLast)) {
                return false;
            }
            Map<String, String> labels = ChartsApi.labels(c.info());
            if (p.labelKey != null && !anyLabel(labels, p.labelKey, false)) {
                return false;
            }
            if (p.labelsFilter != null && !anyLabel(labels, p.labelsFilter, true)) {
                return false;
            }
            long first = s.chartFirst;
            long last = s.chartLast;
            boolean collected = s.anyCollected;
            Out metrics = null;
            if ((options & SHOW_METRICS) != 0 || p.dimensions != null) {
                metrics = new Out(1024);
                int written = 0;
                first = 0;
                last = 0;
                collected = false;
                for (int d = 0; d < c.dimensions(); d++) {
                    if (dimension(metrics, c, d, s, options, written > 0)) {
                        first = written == 0 ? s.first[d] : Math.min(first, s.first[d]);
                        last = written == 0 ? s.last[d] : Math.max(last, s.last[d]);
                        collected |= s.collected[d];
                        written++;
                    }
                }
                if (p.hasFilter() && written == 0) {
                    return false;
                }
            }
            combined[0] = notFirst ? Math.min(combined[0], first) : first;
            combined[1] = notFirst ? Math.max(combined[1], last) : last;
            combinedCollected[0] = notFirst ? combinedCollected[0] | collected : collected;

            o.a(notFirst ? ",\n\t\t\t\t" : "\n\t\t\t\t").jsonString(c.id()).a(": {");
            if ((options & SHOW_UUIDS) != 0) {
                o.a("\n\t\t\t\t\t\"uuid\":").jsonString(chartUuid(c).toString()).ch(',');
            }
            o.a("\n\t\t\t\t\t\"name\":").jsonString(c.name())
                    .a(",\n\t\t\t\t\t\"context\":").jsonString(context)
                    .a(",\n\t\t\t\t\t\"title\":").jsonString(c.info().title())
                    .a(",\n\t\t\t\t\t\"units\":").jsonString(c.info().units())
                    .a(",\n\t\t\t\t\t\"family\":").jsonString(c.info().family())
                    .a(",\n\t\t\t\t\t\"chart_type\":").jsonString(c.info().chartType())
                    .a(",\n\t\t\t\t\t\"priority\":").integer(c.info().priority())
                    .a(",\n\t\t\t\t\t\"update_every\":").integer(c.info().updateEvery())
                    .a(",\n\t\t\t\t\t\"first_time_t\":").integer(first)
                    .a(",\n\t\t\t\t\t\"last_time_t\":").integer(collected ? now : last)
                    .a(",\n\t\t\t\t\t\"collected\":").a(collected ? "true" : "false");
            if ((options & SHOW_DELETED) != 0) {
                o.a(",\n\t\t\t\t\t\"deleted\":").a(s.allDeleted ? "true" : "false");
            }
            if ((options & SHOW_FLAGS) != 0) {
                o.a(",\n\t\t\t\t\t\"flags\":\"");
                flags(o, false, s.allDeleted, s.anyCollected, !s.allDeleted);
                o.ch('"');
            }
            if ((options & SHOW_LABELS) != 0 && !labels.isEmpty()) {
                o.a(",\n\t\t\t\t\t\"labels\": {\n");
                labelMembers(o, labels, "\t\t\t\t\t\t");
                o.a("\n\t\t\t\t\t}");
            }
            if (metrics != null) {
                o.a(",\n\t\t\t\t\t\"dimensions\": {").a(metrics.text()).a("\n\t\t\t\t\t}");
            }
            o.a("\n\t\t\t\t}");
            return true;
        }

        private boolean dimension(Out o, ChartView c, int d, ChartState s, int options, boolean notFirst) {
            boolean deleted = s.deleted(d);
            if (deleted && (options & SHOW_DELETED) == 0) {
                return false;
            }
            if (outside(s.first[d], s.last[d])) {
                return false;
            }
            if (p.dimensions != null && !p.dimensions.matches(c.dimensionId(d))
                    && !p.dimensions.matches(c.dimensionName(d))) {
                return false;
            }
            o.a(notFirst ? ",\n\t\t\t\t\t\t" : "\n\t\t\t\t\t\t").jsonString(c.dimensionId(d)).a(": {");
            if ((options & SHOW_UUIDS) != 0) {
                o.a("\n\t\t\t\t\t\t\t\"uuid\":")
                        .jsonString(DimensionInfo.metricUuid(c.info().hostGuid(), c.id(), c.dimensionId(d)).toString())
                        .ch(',');
            }
            o.a("\n\t\t\t\t\t\t\t\"name\":").jsonString(c.dimensionName(d))
                    .a(",\n\t\t\t\t\t\t\t\"first_time_t\":").integer(s.first[d])
                    .a(",\n\t\t\t\t\t\t\t\"last_time_t\":").integer(s.collected[d] ? now : s.last[d])
                    .a(",\n\t\t\t\t\t\t\t\"collected\":").a(s.collected[d] ? "true" : "false");
            if ((options & SHOW_DELETED) != 0) {
                o.a(",\n\t\t\t\t\t\t\t\"deleted\":").a(deleted ? "true" : "false");
            }
            if ((options & SHOW_FLAGS) != 0) {
                o.a(",\n\t\t\t\t\t\t\t\"flags\":\"");
                flags(o, false, deleted, s.collected[d], !deleted);
                o.ch('"');
            }
            o.a("\n\t\t\t\t\t\t}");
            return true;
        }
    }

    /** An API pattern parameter, or null when it has no words (Netdata's NULL pattern: no filter). */
    private static SimplePattern filter(String text) {
        SimplePattern p = SimplePattern.parse(text, SimplePattern.API_SEPARATORS);
        return p.isEmpty() ? null : p;
    }

    /**
     * Netdata's label match: true when some label's key (or {@code key:value}) is matched by the
     * pattern's first matching word and that word is not negative.
     */
    private static boolean anyLabel(Map<String, String> labels, SimplePattern pattern, boolean withValue) {
        for (Map.Entry<String, String> e : labels.entrySet()) {
            if (pattern.matches(withValue ? e.getKey() + ":" + e.getValue() : e.getKey())) {
                return true;
            }
        }
        return false;
    }

    /** A chart's UUID, derived from host and chart id as the dimensions' are (replicas agree without exchanging it). */
    static UUID chartUuid(ChartView c) {
        return UUID.nameUUIDFromBytes((c.info().hostGuid() + "/" + c.id()).getBytes(StandardCharsets.UTF_8));
    }
}
