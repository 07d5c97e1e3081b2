package io.strata.streaming.server;

import java.lang.management.ManagementFactory;

/**
 * What one client may hold of the node's port before and after it is trusted. A connection is
 * <em>in its handshake</em> from the accept until the parent accepted its {@code STREAM}, or until its
 * first HTTP request is whole; it is <em>open</em> until it closes.
 *
 * @param firstRequestTimeoutSeconds    {@code [web] timeout for first request}: from the accept to the
 *                                      first bytes and, for a stream, to its acceptance; the HTTP side
 *                                      also has its first request complete within it
 * @param maxConnections                {@code [web] web server max sockets}: open connections of the port
 * @param maxConnectionsPerAddress      {@code [web] max connections per client address}
 * @param maxHandshakes                 {@code [web] max handshakes in progress}: at it, a new connection
 *                                      evicts one still in its handshake, silent ones first ({@link ConnectionGate})
 * @param maxHandshakesPerAddress       {@code [web] max handshakes in progress per client address}: at it,
 *                                      a new connection from the address is refused (it evicts nothing)
 */
public record ServerLimits(int firstRequestTimeoutSeconds, int maxConnections, int maxConnectionsPerAddress,
                           int maxHandshakes, int maxHandshakesPerAddress) {

    public static final int DEFAULT_FIRST_REQUEST_TIMEOUT_SECONDS = 10;
    public static final int DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 512;
    public static final int DEFAULT_MAX_HANDSHAKES = 1024;
    public static final int DEFAULT_MAX_HANDSHAKES_PER_ADDRESS = 64;

    public ServerLimits {
        positive("firstRequestTimeoutSeconds", firstRequestTimeoutSeconds);
        positive("maxConnections", maxConnections);
        positive("maxConnectionsPerAddress", maxConnectionsPerAddress);
        positive("maxHandshakes", maxHandshakes);
        positive("maxHandshakesPerAddress", maxHandshakesPerAddress);
    }

    /** The defaults: Netdata's socket cap (a quarter of the process's file descriptor limit). */
    public static ServerLimits defaults() {
        return new ServerLimits(DEFAULT_FIRST_REQUEST_TIMEOUT_SECONDS, defaultMaxConnections(),
                DEFAULT_MAX_CONNECTIONS_PER_ADDRESS, DEFAULT_MAX_HANDSHAKES, DEFAULT_MAX_HANDSHAKES_PER_ADDRESS);
    }

    public ServerLimits withFirstRequestTimeoutSeconds(int seconds) {
        return new ServerLimits(seconds, maxConnections, maxConnectionsPerAddress, maxHandshakes,
                maxHandshakesPerAddress);
    }

    public ServerLimits withConnections(int global, int perAddress) {
        return new ServerLimits(firstRequestTimeoutSeconds, global, perAddress, maxHandshakes, maxHandshakesPerAddress);
    }

    public ServerLimits withHandshakes(int global, int perAddress) {
        return new ServerLimits(firstRequestTimeoutSeconds, maxConnections, maxConnectionsPerAddress, global,
                perAddress);
    }

    /** Netdata's default of {@code web server max sockets}: the open-files limit / 4 (at least 256). */
    public static int defaultMaxConnections() {
        long fds = 4096;
        if (ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.UnixOperatingSystemMXBean unix) {
            fds = unix.getMaxFileDescriptorCount();
        }
        return (int) Math.max(256, Math.min(Integer.MAX_VALUE, fds / 4));
    }

    private static void positive(String name, int v) {
        if (v <= 0) {
            throw new IllegalArgumentException(name + " must be positive, got " + v);
        }
    }
}
