package io.strata.streaming.server;

/** A listener's {@code ^SSL=} option in {@code [web] bind to}. */
public enum TlsMode {
    /**
     * No {@code ^SSL=} option: TLS and plain both accepted (as {@link #OPTIONAL}), so that adding a
     * certificate does not cut off children that stream in plain text.
     */
    DEFAULT,
    /** {@code ^SSL=optional}: TLS and plain text both accepted. */
    OPTIONAL,
    /**
     * {@code ^SSL=force}: plain HTTP is redirected to {@code https://} (301, as Netdata), a plain
     * {@code STREAM} is refused.
     */
    FORCE
}
