package io.strata.exporting.config;

/** One entry of a {@code destination} failover list: host (an IPv6 address without brackets) and port. */
public record Destination(String host, int port) {

    /** {@code host:port}, with brackets around an IPv6 address. */
    public String authority() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }

    @Override
    public String toString() {
        return authority();
    }
}
