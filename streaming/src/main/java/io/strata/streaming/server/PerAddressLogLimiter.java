package io.strata.streaming.server;

import java.util.concurrent.ConcurrentHashMap;

/**
 * At most one log line per client address and reason every {@code intervalNanos}: a client that is
 * refused a thousand times a second writes one line, and the next one says how many were not written.
 * The map is bounded: past {@link #MAX_KEYS} entries it starts afresh.
 */
public final class PerAddressLogLimiter {

    static final int MAX_KEYS = 10_000;

    private record Slot(long loggedAtNanos, long suppressed) {
    }

    private final long intervalNanos;
    private final ConcurrentHashMap<String, Slot> slots = new ConcurrentHashMap<>();

    public PerAddressLogLimiter(long intervalNanos) {
        this.intervalNanos = intervalNanos;
    }

    /**
     * Whether a line for {@code address} and {@code reason} may be written at {@code nowNanos}: -1 when
     * not, else how many were suppressed since the last one written (0 or more).
     */
    public long admit(String address, String reason, long nowNanos) {
        if (slots.size() > MAX_KEYS) {
            slots.clear();
        }
        long[] out = {-1};
        slots.compute(address + '\0' + reason, (k, s) -> {
            if (s == null || nowNanos - s.loggedAtNanos >= intervalNanos) {
                out[0] = s == null ? 0 : s.suppressed;
                return new Slot(nowNanos, 0);
            }
            return new Slot(s.loggedAtNanos, s.suppressed + 1);
        });
        return out[0];
    }

    /** " (N more since the last line)" or "" for {@link #admit}'s answer. */
    public static String suppressedNote(long suppressed) {
        return suppressed > 0 ? " (" + suppressed + " more like it not logged)" : "";
    }
}
