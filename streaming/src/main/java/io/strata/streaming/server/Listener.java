package io.strata.streaming.server;

import java.net.InetSocketAddress;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * One entry of {@code [web] bind to}: the address, what may be done through it ({@code =mode|mode},
 * all when none is given) and its {@code ^SSL=} option.
 */
public record Listener(InetSocketAddress address, Set<WebPermission> modes, TlsMode tls) {

    public Listener {
        Objects.requireNonNull(address, "address");
        modes = modes.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(modes));
        Objects.requireNonNull(tls, "tls");
    }

    /** Every mode, TLS optional: what a plain {@code bind to = HOST:PORT} means. */
    public static Listener of(InetSocketAddress address) {
        return new Listener(address, WebPermission.all(), TlsMode.DEFAULT);
    }

    public boolean allows(WebPermission p) {
        return modes.contains(p);
    }
}
