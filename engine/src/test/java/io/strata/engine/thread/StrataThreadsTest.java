package io.strata.engine.thread;

import org.junit.jupiter.api.Test;

import java.util.concurrent.ThreadFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StrataThreadsTest {

    @Test
    void aDaemonThreadFactoryNumbersItsThreadsAfterItsPrefix() {
        ThreadFactory f = StrataThreads.daemonThreadFactory("strata-test-pool");
        Runnable nothing = () -> { };
        Thread first = f.newThread(nothing);
        Thread second = f.newThread(nothing);
        assertEquals("strata-test-pool-1", first.getName());
        assertEquals("strata-test-pool-2", second.getName());
        assertTrue(first.isDaemon() && second.isDaemon());
        assertEquals(Thread.State.NEW, first.getState(), "made, not started");
        assertThrows(IllegalArgumentException.class, () -> StrataThreads.daemonThreadFactory(" "));
    }
}
