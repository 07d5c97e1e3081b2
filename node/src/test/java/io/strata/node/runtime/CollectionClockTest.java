package io.strata.node.runtime;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CollectionClockTest {

    @Test
    void theOffsetIsWholeSecondsAndABadValueIsNamed() {
        assertEquals(0, CollectionClock.parseOffsetSeconds(null));
        assertEquals(-30, CollectionClock.parseOffsetSeconds(" -30 "));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> CollectionClock.parseOffsetSeconds("30s"));
        assertTrue(e.getMessage().contains("strata.clock.offsetSeconds"), e.getMessage());
    }

    @Test
    void withoutThePropertyTheClockIsTheSystems() {
        long before = System.currentTimeMillis() * 1000;
        long now = CollectionClock.nowMicros();
        long after = System.currentTimeMillis() * 1000 + 1000;
        assertTrue(now >= before && now <= after, before + " " + now + " " + after);
    }
}
