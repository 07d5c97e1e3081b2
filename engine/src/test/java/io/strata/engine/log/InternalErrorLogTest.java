package io.strata.engine.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicLong;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class InternalErrorLogTest {

    private final AtomicLong now = new AtomicLong(1_000_000);
    private Logger logger;
    private ListAppender<ILoggingEvent> logged;

    @BeforeEach
    void attach() {
        logger = new LoggerContext().getLogger("internal-error-test");
        logged = new ListAppender<>();
        logged.start();
        logger.addAppender(logged);
    }

    @AfterEach
    void detach() {
        logger.detachAppender(logged);
        logged.stop();
    }

    private static RuntimeException bug(String text) {
        return new IllegalStateException(text);
    }

    @Test
    void aBugMetByEveryRequestWritesOneLineWithItsTraceThenOneSummaryAPeriod() {
        InternalErrorLog log = new InternalErrorLog(logger, 60_000, now::get);
        RuntimeException error = bug("boom");
        for (int i = 0; i < 1_000; i++) {
            log.error("answering HTTP", "GET /api/v1/data failed", error);
            now.addAndGet(10);
        }
        // 10 s passed: only the first line
        assertEquals(1, logged.list.size());
        ILoggingEvent first = logged.list.get(0);
        assertEquals(Level.ERROR, first.getLevel());
        assertNotNull(first.getThrowableProxy(), "the first line carries the stack trace");

        now.addAndGet(60_000);
        log.error("answering HTTP", "GET /api/v1/data failed", error);
        assertEquals(2, logged.list.size());
        ILoggingEvent summary = logged.list.get(1);
        assertEquals(Level.ERROR, summary.getLevel());
        assertNull(summary.getThrowableProxy(), "a summary has no stack trace");
        assertTrue(summary.getFormattedMessage().contains("1000 more times"), summary.getFormattedMessage());
    }

    @Test
    void aDifferentBugIsLoggedInFullAtOnce() {
        InternalErrorLog log = new InternalErrorLog(logger, 60_000, now::get);
        log.error("receiving a stream", "host a: internal error", bug("one"));
        log.error("receiving a stream", "host a: internal error", new ArithmeticException("two"));
        log.error("answering HTTP", "GET / failed", bug("one"));
        assertEquals(3, logged.list.size());
        for (ILoggingEvent e : logged.list) {
            assertNotNull(e.getThrowableProxy());
        }
    }

    @Test
    void theNumberOfKindsRememberedIsBounded() {
        InternalErrorLog log = new InternalErrorLog(logger, 60_000, now::get);
        for (int i = 0; i < InternalErrorLog.MAX_KINDS * 4; i++) {
            log.error("site " + i, "failed", bug("x"));
        }
        assertEquals(InternalErrorLog.MAX_KINDS * 4, logged.list.size());
    }
}
