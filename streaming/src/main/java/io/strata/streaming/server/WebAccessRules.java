package io.strata.streaming.server;

import io.strata.engine.netdata.SimplePattern;

import java.net.InetAddress;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Netdata's {@code [web] allow ... from} patterns: simple patterns of client addresses. The name
 * {@code localhost} in a pattern matches the loopback addresses (what Netdata's reverse lookup of
 * them gives); no other name is resolved, which {@link #potentialName} lets the configuration refuse.
 *
 * @param connections {@code allow connections from}: checked at the accept; a client it refuses is closed
 * @param permissions one pattern per permission ({@code allow dashboard from}, ...)
 */
public record WebAccessRules(SimplePattern connections, Map<WebPermission, SimplePattern> permissions) {

    /** Netdata 1.37.1's defaults. */
    public static final String DEFAULT_CONNECTIONS = "localhost *";
    public static final String DEFAULT_DASHBOARD = "localhost *";
    public static final String DEFAULT_BADGES = "*";
    public static final String DEFAULT_STREAMING = "*";
    public static final String DEFAULT_MANAGEMENT = "localhost";
    public static final String DEFAULT_REGISTRY = "*";
    public static final String DEFAULT_NETDATA_CONF = "localhost fd* 10.* 192.168.* 172.16.* 172.17.* 172.18.*"
            + " 172.19.* 172.20.* 172.21.* 172.22.* 172.23.* 172.24.* 172.25.* 172.26.* 172.27.* 172.28.* 172.29.*"
            + " 172.30.* 172.31.* UNKNOWN";

    /** The separators of a pattern list's words (compiled once: the test runs at every accept). */
    private static final Pattern WORD_SEPARATORS = Pattern.compile("[\\s|]+");

    public WebAccessRules {
        Objects.requireNonNull(connections, "connections");
        EnumMap<WebPermission, SimplePattern> m = new EnumMap<>(WebPermission.class);
        m.putAll(permissions);
        for (WebPermission p : WebPermission.values()) {
            if (!m.containsKey(p)) {
                throw new IllegalArgumentException("no pattern for " + p);
            }
        }
        permissions = Map.copyOf(m);
    }

    public static WebAccessRules netdataDefaults() {
        Map<WebPermission, SimplePattern> m = new EnumMap<>(WebPermission.class);
        m.put(WebPermission.DASHBOARD, SimplePattern.parse(DEFAULT_DASHBOARD));
        m.put(WebPermission.REGISTRY, SimplePattern.parse(DEFAULT_REGISTRY));
        m.put(WebPermission.BADGES, SimplePattern.parse(DEFAULT_BADGES));
        m.put(WebPermission.MANAGEMENT, SimplePattern.parse(DEFAULT_MANAGEMENT));
        m.put(WebPermission.STREAMING, SimplePattern.parse(DEFAULT_STREAMING));
        m.put(WebPermission.NETDATA_CONF, SimplePattern.parse(DEFAULT_NETDATA_CONF));
        return new WebAccessRules(SimplePattern.parse(DEFAULT_CONNECTIONS), m);
    }

    /** Everything from everywhere (tests and embedded servers that bind loopback only). */
    public static WebAccessRules allowAll() {
        Map<WebPermission, SimplePattern> m = new EnumMap<>(WebPermission.class);
        for (WebPermission p : WebPermission.values()) {
            m.put(p, SimplePattern.parse("*"));
        }
        return new WebAccessRules(SimplePattern.parse("*"), m);
    }

    public boolean connectionAllowed(InetAddress client) {
        return matches(connections, client);
    }

    /** What {@code client} may do through {@code listener}: the listener's modes its patterns allow. */
    public Set<WebPermission> permissions(InetAddress client, Listener listener) {
        EnumSet<WebPermission> out = EnumSet.noneOf(WebPermission.class);
        for (WebPermission p : listener.modes()) {
            if (matches(permissions.get(p), client)) {
                out.add(p);
            }
        }
        return out;
    }

    /**
     * Netdata's test: the client's address text, then (for {@code localhost}) its name. An empty
     * pattern list allows nobody, as Netdata's web server (unlike stream.conf's {@code allow from}).
     */
    static boolean matches(SimplePattern pattern, InetAddress client) {
        if (client == null) {
            // not an IP connection: Netdata's "UNKNOWN"
            return pattern.matches("UNKNOWN");
        }
        String ip = client.getHostAddress();
        int zone = ip.indexOf('%');
        if (zone >= 0) {
            ip = ip.substring(0, zone);
        }
        if (pattern.matches(ip)) {
            return true;
        }
        // as Netdata's heuristic: a name is looked up only when the list names one
        return client.isLoopbackAddress() && namesLocalhost(pattern.source()) && pattern.matches("localhost");
    }

    private static boolean namesLocalhost(String list) {
        for (String word : WORD_SEPARATORS.split(list.trim())) {
            if (word.equals("localhost") || word.equals("!localhost")) {
                return true;
            }
        }
        return false;
    }

    /**
     * The first word of a pattern list that names a host (so would need a DNS lookup to match), other
     * than {@code localhost} and {@code UNKNOWN}; null when every word is an address pattern.
     */
    public static String potentialName(String patternList) {
        for (String word : WORD_SEPARATORS.split(patternList.trim())) {
            String w = word.startsWith("!") ? word.substring(1) : word;
            if (w.isEmpty() || w.equals("localhost") || w.equals("UNKNOWN")) {
                continue;
            }
            for (int i = 0; i < w.length(); i++) {
                char c = w.charAt(i);
                boolean addressChar = c == '*' || c == '.' || c == ':' || c == '/' || (c >= '0' && c <= '9')
                        || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
                if (!addressChar) {
                    return word;
                }
            }
        }
        return null;
    }
}
