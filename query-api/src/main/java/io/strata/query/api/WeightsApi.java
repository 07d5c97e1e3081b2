package io.strata.query.api;

import io.netty.handler.codec.http.HttpResponseStatus;
import io.strata.query.data.DataOptions;
import io.strata.query.data.GroupingMethod;
import io.strata.query.data.QueryBudget;
import io.strata.engine.netdata.SimplePattern;
import io.strata.query.data.Weights;
import io.strata.query.http.ApiError;
import io.strata.query.http.ApiRequest;
import io.strata.query.http.ApiResponse;
import io.strata.query.http.ContentTypes;
import io.strata.query.http.QueryString;
import io.strata.engine.netdata.CNumbers;
import io.strata.query.text.Out;

import java.io.IOException;
import java.util.Locale;

/**
 * {@code /api/v1/weights} (default method {@code anomaly-rate}, results by context) and
 * {@code /api/v1/metric_correlations} (default {@code ks2}, results by chart): parameters,
 * defaults, answer and error texts of Netdata 1.37.1's {@code web_client_api_request_v1_weights_internal}
 * and {@code web_api_v1_weights}; the scoring is {@link Weights}. Runs on the API executor like
 * every request, bounded by the request's {@link QueryBudget} ({@code timeout=} in milliseconds,
 * at most the server's query timeout; Netdata's default of 60 s applies only below it).
 */
public final class WeightsApi {

    private WeightsApi() {
    }

    /** Netdata's two shapes of the answer. */
    enum Format { CHARTS, CONTEXTS }

    public static ApiResponse weights(ApiRequest req) throws IOException {
        return run(req, Weights.Method.ANOMALY_RATE, Format.CONTEXTS);
    }

    public static ApiResponse metricCorrelations(ApiRequest req) throws IOException {
        return run(req, Weights.Method.KS2, Format.CHARTS);
    }

    private static ApiResponse run(ApiRequest req, Weights.Method method, Format format) throws IOException {
        long started = System.nanoTime();
        QueryString q = req.query();
        long baselineAfter = 0;
        long baselineBefore = 0;
        long after = 0;
        long before = 0;
        long points = 0;
        long timeout = 0;
        long options = DataOptions.NOT_ALIGNED | DataOptions.NONZERO | DataOptions.NULL2ZERO;
        int optionsCount = 0;
        GroupingMethod group = GroupingMethod.AVERAGE;
        String contextsText = null;
        long tierRequested = -1;
        for (int i = 0; i < q.size(); i++) {
            String name = q.name(i);
            String value = q.value(i);
            if (name == null || name.isEmpty() || value == null || value.isEmpty()) {
                continue;
            }
            switch (name) {
                case "baseline_after" -> baselineAfter = CNumbers.strtol(value, 10);
                case "baseline_before" -> baselineBefore = CNumbers.strtol(value, 10);
                case "after", "highlight_after" -> after = CNumbers.strtol(value, 10);
                case "before", "highlight_before" -> before = CNumbers.strtol(value, 10);
                case "points", "max_points" -> points = Math.max(0, CNumbers.strtol(value, 10));
                case "timeout" -> timeout = CNumbers.strtol(value, 10);
                case "group" -> group = GroupingMethod.parse(value);
                case "options" -> {
                    if (optionsCount == 0) {
                        options = DataOptions.NOT_ALIGNED | DataOptions.NULL2ZERO;
                    }
                    options |= DataOptions.parse(value);
                    optionsCount++;
                }
                case "method" -> method = Weights.Method.parse(value, Weights.Method.KS2);
                case "context", "contexts" -> contextsText = value;
                case "tier" -> tierRequested = CNumbers.strtol(value, 10);
                default -> {
                    // Netdata ignores parameters it does not know
                }
            }
        }
        int tiers = req.context().engine().registry().tiers();
        int tier = -1;
        if (tierRequested >= 0 && tierRequested < tiers) {
            tier = (int) tierRequested;
            options |= DataOptions.SELECTED_TIER;
        }
        SimplePattern contexts = contextsText == null ? null
                : SimplePattern.parse(contextsText, SimplePattern.API_SEPARATORS);
        if (contexts != null && contexts.isEmpty()) {
            contexts = null;
        }
        // Netdata: 60 s unless given, at least 1 s; Strata's server-wide query timeout bounds it further
        if (timeout <= 0) {
            timeout = 60_000;
        }
        timeout = Math.max(1000, timeout);
        QueryBudget budget = QueryBudget.start(req.services().queryLimits(), timeout, started);

        long now = req.context().nowSeconds() - 1;
        boolean relative = Math.abs(before) <= 3L * 365 * 86400 || Math.abs(after) <= 3L * 365 * 86400;
        // Netdata marks the answer not cacheable when the window is absolute (sic: the test is inverted)
        ApiResponse.Caching caching = relative ? ApiResponse.Caching.PUBLIC : ApiResponse.Caching.NO_CACHE;
        Weights.Outcome outcome;
        Weights.Window window;
        try {
            window = Weights.window(method, baselineAfter, baselineBefore, after, before, points, now);
            outcome = Weights.run(req.context().engine(), req.host(), method, window, group, options, contexts, tier,
                    req.context().nowSeconds(), budget);
        } catch (ApiError e) {
            String message = e.status().code() == HttpResponseStatus.GATEWAY_TIMEOUT.code() ? "timed out"
                    : e.getMessage();
            return error(e.status(), message, caching);
        }
        if (outcome.results().isEmpty()) {
            return error(HttpResponseStatus.NOT_FOUND, "no results produced.", caching);
        }
        double elapsedMs = (System.nanoTime() - started) / 1e6;
        Out out = new Out(16 * 1024);
        header(out, window, method, group, outcome, elapsedMs);
        if (format == Format.CHARTS) {
            charts(out, outcome);
        } else {
            contexts(out, outcome);
        }
        return ApiResponse.ok(ContentTypes.JSON, out.toByteBuf(), caching);
    }

    private static ApiResponse error(HttpResponseStatus status, String message, ApiResponse.Caching caching) {
        Out out = new Out(64);
        out.a("{\"error\": \"").a(message).a("\" }");
        return new ApiResponse(status, ContentTypes.JSON, out.toByteBuf(), caching, null);
    }

    private static void header(Out out, Weights.Window w, Weights.Method method, GroupingMethod group,
                               Weights.Outcome outcome, double elapsedMs) {
        out.a("{\n\t\"after\": ").integer(w.after())
                .a(",\n\t\"before\": ").integer(w.before())
                .a(",\n\t\"duration\": ").integer(w.before() - w.after())
                .a(",\n\t\"points\": ").integer(w.points()).a(",\n");
        if (method == Weights.Method.KS2 || method == Weights.Method.VOLUME) {
            out.a("\t\"baseline_after\": ").integer(w.baselineAfter())
                    .a(",\n\t\"baseline_before\": ").integer(w.baselineBefore())
                    .a(",\n\t\"baseline_duration\": ").integer(w.baselineBefore() - w.baselineAfter())
                    .a(",\n\t\"baseline_points\": ").integer(w.points() << w.shifts()).a(",\n");
        }
        Weights.Stats s = outcome.stats();
        out.a("\t\"statistics\": {\n\t\t\"query_time_ms\": ").a(String.format(Locale.ROOT, "%f", elapsedMs))
                .a(",\n\t\t\"db_queries\": ").integer(s.dbQueries())
                .a(",\n\t\t\"query_result_points\": ").integer(s.resultPoints())
                .a(",\n\t\t\"binary_searches\": ").integer(s.binarySearches())
                .a(",\n\t\t\"db_points_read\": ").integer(s.dbPoints())
                .a(",\n\t\t\"db_points_per_tier\": [ ");
        long[] perTier = s.pointsPerTier();
        for (int t = 0; t < perTier.length; t++) {
            if (t > 0) {
                out.a(", ");
            }
            out.integer(perTier[t]);
        }
        out.a(" ]\n\t},\n\t\"group\": \"").a(group.name()).a("\",\n\t\"method\": \"").a(method.id())
                .a("\",\n\t\"options\": \"").a(DataOptions.render(outcome.options()));
    }

    private static void charts(Out out, Weights.Outcome outcome) {
        out.a("\",\n\t\"correlated_charts\": {\n");
        int charts = 0;
        int chartDims = 0;
        Object lastChart = null;
        for (Weights.Result r : outcome.results()) {
            if (r.chart() != lastChart) {
                lastChart = r.chart();
                if (charts > 0) {
                    out.a("\n\t\t\t}\n\t\t},\n");
                }
                out.a("\t\t\"").utf8(r.chart().id()).a("\": {\n\t\t\t\"context\": \"").utf8(r.context())
                        .a("\",\n\t\t\t\"dimensions\": {\n");
                charts++;
                chartDims = 0;
            }
            if (chartDims > 0) {
                out.a(",\n");
            }
            out.a("\t\t\t\t\"").utf8(r.chart().dimensionName(r.dimension())).a("\": ").fixed(r.value(), 7);
            chartDims++;
        }
        int total = outcome.results().size();
        if (total > 0) {
            out.a("\n\t\t\t}\n\t\t}\n");
        }
        out.a("\t},\n\t\"correlated_dimensions\": ").integer(total)
                .a(",\n\t\"total_dimensions_count\": ").integer(outcome.examined()).a("\n}\n");
    }

    private static void contexts(Out out, Weights.Outcome outcome) {
        out.a("\",\n\t\"contexts\": {\n");
        int contexts = 0;
        int charts = 0;
        int contextDims = 0;
        int chartDims = 0;
        double contextTotal = 0;
        double chartTotal = 0;
        String lastContext = null;
        Object lastChart = null;
        for (Weights.Result r : outcome.results()) {
            if (!r.context().equals(lastContext)) {
                lastContext = r.context();
                if (contexts > 0) {
                    out.a("\n\t\t\t\t\t},\n\t\t\t\t\t\"weight\":").fixed(chartTotal / chartDims, 7)
                            .a("\n\t\t\t\t}\n\t\t\t},\n\t\t\t\"weight\":").fixed(contextTotal / contextDims, 7)
                            .a("\n\t\t},\n");
                }
                out.a("\t\t\"").utf8(r.context()).a("\": {\n\t\t\t\"charts\":{\n");
                contexts++;
                charts = 0;
                contextDims = 0;
                contextTotal = 0;
                lastChart = null;
            }
            if (r.chart() != lastChart) {
                lastChart = r.chart();
                if (charts > 0) {
                    out.a("\n\t\t\t\t\t},\n\t\t\t\t\t\"weight\":").fixed(chartTotal / chartDims, 7).a("\n\t\t\t\t},\n");
                }
                out.a("\t\t\t\t\"").utf8(r.chart().id()).a("\": {\n\t\t\t\t\t\"dimensions\": {\n");
                charts++;
                chartDims = 0;
                chartTotal = 0;
            }
            if (chartDims > 0) {
                out.a(",\n");
            }
            out.a("\t\t\t\t\t\t\"").utf8(r.chart().dimensionName(r.dimension())).a("\": ").fixed(r.value(), 7);
            chartTotal += r.value();
            contextTotal += r.value();
            chartDims++;
            contextDims++;
        }
        int total = outcome.results().size();
        if (total > 0) {
            out.a("\n\t\t\t\t\t},\n\t\t\t\t\t\"weight\":").fixed(chartTotal / chartDims, 7)
                    .a("\n\t\t\t\t}\n\t\t\t},\n\t\t\t\"weight\":").fixed(contextTotal / contextDims, 7).a("\n\t\t}\n");
        }
        out.a("\t},\n\t\"weighted_dimensions\": ").integer(total)
                .a(",\n\t\"total_dimensions_count\": ").integer(outcome.examined()).a("\n}\n");
    }
}
