package io.strata.query.api;

import io.netty.buffer.Unpooled;
import io.strata.engine.registry.MetricRegistry;
import io.strata.query.catalog.ChartView;
import io.strata.query.catalog.RetentionSpan;
import io.strata.query.data.DataOptions;
import io.strata.query.data.DataQuery;
import io.strata.query.data.DataRequest;
import io.strata.query.data.DataResult;
import io.strata.query.data.GroupingMethod;
import io.strata.query.data.QueryBudget;
import io.strata.query.data.QueryValues;
import io.strata.query.http.ApiError;
import io.strata.query.http.ApiRequest;
import io.strata.query.http.ApiResponse;
import io.strata.query.http.ContentTypes;
import io.strata.query.http.QueryString;
import io.strata.engine.netdata.CNumbers;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * {@code /api/v1/badge.svg}: one value of a chart (the newest row of a data query, by default the
 * average of the last collection interval, dimensions summed) drawn as Netdata 1.37.1 draws it
 * ({@link BadgeSvg}). Parameters and defaults are those of Netdata's {@code web_client_api_request_v1_badge}.
 * Strata has no health engine, so {@code alarm=} answers as a Netdata in which the chart has no
 * such alarm: a badge saying {@code alarm not found}.
 */
public final class BadgeApi {

    private BadgeApi() {
    }

    /** Netdata's {@code gap when lost iterations above} (1) + 2: older data is not shown. */
    private static final int GAP_ITERATIONS = 3;

    /** The badge's parameters as Netdata reads them (empty values are ignored, later ones win, dimensions accumulate). */
    record Params(String chart, String dimensions, String after, String before, String points, String groupOptions,
                  GroupingMethod group, long options, String label, String units, String labelColor,
                  String valueColor, String multiply, String divide, String refresh, String precision, String scale,
                  String fixedWidthLabel, String fixedWidthValue, String alarm, String textColorLabel,
                  String textColorValue) {

        static Params parse(QueryString q) {
            String chart = null;
            StringBuilder dims = null;
            String after = null;
            String before = null;
            String points = null;
            String groupOptions = null;
            GroupingMethod group = GroupingMethod.AVERAGE;
            long options = 0;
            String label = null;
            String units = null;
            String labelColor = null;
            String valueColor = null;
            String multiply = null;
            String divide = null;
            String refresh = null;
            String precision = null;
            String scale = null;
            String fixedLbl = null;
            String fixedVal = null;
            String alarm = null;
            String textLbl = null;
            String textVal = null;
            for (int i = 0; i < q.size(); i++) {
                String name = q.name(i);
                String value = q.value(i);
                if (name == null || name.isEmpty() || value == null || value.isEmpty()) {
                    continue;
                }
                switch (name) {
                    case "chart" -> chart = value;
                    case "dimension", "dim", "dimensions", "dims" -> {
                        if (dims == null) {
                            dims = new StringBuilder();
                        }
                        dims.append('|').append(value);
                    }
                    case "after" -> after = value;
                    case "before" -> before = value;
                    case "points" -> points = value;
                    case "group_options" -> groupOptions = value;
                    case "group" -> group = GroupingMethod.parse(value);
                    case "options" -> options |= DataOptions.parse(value);
                    case "label" -> label = value;
                    case "units" -> units = value;
                    case "label_color" -> labelColor = value;
                    case "value_color" -> valueColor = value;
                    case "multiply" -> multiply = value;
                    case "divide" -> divide = value;
                    case "refresh" -> refresh = value;
                    case "precision" -> precision = value;
                    case "scale" -> scale = value;
                    case "fixed_width_lbl" -> fixedLbl = value;
                    case "fixed_width_val" -> fixedVal = value;
                    case "alarm" -> alarm = value;
                    case "text_color_lbl" -> textLbl = value;
                    case "text_color_val" -> textVal = value;
                    default -> {
                        // Netdata ignores parameters it does not know
                    }
                }
            }
            return new Params(chart, dims == null ? null : dims.toString(), after, before, points, groupOptions, group,
                    options, label, units, labelColor, valueColor, multiply, divide, refresh, precision, scale,
                    fixedLbl, fixedVal, alarm, textLbl, textVal);
        }
    }

    public static ApiResponse badge(ApiRequest req) throws IOException {
        Params p = Params.parse(req.query());
        int fixedLbl = -1;
        int fixedVal = -1;
        if (p.fixedWidthLabel() != null && p.fixedWidthValue() != null) {
            fixedLbl = str2i(p.fixedWidthLabel());
            fixedVal = str2i(p.fixedWidthValue());
        }
        if (p.chart() == null) {
            throw ApiError.badRequest("No chart id is given at the request.");
        }
        int scale = p.scale() != null ? str2i(p.scale()) : 100;
        long nowMillis = req.context().clock().millis();
        ChartView chart = req.host().chart(p.chart());
        if (chart == null) {
            return svg(message("chart not found", scale, p.options()), Caching.noCache());
        }
        if (p.alarm() != null) {
            // no health engine: no chart has an alarm
            return svg(message("alarm not found", scale, p.options()), Caching.noCache());
        }
        int updateEvery = Math.max(1, chart.info().updateEvery());
        long multiply = p.multiply() != null ? CNumbers.strtol(p.multiply(), 10) : 1;
        long divide = p.divide() != null ? CNumbers.strtol(p.divide(), 10) : 1;
        long before = p.before() != null ? CNumbers.strtol(p.before(), 10) : 0;
        long after = p.after() != null ? CNumbers.strtol(p.after(), 10) : -updateEvery;
        int points = p.points() != null ? str2i(p.points()) : 1;
        int precision = p.precision() != null ? str2i(p.precision()) : -1;
        if (multiply == 0) {
            multiply = 1;
        }
        if (divide == 0) {
            divide = 1;
        }
        int refresh = 0;
        if (p.refresh() != null) {
            if (p.refresh().equals("auto")) {
                if ((p.options() & DataOptions.NOT_ALIGNED) != 0) {
                    refresh = updateEvery;
                } else {
                    refresh = (int) Math.abs(before - after);
                }
            } else {
                refresh = Math.abs(str2i(p.refresh()));
            }
        }
        String label = p.label();
        if (label == null) {
            label = p.dimensions() != null ? p.dimensions().substring(1) : chart.name();
        }
        String units = p.units();
        if (units == null) {
            units = (p.options() & DataOptions.PERCENTAGE) != 0 ? "%" : chart.info().units();
        }

        double value = Double.NaN;
        boolean answered = false;
        boolean relative = true;
        long nowSeconds = Math.floorDiv(nowMillis, 1000);
        // Netdata does not show a value collected too long ago
        if (lastEntry(req, chart) >= nowSeconds - (long) updateEvery * GAP_ITERATIONS) {
            DataRequest dr = DataRequest.ofChart(chart, p.dimensions(), after, before, points, p.group(),
                    p.groupOptions(), p.options(), -1);
            QueryBudget budget = QueryBudget.start(req.services().queryLimits(), 0, System.nanoTime());
            try {
                DataResult r = DataQuery.execute(req.context().engine(), req.host(), dr, req.context().nowSeconds(),
                        budget);
                if (r.rows() > 0) {
                    answered = true;
                    relative = r.window().relative();
                    double n = QueryValues.rowValue(r, QueryValues.valueRow(r, p.options()), p.options());
                    value = Double.isNaN(n) ? Double.NaN : n * multiply / divide;
                }
            } catch (ApiError e) {
                if (e.status().code() != 404 && e.status().code() != 400) {
                    throw e;
                }
                // nothing matched: Netdata draws the badge without a value
            }
        }
        Caching caching;
        if (!answered || refresh <= 0) {
            caching = Caching.noCache();
        } else {
            caching = new Caching(relative ? ApiResponse.Caching.NO_CACHE : ApiResponse.Caching.PUBLIC, refresh);
        }
        BadgeSvg.Spec spec = new BadgeSvg.Spec(label, value, units, p.labelColor(), p.valueColor(), precision, scale,
                (p.options() & DataOptions.DISPLAY_ABSOLUTE) != 0, fixedLbl, fixedVal, p.textColorLabel(),
                p.textColorValue());
        return svg(spec, caching);
    }

    private static BadgeSvg.Spec message(String text, int scale, long options) {
        return new BadgeSvg.Spec(text, Double.NaN, "", null, null, -1, scale,
                (options & DataOptions.DISPLAY_ABSOLUTE) != 0, -1, -1, null, null);
    }

    /** How the answer may be cached: Netdata's no-cache or public, and a {@code Refresh} of seconds (0: none). */
    private record Caching(ApiResponse.Caching kind, int refresh) {
        static Caching noCache() {
            return new Caching(ApiResponse.Caching.NO_CACHE, 0);
        }
    }

    private static ApiResponse svg(BadgeSvg.Spec spec, Caching caching) {
        byte[] body = BadgeSvg.render(spec).getBytes(StandardCharsets.UTF_8);
        ApiResponse r = ApiResponse.ok(ContentTypes.SVG, Unpooled.wrappedBuffer(body), caching.kind());
        if (caching.refresh() > 0) {
            // the HTTP layer sets Expires to the refresh time
            r = r.withHeader("Refresh", Integer.toString(caching.refresh()));
        }
        return r;
    }

    /** The chart's newest stored point over its dimensions (Netdata's {@code rrdset_last_entry_t}). */
    private static long lastEntry(ApiRequest req, ChartView chart) {
        MetricRegistry registry = req.context().engine().registry();
        long last = 0;
        for (int d = 0; d < chart.dimensions(); d++) {
            last = Math.max(last, RetentionSpan.last(registry, chart.metric(d)));
        }
        return last;
    }

    /** Netdata's {@code str2i}: {@code strtol} narrowed to an int. */
    static int str2i(String s) {
        return (int) CNumbers.strtol(s, 10);
    }
}
