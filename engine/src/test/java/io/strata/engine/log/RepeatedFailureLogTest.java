package io.strata.engine.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

class RepeatedFailureLogTest {

    private static final long MINUTE = 60_000;
    private static final long START = 1_700_000_000_000L;

    private final AtomicLong now = new AtomicLong(START);
    private final List<String> lines = new ArrayList<>();
    private final RepeatedFailureLog log = new RepeatedFailureLog(
            (level, message) -> lines.add(level + " " + message), MINUTE, now::get);

    @Test
    void logsTheFirstFailureAsItIs() {
        log.failed("parent:19999", "parent:19999: connection refused");
        assertEquals(List.of("WARN parent:19999: connection refused"), lines);
    }

    @Test
    void countsRepeatedFailuresAndSummarisesOnceAPeriod() {
        log.failed("p", "p: refused");
        for (int i = 1; i <= 11; i++) {           // every 5 s for 55 s: nothing more
            now.addAndGet(5_000);
            log.failed("p", "p: refused " + i);
        }
        assertEquals(1, lines.size(), lines.toString());
        now.addAndGet(5_000);                      // 60 s after the first line
        log.failed("p", "p: refused 12");
        assertEquals(2, lines.size(), lines.toString());
        assertEquals("WARN p: failed 13 times since 2023-11-14T22:13:20Z (12 not logged; last: p: refused 12)",
                lines.get(1));
        now.addAndGet(59_999);
        log.failed("p", "p: refused 13");
        assertEquals(2, lines.size());
        now.addAndGet(1);
        log.failed("p", "p: refused 14");
        assertEquals(3, lines.size());
        assertTrue(lines.get(2).startsWith("WARN p: failed 15 times since 2023-11-14T22:13:20Z (2 not logged"),
                lines.get(2));
    }

    @Test
    void keysAreLimitedIndependently() {
        log.failed("a", "a down");
        log.failed("b", "b down");
        log.failed("a", "a down");
        assertEquals(List.of("WARN a down", "WARN b down"), lines);
        assertEquals(2, log.failures("a"));
        assertEquals(1, log.failures("b"));
    }

    @Test
    void recoveryEndsTheRunAndSaysHowManyFailuresItHad() {
        log.failed("p", "p down");
        now.addAndGet(5_000);
        log.failed("p", "p down");
        log.recovered("p", "connected");
        assertEquals("INFO p: connected after failing 2 times since 2023-11-14T22:13:20Z", lines.get(1));
        assertEquals(0, log.failures("p"));
        log.failed("p", "p down again");             // a new run is logged at once
        assertEquals("WARN p down again", lines.get(2));
    }

    @Test
    void recoveryAfterASingleFailureOrNoneIsSilent() {
        log.recovered("p", "connected");
        log.failed("p", "p down");
        log.recovered("p", "connected");
        assertEquals(List.of("WARN p down"), lines);
    }

    @Test
    void refusesANonPositivePeriod() {
        assertThrows(IllegalArgumentException.class, () -> new RepeatedFailureLog((l, m) -> { }, 0, now::get));
    }
}
