package io.strata.query.http;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.strata.query.ApiContext;
import io.strata.query.api.AllMetricsApi;
import io.strata.query.api.BadgeApi;
import io.strata.query.api.ChartsApi;
import io.strata.query.api.ContextsApi;
import io.strata.query.api.DataApi;
import io.strata.query.api.HealthApi;
import io.strata.query.api.InfoApi;
import io.strata.query.api.ManageApi;
import io.strata.query.api.StaticFiles;
import io.strata.query.api.StreamInfoApi;
import io.strata.query.api.WeightsApi;
import io.strata.query.catalog.Catalog;
import io.strata.query.catalog.HostView;
import io.strata.query.metrics.MetricsEndpoint;

import java.io.IOException;

/**
 * Maps a URL to its endpoint as Netdata 1.37.1 does: {@code /api/v1/<command>}, the same under
 * {@code /host/<hostname or machine GUID>/}, {@code /metrics} the node's own meters, anything else a
 * static file. Answers unknown hosts,
 * API versions and commands with Netdata's statuses and texts.
 */
public final class ApiRouter {

    private ApiRouter() {
    }

    /**
     * @param rawPath the URL path, still percent-encoded
     * @param rawQuery the query string, or null
     */
    public static ApiResponse route(ApiContext ctx, ApiServices services, String rawPath, String rawQuery,
                                    ByteBufAllocator alloc, String client, String selfUrl) throws IOException {
        String path = collapseSlashes(decodePath(rawPath));
        if (path.equals(MetricsEndpoint.PATH)) {
            return MetricsEndpoint.scrape(ctx.meters(), alloc);
        }
        Catalog catalog = services.catalog().get();
        HostView host = catalog.local();
        if (path.startsWith("/host/")) {
            int end = path.indexOf('/', 6);
            String key = end < 0 ? path.substring(6) : path.substring(6, end);
            host = catalog.find(key);
            if (host == null) {
                throw new ApiError(HttpResponseStatus.NOT_FOUND, ContentTypes.TEXT_HTML,
                        "This netdata does not maintain a database for host: " + StaticFiles.htmlEscape(key));
            }
            path = end < 0 ? "/" : path.substring(end);
        }
        QueryString query = QueryString.parse(rawQuery);
        if (path.startsWith("/api/")) {
            int slash = path.indexOf('/', 5);
            String version = slash < 0 ? path.substring(5) : path.substring(5, slash);
            if (version.equals("v3") && path.equals("/api/v3/stream_info")) {
                // the one v3 call: Netdata 2.x children ask it of every parent before connecting
                return StreamInfoApi.streamInfo(new ApiRequest(ctx, services, catalog, host, "stream_info", query,
                        alloc, client, selfUrl));
            }
            if (!version.equals("v1")) {
                throw new ApiError(HttpResponseStatus.NOT_FOUND, ContentTypes.TEXT_HTML,
                        "Unsupported API version: " + StaticFiles.htmlEscape(version));
            }
            String command = slash < 0 ? "" : path.substring(slash + 1);
            ApiRequest req = new ApiRequest(ctx, services, catalog, host, command, query, alloc, client, selfUrl);
            return command(req, command);
        }
        return StaticFiles.serve(new ApiRequest(ctx, services, catalog, host, path, query, alloc, client, selfUrl));
    }

    /**
     * The path as {@link #route} dispatches it: decoded, runs of slashes collapsed, and without its
     * {@code /host/<host>} prefix (what {@link HttpAccess#requiredFor} looks at).
     */
    public static String routedPath(String rawPath) {
        String path = collapseSlashes(decodePath(rawPath));
        if (path.startsWith("/host/")) {
            int end = path.indexOf('/', 6);
            path = end < 0 ? "/" : path.substring(end);
        }
        return path;
    }

    /** The {@code <host>} of a raw path's {@code /host/<host>/} prefix (decoded), or null without one. */
    public static String hostOf(String rawPath) {
        String path = collapseSlashes(decodePath(rawPath));
        if (!path.startsWith("/host/")) {
            return null;
        }
        int end = path.indexOf('/', 6);
        return end < 0 ? path.substring(6) : path.substring(6, end);
    }

    private static ApiResponse command(ApiRequest req, String command) throws IOException {
        return switch (command) {
            case "data" -> timedData(req);
            case "charts" -> ChartsApi.charts(req);
            case "chart" -> ChartsApi.chart(req);
            case "contexts" -> ContextsApi.contexts(req);
            case "context" -> ContextsApi.context(req);
            case "info" -> InfoApi.info(req);
            case "allmetrics" -> AllMetricsApi.allMetrics(req);
            case "alarms" -> HealthApi.alarms(req);
            case "alarms_values" -> HealthApi.alarmsValues(req);
            case "alarm_log" -> HealthApi.alarmLog(req);
            case "alarm_count" -> HealthApi.alarmCount(req);
            case "registry" -> HealthApi.registry(req);
            case "aclk" -> HealthApi.aclk(req);
            case "manage/host" -> ManageApi.hostWithoutDelete();
            case "badge.svg" -> BadgeApi.badge(req);
            case "weights" -> WeightsApi.weights(req);
            case "metric_correlations" -> WeightsApi.metricCorrelations(req);
            // Netdata's text, for commands it does not have and for those Strata does not serve yet
            default -> throw ApiError.notFound("Unsupported v1 API command: " + command);
        };
    }

    private static ApiResponse timedData(ApiRequest req) throws IOException {
        long start = System.nanoTime();
        try {
            return DataApi.data(req);
        } finally {
            req.context().meters().dataQuery(System.nanoTime() - start);
        }
    }

    /** Whether a request's raw path is the host removal's, {@code DELETE}'s only path (no {@code /host/X} prefix). */
    static boolean isHostRemoval(String rawPath) {
        return collapseSlashes(decodePath(rawPath)).equals(ManageApi.HOST_PATH);
    }

    /**
     * Netdata splits the path on runs of {@code /}: the dashboard opened under {@code /host/X/}
     * asks for {@code /host/X//api/v1/info}, which Netdata answers as {@code /host/X/api/v1/info}.
     */
    static String collapseSlashes(String path) {
        if (!path.contains("//")) {
            return path;
        }
        StringBuilder sb = new StringBuilder(path.length());
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            if (c != '/' || sb.length() == 0 || sb.charAt(sb.length() - 1) != '/') {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    /** Percent-decodes a path (a {@code +} stays a plus); malformed escapes stay as written. */
    static String decodePath(String raw) {
        if (raw.indexOf('%') < 0) {
            return raw;
        }
        return QueryString.decode(raw.replace("+", "%2B"));
    }
}
