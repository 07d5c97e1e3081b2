package io.strata.node.runtime;

import java.time.Instant;
import io.strata.engine.netdata.ConfigNumbers;
import io.strata.engine.time.Clocks;

/**
 * The wall clock a node's collectors stamp their samples with: the system's, shifted by the
 * test-only system property {@code strata.clock.offsetSeconds} (default 0). {@code strata chaos}
 * starts a child with it to play a machine whose clock is ahead or behind; only the collectors'
 * timestamps move (the streaming and the engine keep the system clock), which is what a child with
 * a wrong clock sends to its parents. Not a configuration key: nothing but a test should set it.
 */
public final class CollectionClock {

    /** The property's name. */
    public static final String OFFSET_PROPERTY = "strata.clock.offsetSeconds";

    private static final long OFFSET_MICROS = parseOffsetSeconds(System.getProperty(OFFSET_PROPERTY)) * 1_000_000L;

    private CollectionClock() {
    }

    /** Microseconds since the epoch, shifted by the offset. */
    public static long nowMicros() {
        Instant t = Clocks.system().instant();
        return t.getEpochSecond() * 1_000_000L + t.getNano() / 1000 + OFFSET_MICROS;
    }

    /** The offset in seconds this process runs with. */
    public static long offsetSeconds() {
        return OFFSET_MICROS / 1_000_000L;
    }

    static long parseOffsetSeconds(String value) {
        if (value == null || value.isBlank()) {
            return 0;
        }
        return ConfigNumbers.wholeNumber(value).orElseThrow(() -> new IllegalArgumentException(
                "-D" + OFFSET_PROPERTY + " must be a whole number of seconds, got '" + value + "'"));
    }
}
