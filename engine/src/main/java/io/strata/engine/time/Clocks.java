package io.strata.engine.time;

import java.time.Clock;
import java.util.function.LongSupplier;

/**
 * The one place main code reads the wall clock. Everything that needs "now" takes a
 * {@link Clock} or a {@link LongSupplier} of milliseconds in its constructor, and production
 * wiring passes {@link #system()} or {@link #wallMillis()}; tests pass their own clock and move
 * time forward without sleeping. The build's static check bans {@code System.currentTimeMillis},
 * {@code Instant.now()} and the like everywhere else.
 *
 * <p>Monotonic intervals ({@code System.nanoTime()}) are not wall-clock reads and stay where they
 * are.
 */
public final class Clocks {

    private static final Clock SYSTEM = Clock.systemUTC();

    private Clocks() {
    }

    /** The system clock, in UTC. */
    public static Clock system() {
        return SYSTEM;
    }

    /** Milliseconds since the epoch from the system clock. */
    public static long wallMillis() {
        return SYSTEM.millis();
    }

    /** {@link #wallMillis()} as a supplier, for constructors that take one. */
    public static LongSupplier wallMillisSupplier() {
        return Clocks::wallMillis;
    }
}
