package io.strata.query.metrics;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.strata.query.http.ApiResponse;

import java.nio.charset.StandardCharsets;

/**
 * {@code /metrics}: the node's own meters in Prometheus text format. Not a Netdata URL (Netdata
 * exports through {@code /api/v1/allmetrics}); it reports Strata itself, not the hosts it stores.
 */
public final class MetricsEndpoint {

    public static final String PATH = "/metrics";

    private MetricsEndpoint() {
    }

    public static ApiResponse scrape(ApiMeters meters, ByteBufAllocator alloc) {
        byte[] text = meters.scrape().getBytes(StandardCharsets.UTF_8);
        ByteBuf body = alloc.buffer(text.length);
        body.writeBytes(text);
        return ApiResponse.ok(ApiMeters.PROMETHEUS_TEXT, body, ApiResponse.Caching.NO_CACHE);
    }
}
