package io.strata.query;

import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.compression.StandardCompressionOptions;
import io.netty.handler.codec.http.HttpContentCompressor;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.strata.query.http.ApiRequestHandler;
import io.strata.query.http.ApiServices;
import io.strata.query.http.HttpDeadlines;
import io.strata.query.http.HttpPolicy;
import io.strata.query.metrics.HttpByteCounter;

/**
 * Installs Netdata's {@code /api/v1} (and the dashboard's static files) on a channel pipeline.
 *
 * <p>The node calls this as the HTTP side of its one port, from the handler that looked at the
 * connection's first bytes: the handlers are appended at the end of a live pipeline and rely on
 * nothing that happened before they were added (no {@code channelActive}), so the bytes that
 * handler passes on after removing itself are decoded as the first request.
 */
public final class ApiHttpHandlers {

    /** Longest request line; dashboards put long dimension lists in URLs. */
    static final int MAX_INITIAL_LINE = 16 * 1024;
    static final int MAX_HEADER_BYTES = 16 * 1024;
    /** Requests are GETs: a body is never needed, so a small one is all that is accepted (413 beyond). */
    static final int MAX_CONTENT_BYTES = 16 * 1024;

    private ApiHttpHandlers() {
    }

    /**
     * Adds, at the end of {@code p}: a counter of the connection's bytes, the HTTP codec, an aggregator of small requests, gzip
     * compression of answers for clients that accept it (as Netdata), and the API handler.
     */
    public static void install(ChannelPipeline p, ApiContext ctx) {
        install(p, ctx, HttpPolicy.defaults());
    }

    /**
     * As {@link #install(ChannelPipeline, ApiContext)}, with the connection's deadlines, what it may ask
     * for, and where its answers are gzipped ({@link HttpPolicy}).
     */
    public static void install(ChannelPipeline p, ApiContext ctx, HttpPolicy policy) {
        HttpDeadlines deadlines = new HttpDeadlines(policy.firstRequestTimeoutSeconds(), policy.idleTimeoutSeconds(),
                policy.firstRequestWhole());
        p.addLast("strata-http-bytes", ApiServices.of(ctx).byteCounter());
        p.addLast("strata-http-deadlines", deadlines);
        p.addLast("strata-http-codec", new HttpServerCodec(MAX_INITIAL_LINE, MAX_HEADER_BYTES, 8192));
        p.addLast("strata-http-aggregator", new HttpObjectAggregator(MAX_CONTENT_BYTES));
        if (policy.gzip()) {
            HttpContentCompressor gzip = new HttpContentCompressor(StandardCompressionOptions.gzip());
            if (policy.gzipExecutor() != null) {
                // compressing a big answer takes milliseconds of CPU the streams on this event loop would wait for
                p.addLast(policy.gzipExecutor(), "strata-http-gzip", gzip);
            } else {
                p.addLast("strata-http-gzip", gzip);
            }
        }
        p.addLast("strata-http-api", new ApiRequestHandler(ctx, ApiServices.of(ctx), policy, deadlines));
    }
}
