package io.strata.query.http;

import java.util.EnumSet;

/**
 * What an HTTP client may ask for, as Netdata's web-server ACL (its {@code bind to} modes and
 * {@code [web] allow ... from} patterns, decided by the port before the first request).
 */
public enum HttpAccess {
    /** Queries ({@code /api/v1/*}), {@code /metrics} and static files. */
    DASHBOARD,
    /** {@code /api/v1/registry}. */
    REGISTRY,
    /** {@code /api/v1/badge.svg}. */
    BADGES,
    /** {@code /api/v1/manage/*}. */
    MANAGEMENT,
    /** {@code /netdata.conf}. */
    NETDATA_CONF,
    /**
     * {@code /api/v1/replay_chart}: a peer parent reading back a host's stored past
     * ({@code allow streaming from}, the {@code streaming} mode of {@code bind to}; Strata's own URL).
     */
    STREAMING;

    public static EnumSet<HttpAccess> all() {
        return EnumSet.allOf(HttpAccess.class);
    }

    /**
     * What {@code path} (decoded, slashes collapsed, {@code /host/X} prefix removed) needs, as Netdata
     * 1.37.1 assigns it per URL.
     */
    public static HttpAccess requiredFor(String path) {
        if (path.equals("/netdata.conf")) {
            return NETDATA_CONF;
        }
        if (path.equals("/api/v1/registry")) {
            return REGISTRY;
        }
        if (path.equals("/api/v1/badge.svg")) {
            return BADGES;
        }
        if (path.startsWith("/api/v1/manage/") || path.equals("/api/v1/manage")) {
            return MANAGEMENT;
        }
        if (path.equals(PeerReplay.PATH)) {
            return STREAMING;
        }
        return DASHBOARD;
    }
}
