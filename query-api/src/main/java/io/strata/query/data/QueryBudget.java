package io.strata.query.data;

import io.netty.handler.codec.http.HttpResponseStatus;
import io.strata.engine.StorageEngine;
import io.strata.engine.query.AggregateSink;
import io.strata.query.http.ApiError;

import java.util.function.LongSupplier;

/**
 * What one query may cost: a deadline ({@code timeout=} in milliseconds, bounded by the server's
 * {@code [web] query timeout ms}) and a number of points read from the engine ({@code [web] max
 * points read per query}). Both are checked as points arrive, so an engine read that goes past
 * either stops there, and the query is answered with an error that names the limit. One per
 * query, used by one thread.
 */
public final class QueryBudget {

    /** The server-wide bounds of query work. */
    public record Limits(long timeoutMillis, long maxPointsRead) {
        public static final long DEFAULT_TIMEOUT_MILLIS = 10_000;
        public static final long DEFAULT_MAX_POINTS_READ = 50_000_000;
        public static final Limits DEFAULTS = new Limits(DEFAULT_TIMEOUT_MILLIS, DEFAULT_MAX_POINTS_READ);

        public Limits {
            if (timeoutMillis <= 0 || maxPointsRead <= 0) {
                throw new IllegalArgumentException("query limits must be positive");
            }
        }
    }

    /** No bound (callers inside the node, tests of query results). */
    public static final QueryBudget UNLIMITED = new QueryBudget(Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE, "",
            System::nanoTime);

    /** Points between two looks at the clock. */
    private static final int CLOCK_EVERY = 4096;
    /**
     * Cells (a row's value of one dimension) built or printed between two looks at the clock: one
     * look among thousands of cells' work (a grouping's flush, a number printed) costs nothing that
     * shows, and the deadline is still seen soon after it passes.
     */
    private static final int CELLS_EVERY = 16_384;

    private final long deadlineNanos;
    private final long maxPoints;
    private final long timeoutMillis;
    private final String timeoutSource;
    /** {@link System#nanoTime()}, or a test's clock. */
    private final LongSupplier nanoClock;
    private long points;
    private int sinceClock;
    private int cellsSinceClock;

    private QueryBudget(long deadlineNanos, long maxPoints, long timeoutMillis, String timeoutSource,
                        LongSupplier nanoClock) {
        this.deadlineNanos = deadlineNanos;
        this.nanoClock = nanoClock;
        this.maxPoints = maxPoints;
        this.timeoutMillis = timeoutMillis;
        this.timeoutSource = timeoutSource;
    }

    /**
     * The budget of a query starting at {@code startNanos} ({@link System#nanoTime()}) that asked for
     * {@code requestedTimeoutMillis} ({@code timeout=}, 0 or less: none): the smaller of that and the
     * server's timeout.
     */
    public static QueryBudget start(Limits limits, long requestedTimeoutMillis, long startNanos) {
        return start(limits, requestedTimeoutMillis, startNanos, System::nanoTime);
    }

    /** As {@link #start(Limits, long, long)}, the deadline watched on {@code nanoClock} (tests move it). */
    public static QueryBudget start(Limits limits, long requestedTimeoutMillis, long startNanos,
                                    LongSupplier nanoClock) {
        boolean fromRequest = requestedTimeoutMillis > 0 && requestedTimeoutMillis < limits.timeoutMillis();
        long ms = fromRequest ? requestedTimeoutMillis : limits.timeoutMillis();
        return new QueryBudget(startNanos + ms * 1_000_000L, limits.maxPointsRead(), ms,
                fromRequest ? "timeout=" + ms : "[web] query timeout ms = " + ms, nanoClock);
    }

    /** Counts {@code n} points read and checks both bounds. */
    public void read(long n) {
        points += n;
        if (points > maxPoints) {
            throw new ApiError(HttpResponseStatus.BAD_REQUEST, "The query reads more than " + maxPoints
                    + " points from the database ([web] max points read per query); ask for a shorter time frame,"
                    + " fewer dimensions or a higher tier.");
        }
        sinceClock += (int) Math.min(n, CLOCK_EVERY);
        if (sinceClock >= CLOCK_EVERY) {
            sinceClock = 0;
            checkDeadline();
        }
    }

    /**
     * Counts {@code cells} built into rows or printed; every {@value #CELLS_EVERY} of them, checks the
     * deadline. A query that reads nothing can still plan 86 400 rows of many dimensions: building and
     * printing them is bounded by the same deadline as the engine read.
     *
     * @throws ApiError 504, as {@link #checkDeadline()}
     */
    public void cells(int cells) {
        if (deadlineNanos == Long.MAX_VALUE) {
            return; // no deadline (and UNLIMITED, shared by every thread, is never written)
        }
        cellsSinceClock += cells;
        if (cellsSinceClock >= CELLS_EVERY) {
            cellsSinceClock = 0;
            checkDeadline();
        }
    }

    /** @throws ApiError 504 naming the timeout and where it came from, once the deadline has passed */
    public void checkDeadline() {
        if (deadlineNanos != Long.MAX_VALUE && nanoClock.getAsLong() - deadlineNanos > 0) {
            throw new ApiError(HttpResponseStatus.GATEWAY_TIMEOUT, "The query timed out after " + timeoutMillis
                    + " ms (" + timeoutSource + ").");
        }
    }

    public long pointsRead() {
        return points;
    }

    /**
     * {@code sink} watched by this budget's deadline; the points the engine read for it are counted
     * afterwards from its {@code QueryResult} (they are more than the points the sink gets).
     */
    AggregateSink watching(AggregateSink sink) {
        if (this == UNLIMITED) {
            return sink;
        }
        return (time, sum, min, max, count, anomalies) -> {
            if (++sinceClock >= CLOCK_EVERY) {
                sinceClock = 0;
                checkDeadline();
            }
            sink.point(time, sum, min, max, count, anomalies);
        };
    }

    /** {@code consumer} with every point counted against this budget first. */
    StorageEngine.Tier0Consumer counting(StorageEngine.Tier0Consumer consumer) {
        if (this == UNLIMITED) {
            return consumer;
        }
        return (time, sn) -> {
            read(1);
            consumer.point(time, sn);
        };
    }
}
