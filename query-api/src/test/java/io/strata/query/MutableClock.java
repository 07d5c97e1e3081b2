package io.strata.query;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock the tests set to the second a vector was recorded at. */
final class MutableClock extends Clock {

    private volatile long seconds;

    MutableClock(long seconds) {
        this.seconds = seconds;
    }

    void set(long s) {
        seconds = s;
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("the test clock is UTC");
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochSecond(seconds);
    }
}
