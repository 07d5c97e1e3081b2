package io.strata.streaming.server;

import java.util.EnumSet;
import java.util.Locale;

/**
 * What a client of the port may do, as Netdata's web-server ACL: a listener's {@code bind to ...=mode}
 * list restricts it per address, each {@code [web] allow ... from} pattern per client address.
 */
public enum WebPermission {
    /** The dashboard, {@code /api/v1/*} queries and static files ({@code allow dashboard from}). */
    DASHBOARD("dashboard"),
    /** {@code /api/v1/registry} ({@code [registry] allow from}). */
    REGISTRY("registry"),
    /** {@code /api/v1/badge.svg} ({@code allow badges from}). */
    BADGES("badges"),
    /** {@code /api/v1/manage/*} ({@code allow management from}). */
    MANAGEMENT("management"),
    /** {@code STREAM} requests ({@code allow streaming from}). */
    STREAMING("streaming"),
    /** {@code /netdata.conf} ({@code allow netdata.conf from}). */
    NETDATA_CONF("netdata.conf");

    private final String modeName;

    WebPermission(String modeName) {
        this.modeName = modeName;
    }

    /** The name in {@code bind to = ADDRESS=mode|mode}. */
    public String modeName() {
        return modeName;
    }

    /** The permission of a {@code bind to} mode name (case-insensitive, as Netdata), or null. */
    public static WebPermission ofModeName(String name) {
        String n = name.trim().toLowerCase(Locale.ROOT);
        for (WebPermission p : values()) {
            if (p.modeName.equals(n)) {
                return p;
            }
        }
        return null;
    }

    public static EnumSet<WebPermission> all() {
        return EnumSet.allOf(WebPermission.class);
    }
}
