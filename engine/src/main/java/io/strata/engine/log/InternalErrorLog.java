package io.strata.engine.log;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;

import io.strata.engine.time.Clocks;
import org.slf4j.Logger;

/**
 * Logs an internal error (a bug of ours, caught so that it cannot take other clients down) at
 * ERROR, rate-limited per kind: the first one of a kind with its stack trace, the next ones
 * counted and summarised at most once a period, without the stack trace. A kind is where it was
 * caught, the exception's class and the frame that threw it, so that one bug met by every request
 * or every line of a stream writes a few lines a minute, while a second, different bug is still
 * logged in full at once.
 *
 * <p>Thread-safe; the clock is injected so tests move time without sleeping.
 */
public final class InternalErrorLog {

    /** Kinds remembered at once; past it the oldest counts are dropped (a bound, not a policy). */
    static final int MAX_KINDS = 256;

    /** The default period between two lines of one kind. */
    public static final long DEFAULT_PERIOD_MILLIS = 60_000;

    private static final class Kind {
        long windowStartMillis;
        long suppressed;
        long sinceMillis;
        String lastMessage;
    }

    private final Logger logger;
    private final long periodMillis;
    private final LongSupplier nowMillis;
    private final Map<String, Kind> kinds = new HashMap<>();

    public InternalErrorLog(Logger logger, long periodMillis, LongSupplier nowMillis) {
        this.logger = Objects.requireNonNull(logger, "logger");
        if (periodMillis <= 0) {
            throw new IllegalArgumentException("period must be positive, got " + periodMillis);
        }
        this.periodMillis = periodMillis;
        this.nowMillis = Objects.requireNonNull(nowMillis, "nowMillis");
    }

    /** One line a minute per kind, on the wall clock. */
    public static InternalErrorLog of(Logger logger) {
        return new InternalErrorLog(logger, DEFAULT_PERIOD_MILLIS, Clocks::wallMillis);
    }

    /**
     * An internal error caught at {@code site}.
     *
     * @param site    where it was caught (a fixed text: "receiving a stream", "answering HTTP")
     * @param message the line as it would be logged without rate limiting
     * @param error   what was caught
     */
    public void error(String site, String message, Throwable error) {
        String key = kindOf(site, error);
        String summary = null;
        boolean first = false;
        synchronized (kinds) {
            long now = nowMillis.getAsLong();
            Kind kind = kinds.get(key);
            if (kind == null) {
                if (kinds.size() >= MAX_KINDS) {
                    kinds.clear();
                }
                kind = new Kind();
                kind.windowStartMillis = now;
                kinds.put(key, kind);
                first = true;
            } else {
                kind.suppressed++;
                if (kind.suppressed == 1) {
                    kind.sinceMillis = now;
                }
                kind.lastMessage = message + ": " + error;
                if (now - kind.windowStartMillis >= periodMillis) {
                    summary = site + ": the same internal error " + kind.suppressed + " more times since "
                            + Instant.ofEpochMilli(kind.sinceMillis) + " (last: " + kind.lastMessage + ")";
                    kind.windowStartMillis = now;
                    kind.suppressed = 0;
                }
            }
        }
        if (first) {
            logger.error(message, error);
        } else if (summary != null) {
            logger.error(summary);
        }
    }

    private static String kindOf(String site, Throwable error) {
        StackTraceElement[] trace = error.getStackTrace();
        String frame = trace.length == 0 ? "" : trace[0].toString();
        return site + '|' + error.getClass().getName() + '|' + frame;
    }
}
