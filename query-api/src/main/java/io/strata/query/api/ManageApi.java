package io.strata.query.api;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.strata.engine.meta.MetadataStore;
import io.strata.query.ApiContext;
import io.strata.query.catalog.Catalog;
import io.strata.query.catalog.ChartView;
import io.strata.query.catalog.HostView;
import io.strata.query.http.ApiError;
import io.strata.query.http.ApiResponse;
import io.strata.query.http.ApiServices;
import io.strata.query.http.ContentTypes;
import io.strata.query.http.HostRemoval;
import io.strata.query.http.QueryString;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * {@code /api/v1/manage/host}: Strata's removal of an obsolete host (Netdata 1.37.1 has no such
 * call; later versions have {@code netdatacli remove-stale-node}). Only {@code DELETE} removes, so
 * that no page a browser opens (a link, an image, a form) can remove a host: a cross-origin
 * {@code DELETE} needs a preflight, which this server answers with {@code GET, OPTIONS} only. The
 * port's {@code allow management from} ({@code localhost} by default) decides who may call it.
 *
 * <p>{@code host=} names the host by hostname or machine GUID (any case). Refused: the node's own
 * host, a host streaming into this node now (409), an unknown host (404, Netdata's text).
 */
public final class ManageApi {

    public static final String HOST_PATH = "/api/v1/manage/host";
    private static final Logger LOG = LoggerFactory.getLogger(ManageApi.class);

    private ManageApi() {
    }

    /** {@code GET}: says how to call it. */
    public static ApiResponse hostWithoutDelete() {
        throw new ApiError(HttpResponseStatus.METHOD_NOT_ALLOWED,
                "Use DELETE " + HOST_PATH + "?host=<hostname or machine GUID> to remove a host that does not stream.");
    }

    /**
     * {@code DELETE /api/v1/manage/host?host=X}. Runs on the API's executor (it syncs the metadata
     * log: file I/O, never on an event loop).
     */
    public static ApiResponse removeHost(ApiContext ctx, ApiServices services, QueryString query, String client) {
        String key = query.get("host");
        if (key == null || key.isEmpty()) {
            throw ApiError.badRequest("Missing host= (a hostname or a machine GUID).");
        }
        Catalog catalog = services.catalog().get();
        HostView host = catalog.find(key);
        if (host == null) {
            throw new ApiError(HttpResponseStatus.NOT_FOUND, ContentTypes.TEXT_HTML,
                    "This netdata does not maintain a database for host: " + StaticFiles.htmlEscape(key));
        }
        String named = "host '" + host.hostname() + "' (" + host.guid() + ")";
        if (host.local()) {
            throw ApiError.badRequest("The " + named + " is this node's own; it cannot be removed.");
        }
        int charts = host.charts().size();
        int dimensions = 0;
        for (ChartView c : host.charts()) {
            dimensions += c.dimensions();
        }
        HostRemoval.Outcome outcome = services.hostRemoval().remove(host.guid());
        switch (outcome) {
            case STREAMING:
                throw new ApiError(HttpResponseStatus.CONFLICT, "The " + named + " is streaming to this node now;"
                        + " it can be removed once its stream has ended.");
            case UNKNOWN:
                throw new ApiError(HttpResponseStatus.NOT_FOUND, ContentTypes.TEXT_HTML,
                        "This netdata does not maintain a database for host: " + StaticFiles.htmlEscape(key));
            default:
                break;
        }
        MetadataStore md = ctx.engine().metadata();
        try {
            md.sync();
        } catch (IOException e) {
            LOG.error("removed {} but could not sync the metadata log: {}", printable(named), e.getMessage());
            throw new ApiError(HttpResponseStatus.INTERNAL_SERVER_ERROR, "The " + named + " was removed, but the"
                    + " metadata log could not be written (" + e.getMessage() + "); it may be back after a restart.");
        }
        LOG.info("removed {} on request of {}: {} charts, {} dimensions; its stored points stay on disk until"
                + " rotation, unreachable", printable(named), client, charts, dimensions);
        String text = "Removed " + named + ": " + charts + " charts, " + dimensions + " dimensions. Its stored points"
                + " stay on disk until rotation, unreachable.";
        return ApiResponse.ok(ContentTypes.TEXT_PLAIN, Unpooled.copiedBuffer(text, StandardCharsets.UTF_8),
                ApiResponse.Caching.NO_CACHE);
    }

    /** Peer-supplied text (a hostname) for the log: control characters escaped, at most 512 characters. */
    private static String printable(String s) {
        StringBuilder sb = new StringBuilder(Math.min(s.length(), 512) + 8);
        for (int i = 0; i < s.length() && i < 512; i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) || c == '\u2028' || c == '\u2029' || c == '\\') {
                sb.append(c == '\\' ? "\\\\" : String.format(c > 0xff ? "\\u%04x" : "\\x%02x", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }
}
