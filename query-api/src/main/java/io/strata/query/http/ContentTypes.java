package io.strata.query.http;

/** The Content-Type values Netdata 1.37.1 sends. */
public final class ContentTypes {

    private ContentTypes() {
    }

    public static final String JSON = "application/json; charset=utf-8";
    public static final String TEXT_PLAIN = "text/plain; charset=utf-8";
    public static final String TEXT_HTML = "text/html; charset=utf-8";
    public static final String JAVASCRIPT = "application/x-javascript; charset=utf-8";
    public static final String PROMETHEUS = "text/plain; version=0.0.4";
    public static final String SVG = "image/svg+xml";
    public static final String OCTET_STREAM = "application/octet-stream";
}
