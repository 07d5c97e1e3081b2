package io.strata.query.http;

import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * A request answered with an error status and Netdata's short text body (for example 404
 * {@code No metrics where matched to query.}). Thrown by the endpoints, turned into a response by
 * the request handler; it carries no stack trace since it is an answer, not a fault.
 */
public final class ApiError extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final HttpResponseStatus status;
    private final String contentType;

    public ApiError(HttpResponseStatus status, String message) {
        this(status, ContentTypes.TEXT_PLAIN, message);
    }

    public ApiError(HttpResponseStatus status, String contentType, String message) {
        super(message, null, false, false);
        this.status = status;
        this.contentType = contentType;
    }

    public HttpResponseStatus status() {
        return status;
    }

    public String contentType() {
        return contentType;
    }

    public static ApiError notFound(String message) {
        return new ApiError(HttpResponseStatus.NOT_FOUND, message);
    }

    public static ApiError badRequest(String message) {
        return new ApiError(HttpResponseStatus.BAD_REQUEST, message);
    }
}
