package io.strata.node.config;

import io.strata.query.data.QueryBudget;
import io.strata.engine.netdata.ConfigNumbers;
import io.strata.engine.netdata.SimplePattern;
import io.strata.streaming.config.IniFile;
import io.strata.streaming.server.Listener;
import io.strata.streaming.server.ServerLimits;
import io.strata.streaming.server.TlsMode;
import io.strata.streaming.server.WebAccessRules;
import io.strata.streaming.server.WebPermission;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;

/**
 * The {@code [web]} section of netdata.conf as far as the port is concerned: where it listens and in
 * which modes ({@code bind to}), who may do what ({@code allow ... from}), the deadlines and the caps on
 * connections, and the bounds of query work.
 *
 * @param listeners                  {@code bind to}, one per address
 * @param limits                     timeouts and connection caps of the port
 * @param access                     {@code allow ... from} patterns
 * @param idleTimeoutSeconds         {@code disconnect idle clients after seconds}
 * @param gzip                       {@code enable gzip compression}
 * @param queryLimits                {@code query timeout ms} (default and ceiling of {@code timeout=}) and
 *                                   {@code max points read per query}
 */
public record WebSettings(List<Listener> listeners, ServerLimits limits, WebAccessRules access,
                          int idleTimeoutSeconds, boolean gzip, QueryBudget.Limits queryLimits) {

    public static final int DEFAULT_PORT = 19999;
    public static final int DEFAULT_IDLE_TIMEOUT_SECONDS = 60;

    static WebSettings read(IniFile nd, Path file, boolean tlsConfigured) throws NodeConfig.ConfigException {
        String bindLocation = nd.peek("web", "bind to").map(IniFile.Entry::location).orElse(file.toString());
        List<Listener> listeners = parseBindTo(nd.get("web", "bind to", "*:" + DEFAULT_PORT), bindLocation);
        for (Listener l : listeners) {
            if (l.tls() == TlsMode.FORCE && !tlsConfigured) {
                throw new NodeConfig.ConfigException(bindLocation + ": [web] bind to: "
                        + l.address().getHostString() + ":" + l.address().getPort()
                        + " has ^SSL=force but no [web] ssl certificate and ssl key are set");
            }
        }
        int first = (int) number(nd, "timeout for first request", ServerLimits.DEFAULT_FIRST_REQUEST_TIMEOUT_SECONDS,
                1, 86_400);
        int idle = (int) number(nd, "disconnect idle clients after seconds", DEFAULT_IDLE_TIMEOUT_SECONDS, 1, 86_400 * 7);
        int maxSockets = (int) number(nd, "web server max sockets", ServerLimits.defaultMaxConnections(), 1,
                Integer.MAX_VALUE);
        int perAddress = (int) number(nd, "max connections per client address",
                ServerLimits.DEFAULT_MAX_CONNECTIONS_PER_ADDRESS, 1, Integer.MAX_VALUE);
        int handshakes = (int) number(nd, "max handshakes in progress", ServerLimits.DEFAULT_MAX_HANDSHAKES, 1,
                Integer.MAX_VALUE);
        int handshakesPerAddress = (int) number(nd, "max handshakes in progress per client address",
                ServerLimits.DEFAULT_MAX_HANDSHAKES_PER_ADDRESS, 1, Integer.MAX_VALUE);
        ServerLimits limits = new ServerLimits(first, maxSockets, perAddress, handshakes, handshakesPerAddress);

        String dns = nd.get("web", "allow connections by dns", "heuristic").trim();
        boolean resolvesNames = !dns.equalsIgnoreCase("no");
        if (resolvesNames && !dns.equalsIgnoreCase("heuristic") && !IniFile.isNetdataTrue(dns)) {
            throw new NodeConfig.ConfigException(location(nd, "allow connections by dns", file)
                    + ": [web] allow connections by dns = " + dns + " is not yes, no or heuristic");
        }
        SimplePattern connections = pattern(nd, "web", "allow connections from", WebAccessRules.DEFAULT_CONNECTIONS,
                resolvesNames, file);
        Map<WebPermission, SimplePattern> m = new EnumMap<>(WebPermission.class);
        m.put(WebPermission.DASHBOARD, pattern(nd, "web", "allow dashboard from", WebAccessRules.DEFAULT_DASHBOARD,
                resolvesNames, file));
        m.put(WebPermission.BADGES, pattern(nd, "web", "allow badges from", WebAccessRules.DEFAULT_BADGES,
                resolvesNames, file));
        m.put(WebPermission.STREAMING, pattern(nd, "web", "allow streaming from", WebAccessRules.DEFAULT_STREAMING,
                resolvesNames, file));
        m.put(WebPermission.NETDATA_CONF, pattern(nd, "web", "allow netdata.conf from",
                WebAccessRules.DEFAULT_NETDATA_CONF, resolvesNames, file));
        m.put(WebPermission.MANAGEMENT, pattern(nd, "web", "allow management from",
                WebAccessRules.DEFAULT_MANAGEMENT, resolvesNames, file));
        m.put(WebPermission.REGISTRY, pattern(nd, "registry", "allow from", WebAccessRules.DEFAULT_REGISTRY,
                resolvesNames, file));
        boolean gzip = nd.getBoolean("web", "enable gzip compression", true);
        long queryTimeout = number(nd, "query timeout ms", QueryBudget.Limits.DEFAULT_TIMEOUT_MILLIS, 1, 86_400_000L);
        long maxPoints = number(nd, "max points read per query", QueryBudget.Limits.DEFAULT_MAX_POINTS_READ, 1,
                Long.MAX_VALUE);
        return new WebSettings(List.copyOf(listeners), limits, new WebAccessRules(connections, m), idle, gzip,
                new QueryBudget.Limits(queryTimeout, maxPoints));
    }

    private static SimplePattern pattern(IniFile nd, String section, String key, String def, boolean resolvesNames,
                                         Path file) throws NodeConfig.ConfigException {
        String value = nd.get(section, key, def);
        String name = WebAccessRules.potentialName(value);
        if (name != null && resolvesNames) {
            // Netdata would resolve the client's name to match it; Strata matches addresses only, and a
            // pattern that silently never matches would let in or keep out other clients than meant
            throw new NodeConfig.ConfigException(location(nd, section, key, file) + ": [" + section + "] " + key
                    + " = " + value + ": '" + name + "' is a host name; Strata matches client addresses only (and"
                    + " 'localhost' as the loopback addresses): use addresses, or set [web] allow connections by"
                    + " dns = no to keep names that never match");
        }
        return SimplePattern.parse(value);
    }

    private static String location(IniFile nd, String key, Path file) {
        return location(nd, "web", key, file);
    }

    private static String location(IniFile nd, String section, String key, Path file) {
        return nd.peek(section, key).map(IniFile.Entry::location).orElse(file.toString());
    }

    private static long number(IniFile nd, String key, long def, long min, long max)
            throws NodeConfig.ConfigException {
        IniFile.Entry e = nd.entry("web", key).orElse(null);
        if (e == null) {
            return def;
        }
        long v = ConfigNumbers.wholeNumber(e.value()).orElseThrow(() -> new NodeConfig.ConfigException(
                e.location() + ": [web] " + key + " = " + e.value() + " is not a number"));
        if (v < min || v > max) {
            throw new NodeConfig.ConfigException(e.location() + ": [web] " + key + " = " + v + " must be between "
                    + min + " and " + max);
        }
        return v;
    }

    /**
     * Netdata's {@code bind to}: entries separated by spaces or commas, each
     * {@code [tcp:]HOST[:PORT][=MODE|MODE...][^SSL=optional|force]}, HOST an IPv4 address, a name,
     * {@code *} or an IPv6 address in brackets. A malformed entry stops the start with its line.
     */
    static List<Listener> parseBindTo(String value, String where) throws NodeConfig.ConfigException {
        List<Listener> out = new ArrayList<>();
        for (String entry : value.trim().split("[\\s,]+")) {
            if (entry.isEmpty()) {
                continue;
            }
            String rest = entry;
            String prefix = where + ": [web] bind to = " + value + ": '" + entry + "': ";
            TlsMode tls = TlsMode.DEFAULT;
            int caret = rest.indexOf('^');
            if (caret >= 0) {
                String option = rest.substring(caret + 1);
                rest = rest.substring(0, caret);
                if (option.equalsIgnoreCase("SSL=optional")) {
                    tls = TlsMode.OPTIONAL;
                } else if (option.equalsIgnoreCase("SSL=force")) {
                    tls = TlsMode.FORCE;
                } else {
                    throw new NodeConfig.ConfigException(prefix + "'^" + option
                            + "' is not ^SSL=optional or ^SSL=force");
                }
            }
            EnumSet<WebPermission> modes = WebPermission.all();
            int eq = rest.indexOf('=');
            if (eq >= 0) {
                String list = rest.substring(eq + 1);
                rest = rest.substring(0, eq);
                modes = EnumSet.noneOf(WebPermission.class);
                for (String mode : list.split("\\|")) {
                    WebPermission p = WebPermission.ofModeName(mode);
                    if (p == null) {
                        throw new NodeConfig.ConfigException(prefix + "'" + mode + "' is not a mode (dashboard,"
                                + " registry, badges, management, streaming, netdata.conf)");
                    }
                    modes.add(p);
                }
            }
            if (rest.startsWith("unix:")) {
                throw new NodeConfig.ConfigException(prefix + "unix sockets are not supported; bind an address");
            }
            if (rest.startsWith("tcp:")) {
                rest = rest.substring(4);
            } else if (rest.startsWith("udp:")) {
                throw new NodeConfig.ConfigException(prefix + "the port is TCP; udp: is not supported");
            }
            String host = rest;
            int port = DEFAULT_PORT;
            if (rest.startsWith("[")) {
                int close = rest.indexOf(']');
                if (close < 0) {
                    throw new NodeConfig.ConfigException(prefix + "an IPv6 address opened with '[' has no ']'");
                }
                host = rest.substring(1, close);
                String after = rest.substring(close + 1);
                if (!after.isEmpty()) {
                    if (after.charAt(0) != ':') {
                        throw new NodeConfig.ConfigException(prefix + "'" + after + "' after ']' is not :PORT");
                    }
                    port = port(after.substring(1), prefix);
                }
                if (host.isEmpty()) {
                    throw new NodeConfig.ConfigException(prefix + "the brackets hold no address");
                }
            } else {
                int colon = rest.lastIndexOf(':');
                if (colon >= 0) {
                    if (rest.indexOf(':') != colon) {
                        throw new NodeConfig.ConfigException(prefix + "an IPv6 address must be in brackets,"
                                + " e.g. [::1]:19999");
                    }
                    host = rest.substring(0, colon);
                    port = port(rest.substring(colon + 1), prefix);
                }
            }
            InetSocketAddress address;
            if (host.equals("*") || host.isEmpty()) {
                address = new InetSocketAddress(port);
            } else {
                address = new InetSocketAddress(host, port);
                if (address.isUnresolved()) {
                    throw new NodeConfig.ConfigException(prefix + "'" + host + "' is not an address of this machine"
                            + " (it does not resolve)");
                }
            }
            out.add(new Listener(address, modes, tls));
        }
        if (out.isEmpty()) {
            throw new NodeConfig.ConfigException(where + ": [web] bind to is empty");
        }
        return out;
    }

    private static int port(String s, String prefix) throws NodeConfig.ConfigException {
        try {
            int p = Integer.parseInt(s);
            if (p < 0 || p > 65535) {
                throw new NumberFormatException();
            }
            return p;
        } catch (NumberFormatException e) {
            throw new NodeConfig.ConfigException(prefix + "'" + s + "' is not a port");
        }
    }
}
