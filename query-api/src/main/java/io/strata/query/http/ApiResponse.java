package io.strata.query.http;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpResponseStatus;

import java.util.ArrayList;
import java.util.List;

/**
 * An answer before it becomes HTTP: status, content type, body and how Netdata marks its caching.
 * The body is owned by the response until it is written (or released on failure).
 *
 * @param extraHeaders name/value pairs, e.g. {@code Content-Disposition} for {@code filename=}
 */
public record ApiResponse(HttpResponseStatus status, String contentType, ByteBuf body, Caching caching,
                          List<String> extraHeaders) {

    /** Netdata's two caching answers: API data must not be cached, charts and static files may be for a day. */
    public enum Caching {
        /** {@code Cache-Control: no-cache, no-store, must-revalidate}, {@code Pragma: no-cache}, {@code Expires} = now + 1 s. */
        NO_CACHE,
        /** {@code Cache-Control: public}, {@code Expires} = now + 1 day. */
        PUBLIC,
        /** No caching headers (the {@code OPTIONS} preflight answer). */
        NONE
    }

    public ApiResponse {
        extraHeaders = extraHeaders == null ? List.of() : List.copyOf(extraHeaders);
    }

    public static ApiResponse ok(String contentType, ByteBuf body, Caching caching) {
        return new ApiResponse(HttpResponseStatus.OK, contentType, body, caching, List.of());
    }

    public ApiResponse withHeader(String name, String value) {
        List<String> h = new ArrayList<>(extraHeaders);
        h.add(name);
        h.add(value);
        return new ApiResponse(status, contentType, body, caching, h);
    }
}
