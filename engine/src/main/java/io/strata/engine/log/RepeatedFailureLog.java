package io.strata.engine.log;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;

import org.slf4j.Logger;

/**
 * Rate-limits the log of a failure that repeats, per key (a destination, a host): the first
 * failure of a run is logged as it is, later ones are counted, and at most once a period a
 * summary says {@code "failed N times since <time> (last: <message>)"}. When the key succeeds
 * again, {@link #recovered} logs, at INFO, how many failures the run had (only when some were not
 * yet reported), and the next failure is logged at once again.
 *
 * <p>An operator whose parent restarts sees one WARN when the connection is lost, one when the
 * first reconnect fails, a summary a minute while it stays down, and one INFO when it is back,
 * instead of a line every reconnect delay.
 *
 * <p>Thread-safe; the clock is injected so tests move time without sleeping.
 */
public final class RepeatedFailureLog {

    /** Where the lines go: {@link #forWarn} writes them to a logger at WARN. */
    @FunctionalInterface
    public interface Sink {
        void log(Level level, String message);
    }

    /** The levels this log writes at. */
    public enum Level { INFO, WARN }

    private static final class Run {
        final long firstMillis;
        long lastReportMillis;
        long failures;
        long unreported;
        String lastMessage;

        Run(long now) {
            this.firstMillis = now;
            this.lastReportMillis = now;
        }
    }

    private final Sink sink;
    private final long periodMillis;
    private final LongSupplier nowMillis;
    private final Map<String, Run> runs = new HashMap<>();

    /**
     * @param periodMillis at most one summary per key per this many milliseconds
     * @param nowMillis    the wall clock, in milliseconds since the epoch
     */
    public RepeatedFailureLog(Sink sink, long periodMillis, LongSupplier nowMillis) {
        this.sink = Objects.requireNonNull(sink, "sink");
        if (periodMillis <= 0) {
            throw new IllegalArgumentException("period must be positive, got " + periodMillis);
        }
        this.periodMillis = periodMillis;
        this.nowMillis = Objects.requireNonNull(nowMillis, "nowMillis");
    }

    /** Lines at WARN (failures, summaries) and INFO (recoveries) on {@code logger}. */
    public static Sink forWarn(Logger logger) {
        Objects.requireNonNull(logger, "logger");
        return (level, message) -> {
            if (level == Level.WARN) {
                logger.warn(message);
            } else {
                logger.info(message);
            }
        };
    }

    /**
     * A failure of {@code key}: logged now when it starts a run, otherwise counted, and summarised
     * when the period since the last line of this key has passed.
     *
     * @param message the whole line, as it would be logged without rate limiting
     */
    public void failed(String key, String message) {
        String line = null;
        synchronized (runs) {
            long now = nowMillis.getAsLong();
            Run run = runs.get(key);
            if (run == null) {
                run = new Run(now);
                run.failures = 1;
                run.lastMessage = message;
                runs.put(key, run);
                line = message;
            } else {
                run.failures++;
                run.unreported++;
                run.lastMessage = message;
                if (now - run.lastReportMillis >= periodMillis) {
                    line = summary(key, run);
                    run.lastReportMillis = now;
                    run.unreported = 0;
                }
            }
        }
        if (line != null) {
            sink.log(Level.WARN, line);
        }
    }

    /**
     * {@code key} works again: the run ends; if failures went unreported, one INFO line says how
     * many there were.
     *
     * @param what what works again, for the line (e.g. "connected")
     */
    public void recovered(String key, String what) {
        String line = null;
        synchronized (runs) {
            Run run = runs.remove(key);
            if (run != null && run.failures > 1) {
                line = key + ": " + what + " after failing " + run.failures + " times since "
                        + Instant.ofEpochMilli(run.firstMillis);
            }
        }
        if (line != null) {
            sink.log(Level.INFO, line);
        }
    }

    /** How many failures the current run of {@code key} has had (0 when none). */
    public long failures(String key) {
        synchronized (runs) {
            Run run = runs.get(key);
            return run == null ? 0 : run.failures;
        }
    }

    private static String summary(String key, Run run) {
        return key + ": failed " + run.failures + " times since " + Instant.ofEpochMilli(run.firstMillis)
                + " (" + run.unreported + " not logged; last: " + run.lastMessage + ")";
    }
}
