package io.strata.query.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.DateFormatter;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.strata.query.api.ManageApi;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.strata.query.ApiContext;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Date;
import java.util.Locale;
import java.util.concurrent.RejectedExecutionException;

import io.strata.engine.log.InternalErrorLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import io.strata.engine.time.Clocks;

/**
 * One HTTP connection's requests: answers CORS preflights at once and runs every other request on
 * the context's executor (queries may read disk; the event loop must not wait), one at a time and
 * in order, so that pipelined requests get their answers in the order asked. Adds Netdata's
 * headers to every answer: CORS (the request's Origin echoed, credentials allowed) and caching.
 */
public final class ApiRequestHandler extends SimpleChannelInboundHandler<FullHttpRequest> {

    private static final Logger log = LoggerFactory.getLogger(ApiRequestHandler.class);
    /** A bug met by every request writes a few lines a minute, not one per request. */
    private static final InternalErrorLog INTERNAL_ERRORS = InternalErrorLog.of(log);
    /**
     * The access log's logger: one INFO line per answered request, as Netdata's access.log. The
     * node turns it off unless {@code [logs] access} names a target.
     */
    public static final String ACCESS_LOGGER = "io.strata.access";
    private static final Logger access = LoggerFactory.getLogger(ACCESS_LOGGER);

    static final String SERVER = "Strata (Netdata Embedded HTTP Server v1.37.1 compatible)";
    static final String ALLOW_HEADERS =
            "accept, x-requested-with, origin, content-type, cookie, pragma, cache-control, x-auth-token";
    /** Netdata's text for a request its web-server ACL refuses. */
    static final String FORBIDDEN_TEXT = "You are not allowed to access this resource.";
    /** Requests read ahead of their answer before the connection stops reading. */
    private static final int MAX_QUEUED = 16;

    private final ApiContext context;
    private final ApiServices services;
    private final HttpPolicy policy;
    private final HttpDeadlines deadlines;
    private final ArrayDeque<Pending> queue = new ArrayDeque<>();
    private boolean busy;
    /** An answer left the channel unwritable: the next one waits until the client has read. */
    private boolean waitingForWritability;

    /** {@code authorization}: the header, kept for the peer replay only (never logged). */
    private record Pending(HttpMethod method, String uri, String origin, boolean keepAlive, HttpVersion version,
                           String host, boolean decodeFailed, long receivedNanos, String authorization) {
    }

    public ApiRequestHandler(ApiContext context, ApiServices services) {
        this(context, services, HttpPolicy.defaults(), null);
    }

    public ApiRequestHandler(ApiContext context, ApiServices services, HttpPolicy policy, HttpDeadlines deadlines) {
        this.context = context;
        this.services = services;
        this.policy = policy;
        this.deadlines = deadlines;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
        HttpHeaders h = req.headers();
        if (deadlines != null) {
            deadlines.requestReceived();
        }
        queue.add(new Pending(req.method(), req.uri(), h.get(HttpHeaderNames.ORIGIN), HttpUtil.isKeepAlive(req),
                req.protocolVersion(), h.get(HttpHeaderNames.HOST), req.decoderResult().isFailure(), System.nanoTime(),
                h.get(HttpHeaderNames.AUTHORIZATION)));
        updateReading(ctx);
        if (!busy) {
            next(ctx);
        }
    }

    /**
     * Reads while fewer than {@link #MAX_QUEUED} requests wait and the client takes its answers
     * (the channel is writable): a client that pipelines and never reads stops being read.
     */
    private void updateReading(ChannelHandlerContext ctx) {
        boolean read = queue.size() < MAX_QUEUED && ctx.channel().isWritable();
        if (ctx.channel().config().isAutoRead() != read) {
            ctx.channel().config().setAutoRead(read);
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        if (ctx.channel().isWritable() && waitingForWritability) {
            waitingForWritability = false;
            next(ctx);
        } else {
            updateReading(ctx);
        }
        super.channelWritabilityChanged(ctx);
    }

    private void next(ChannelHandlerContext ctx) {
        Pending p = queue.poll();
        updateReading(ctx);
        if (p == null) {
            busy = false;
            return;
        }
        busy = true;
        if (p.decodeFailed) {
            write(ctx, p, text(HttpResponseStatus.BAD_REQUEST, ContentTypes.TEXT_PLAIN, "Bad request."), true);
            return;
        }
        if (policy.redirectToTls()) {
            String host = p.host != null ? p.host : clientOf(ctx.channel().localAddress());
            ApiResponse r = new ApiResponse(HttpResponseStatus.MOVED_PERMANENTLY, ContentTypes.TEXT_PLAIN,
                    Unpooled.copiedBuffer("Permanent redirect", StandardCharsets.US_ASCII),
                    ApiResponse.Caching.NO_CACHE, null).withHeader("Location", "https://" + host + p.uri);
            write(ctx, p, r, false);
            return;
        }
        HttpAccess needed = HttpAccess.requiredFor(ApiRouter.routedPath(pathOf(p.uri)));
        if (!policy.access().contains(needed)) {
            write(ctx, p, text(HttpResponseStatus.FORBIDDEN, ContentTypes.TEXT_PLAIN, FORBIDDEN_TEXT), false);
            return;
        }
        if (HttpMethod.OPTIONS.equals(p.method)) {
            ByteBuf ok = Unpooled.copiedBuffer("OK", StandardCharsets.US_ASCII);
            write(ctx, p, ApiResponse.ok(ContentTypes.TEXT_PLAIN, ok, ApiResponse.Caching.NONE), false);
            return;
        }
        boolean removal = HttpMethod.DELETE.equals(p.method) && ApiRouter.isHostRemoval(pathOf(p.uri));
        if (!HttpMethod.GET.equals(p.method) && !HttpMethod.HEAD.equals(p.method) && !removal) {
            write(ctx, p, text(HttpResponseStatus.METHOD_NOT_ALLOWED, ContentTypes.TEXT_PLAIN,
                    "Unsupported method: " + p.method.name()), false);
            return;
        }
        String client = clientOf(ctx.channel().remoteAddress());
        try {
            context.executor().execute(() -> {
                ApiResponse r = answer(ctx, p, client);
                try {
                    ctx.executor().execute(() -> write(ctx, p, r, false));
                } catch (RejectedExecutionException e) {
                    // the event loop is shutting down: nobody will write this answer
                    r.body().release();
                }
            });
        } catch (RejectedExecutionException e) {
            write(ctx, p, text(HttpResponseStatus.SERVICE_UNAVAILABLE, ContentTypes.TEXT_PLAIN,
                    "The server is busy; try again."), false);
        }
    }

    /** The path of a request target (origin or absolute form), still percent-encoded. */
    static String pathOf(String uri) {
        int q = uri.indexOf('?');
        String path = q < 0 ? uri : uri.substring(0, q);
        int hash = path.indexOf('#');
        if (hash >= 0) {
            path = path.substring(0, hash);
        }
        if (!path.startsWith("/")) {
            // absolute-form request target: keep the path only
            int scheme = path.indexOf("://");
            int slash = scheme < 0 ? -1 : path.indexOf('/', scheme + 3);
            path = slash < 0 ? "/" : path.substring(slash);
        }
        return path;
    }

    private ApiResponse answer(ChannelHandlerContext ctx, Pending p, String client) {
        try {
            String uri = p.uri;
            int q = uri.indexOf('?');
            String path = pathOf(uri);
            String query = q < 0 ? null : uri.substring(q + 1);
            String self = p.host == null ? null : "http://" + p.host;
            if (HttpMethod.DELETE.equals(p.method)) {
                return ManageApi.removeHost(context, services, QueryString.parse(query), client);
            }
            if (ApiRouter.routedPath(path).equals(PeerReplay.PATH)) {
                return services.peerReplay().answer(ApiRouter.hostOf(path), QueryString.parse(query), p.authorization,
                        client, ctx.alloc());
            }
            return ApiRouter.route(context, services, path, query, ctx.alloc(), client, self);
        } catch (ApiError e) {
            return text(e.status(), e.contentType(), e.getMessage());
        } catch (Throwable e) {
            // whatever failed, the connection gets an answer: without one it would wait forever
            INTERNAL_ERRORS.error("answering HTTP", p.method + " " + printable(p.uri) + " failed", e);
            return text(HttpResponseStatus.INTERNAL_SERVER_ERROR, ContentTypes.TEXT_PLAIN,
                    "Internal error: " + e.getClass().getSimpleName());
        }
    }

    private static ApiResponse text(HttpResponseStatus status, String contentType, String message) {
        return new ApiResponse(status, contentType, Unpooled.copiedBuffer(message, StandardCharsets.UTF_8),
                ApiResponse.Caching.NO_CACHE, null);
    }

    private void write(ChannelHandlerContext ctx, Pending p, ApiResponse r, boolean forceClose) {
        if (!ctx.channel().isActive()) {
            r.body().release();
            if (deadlines != null) {
                deadlines.answerWritten();
            }
            return;
        }
        context.meters().answered(r.status().code());
        if (access.isInfoEnabled()) {
            logAccess(ctx, p, r);
        }
        FullHttpResponse resp = toHttp(p, r, Clocks.wallMillis());
        boolean close = forceClose || !p.keepAlive;
        if (close) {
            HttpUtil.setKeepAlive(resp, false);
            ChannelFuture written = ctx.writeAndFlush(resp);
            if (deadlines != null) {
                written.addListener(f -> deadlines.answerWritten());
            }
            written.addListener(ChannelFutureListener.CLOSE);
            queue.clear();
            busy = false;
            return;
        }
        ChannelFuture written = ctx.writeAndFlush(resp);
        if (deadlines != null) {
            written.addListener(f -> deadlines.answerWritten());
        }
        if (!ctx.channel().isWritable()) {
            // the client has not read what is queued for it: the next answer waits (and reading stops)
            waitingForWritability = true;
            updateReading(ctx);
            return;
        }
        next(ctx);
    }

    /** Netdata's access.log line, less its thread and connection ids: who, what, how much, how long. */
    private static void logAccess(ChannelHandlerContext ctx, Pending p, ApiResponse r) {
        double millis = (System.nanoTime() - p.receivedNanos) / 1e6;
        access.info("{} '{}' (sent {} bytes, total {} ms) {} '{}'", clientOf(ctx.channel().remoteAddress()),
                p.method.name(), r.body().readableBytes(), String.format(Locale.ROOT, "%.2f", millis),
                r.status().code(), p.uri);
    }

    private static FullHttpResponse toHttp(Pending p, ApiResponse r, long nowMillis) {
        ByteBuf body = r.body();
        int length = body.readableBytes();
        if (HttpMethod.HEAD.equals(p.method)) {
            body.release();
            body = Unpooled.EMPTY_BUFFER;
        }
        HttpVersion version = p.version == null ? HttpVersion.HTTP_1_1 : p.version;
        FullHttpResponse resp = new DefaultFullHttpResponse(version, r.status(), body);
        HttpHeaders h = resp.headers();
        h.set(HttpHeaderNames.SERVER, SERVER);
        // a browser must not guess another type than the one stated (a JSON answer run as HTML)
        h.set("X-Content-Type-Options", "nosniff");
        h.set(HttpHeaderNames.ACCESS_CONTROL_ALLOW_ORIGIN, p.origin != null && !p.origin.isEmpty() ? p.origin : "*");
        h.set(HttpHeaderNames.ACCESS_CONTROL_ALLOW_CREDENTIALS, "true");
        h.set(HttpHeaderNames.CONTENT_TYPE, r.contentType());
        h.set(HttpHeaderNames.DATE, DateFormatter.format(new Date(nowMillis)));
        switch (r.caching()) {
            case NO_CACHE -> {
                h.set(HttpHeaderNames.CACHE_CONTROL, "no-cache, no-store, must-revalidate");
                h.set(HttpHeaderNames.PRAGMA, "no-cache");
                h.set(HttpHeaderNames.EXPIRES, DateFormatter.format(new Date(nowMillis + 1000)));
            }
            case PUBLIC -> {
                h.set(HttpHeaderNames.CACHE_CONTROL, "public");
                h.set(HttpHeaderNames.EXPIRES, DateFormatter.format(new Date(nowMillis + 86_400_000L)));
            }
            case NONE -> {
                h.set(HttpHeaderNames.ACCESS_CONTROL_ALLOW_METHODS, "GET, OPTIONS");
                h.set(HttpHeaderNames.ACCESS_CONTROL_ALLOW_HEADERS, ALLOW_HEADERS);
                h.set(HttpHeaderNames.ACCESS_CONTROL_MAX_AGE, "1209600");
            }
        }
        for (int i = 0; i + 1 < r.extraHeaders().size(); i += 2) {
            h.set(r.extraHeaders().get(i), r.extraHeaders().get(i + 1));
        }
        String refresh = h.get("Refresh");
        if (refresh != null) {
            // Netdata's badges: an answer asking to be refreshed in N seconds expires then
            h.set(HttpHeaderNames.EXPIRES, DateFormatter.format(new Date(nowMillis + Long.parseLong(refresh) * 1000L)));
        }
        // spelled as Netdata writes it: a 2.x child finds the body of /api/v3/stream_info by
        // searching the answer for exactly "Content-Length: " (header names are otherwise case-free)
        h.set("Content-Length", length);
        if (p.keepAlive && version.equals(HttpVersion.HTTP_1_0)) {
            h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
        }
        return resp;
    }

    /** A request target for the log: control characters as {@code \xNN}, at most 512 characters. */
    static String printable(String uri) {
        StringBuilder sb = new StringBuilder(Math.min(uri.length(), 512) + 8);
        for (int i = 0; i < uri.length() && i < 512; i++) {
            char c = uri.charAt(i);
            if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) || c == '\u2028' || c == '\u2029') {
                sb.append(c > 0xff ? String.format("\\u%04x", (int) c) : String.format("\\x%02x", (int) c));
            } else {
                sb.append(c);
            }
        }
        if (uri.length() > 512) {
            sb.append("...");
        }
        return sb.toString();
    }

    private static String clientOf(SocketAddress a) {
        if (a instanceof InetSocketAddress isa) {
            return isa.getAddress() != null ? isa.getAddress().getHostAddress() : isa.getHostString();
        }
        return String.valueOf(a);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        queue.clear();
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("closing HTTP connection from {}: {}", ctx.channel().remoteAddress(), printable(cause.toString()));
        ctx.close();
    }
}
