package io.strata.streaming.sender;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One parent a child may stream to: an entry of stream.conf's {@code destination}, in Netdata's
 * syntax {@code [PROTOCOL:]HOST[%INTERFACE][:PORT][:SSL]}.
 *
 * <p>PROTOCOL may only be {@code tcp} (Netdata also knows {@code udp} and {@code unix:}, which
 * cannot carry a stream and are refused here). HOST is a name, an IPv4 address or an IPv6
 * address in brackets. INTERFACE names the interface of an IPv6 link-local address. PORT must be
 * numeric (Netdata would also look up a service name); an empty port means the default port.
 * {@code :SSL} asks for TLS and must come last.
 *
 * @param host      host name or address, without brackets
 * @param iface     the {@code %INTERFACE} part, empty when absent
 * @param port      1..65535
 * @param ssl       {@code :SSL} was given
 * @param entry     the entry as written in the setting (for logs)
 */
public record Destination(String host, String iface, int port, boolean ssl, String entry) {

    private static final String SSL_SUFFIX = ":SSL";

    public Destination {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(entry, "entry");
        iface = iface == null ? "" : iface;
        if (host.isEmpty()) {
            throw new IllegalArgumentException("destination '" + entry + "' does not specify a host");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("destination '" + entry + "': port " + port + " is not in 1..65535");
        }
    }

    /**
     * Parses one entry.
     *
     * @throws IllegalArgumentException with the entry and what is wrong with it
     */
    public static Destination parse(String entry, int defaultPort) {
        Objects.requireNonNull(entry, "entry");
        if (defaultPort < 1 || defaultPort > 65535) {
            throw new IllegalArgumentException("default port " + defaultPort + " is not in 1..65535");
        }
        String s = entry.strip();
        if (s.isEmpty()) {
            throw new IllegalArgumentException("empty destination");
        }
        boolean ssl = false;
        int sslAt = s.indexOf(SSL_SUFFIX);
        if (sslAt >= 0) {
            if (sslAt + SSL_SUFFIX.length() != s.length()) {
                throw new IllegalArgumentException("destination '" + entry + "': ':SSL' must be the last part of the entry");
            }
            ssl = true;
            s = s.substring(0, sslAt);
        }
        if (s.startsWith("tcp:")) {
            s = s.substring(4);
        } else if (s.startsWith("udp:")) {
            throw new IllegalArgumentException("destination '" + entry + "': udp cannot carry a stream, use tcp");
        } else if (s.startsWith("unix:") || s.startsWith("/")) {
            throw new IllegalArgumentException("destination '" + entry + "': unix sockets are not supported for streaming");
        }
        String host;
        String rest;
        if (s.startsWith("[")) {
            int close = s.indexOf(']');
            if (close < 0) {
                throw new IllegalArgumentException("destination '" + entry + "': '[' without a closing ']'");
            }
            host = s.substring(1, close);
            rest = s.substring(close + 1);
        } else {
            int e = 0;
            while (e < s.length() && s.charAt(e) != ':' && s.charAt(e) != '%') {
                e++;
            }
            host = s.substring(0, e);
            rest = s.substring(e);
            if (host.isEmpty() && rest.startsWith(":") && rest.indexOf(':', 1) >= 0) {
                throw new IllegalArgumentException("destination '" + entry + "': an IPv6 address must be written in brackets, e.g. [::1]:19999");
            }
        }
        if (host.isEmpty()) {
            throw new IllegalArgumentException("destination '" + entry + "' does not specify a host");
        }
        String iface = "";
        if (rest.startsWith("%")) {
            int colon = rest.indexOf(':');
            iface = colon < 0 ? rest.substring(1) : rest.substring(1, colon);
            rest = colon < 0 ? "" : rest.substring(colon);
            if (iface.isEmpty()) {
                throw new IllegalArgumentException("destination '" + entry + "': '%' without an interface name");
            }
        }
        int port = defaultPort;
        if (!rest.isEmpty()) {
            if (rest.charAt(0) != ':') {
                throw new IllegalArgumentException("destination '" + entry + "': unexpected '" + rest + "' after the host");
            }
            String p = rest.substring(1);
            if (!p.isEmpty()) {
                port = parsePort(p, entry);
            }
        }
        return new Destination(host, iface, port, ssl, entry.strip());
    }

    private static int parsePort(String p, String entry) {
        if (p.indexOf(':') >= 0) {
            throw new IllegalArgumentException("destination '" + entry + "': port '" + p + "' contains ':'"
                    + " (an IPv6 address needs brackets, e.g. [fe80::1]:19999; only ':SSL' may follow the port)");
        }
        long v = 0;
        for (int i = 0; i < p.length(); i++) {
            char c = p.charAt(i);
            if (c < '0' || c > '9') {
                throw new IllegalArgumentException("destination '" + entry + "': port '" + p
                        + "' is not a number (service names are not supported)");
            }
            v = v * 10 + (c - '0');
            if (v > 65535) {
                break;
            }
        }
        if (v < 1 || v > 65535) {
            throw new IllegalArgumentException("destination '" + entry + "': port '" + p + "' is not in 1..65535");
        }
        return (int) v;
    }

    /**
     * Splits a {@code destination} setting into entries, as Netdata does: entries are separated
     * by whitespace and commas; an empty setting gives an empty list.
     *
     * @throws IllegalArgumentException naming the first bad entry
     */
    public static List<Destination> parseList(String destinationSetting, int defaultPort) {
        List<Destination> out = new ArrayList<>();
        if (destinationSetting == null) {
            return out;
        }
        String s = destinationSetting;
        int i = 0;
        while (i < s.length()) {
            while (i < s.length() && isSeparator(s.charAt(i))) {
                i++;
            }
            int start = i;
            while (i < s.length() && !isSeparator(s.charAt(i))) {
                i++;
            }
            if (i > start) {
                out.add(parse(s.substring(start, i), defaultPort));
            }
        }
        return out;
    }

    private static boolean isSeparator(char c) {
        return Character.isWhitespace(c) || c == ',';
    }

    /**
     * The address to connect to (resolving a host name: blocking, call it off the event loop).
     * An IPv6 literal with an interface gets it as its scope.
     */
    public InetSocketAddress socketAddress() {
        String h = host;
        if (!iface.isEmpty() && host.indexOf(':') >= 0) {
            h = host + "%" + iface;
        }
        return new InetSocketAddress(h, port);
    }

    @Override
    public String toString() {
        return entry;
    }
}
