package io.strata.engine;

import io.strata.engine.log.RepeatedFailureLog;
import io.strata.engine.thread.StrataThreads;
import io.strata.engine.time.Clocks;

import java.io.IOException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs {@link PastWriter#store} on a thread of its own for callers that must not block on the disk
 * (a receiver on a Netty event loop: a past run reads its range first, which may read extents).
 * Runs are copied on submission (one {@code int[]} per run, never an object per point) and queued,
 * at most {@link #MAX_POINTS} points in at most {@link #MAX_RUNS} runs: bounded by the points, since
 * a parent's reconnection brings thousands of runs of a point or two at once (an answer reaching a
 * second or two behind the newest point, for every dimension of every chart). A full queue refuses
 * the run (counted, logged at most once a minute): its hole stays as it was. The thread also rebuilds the queued tier windows once a second while
 * idle ({@link PastWriter#drainPending}). Started at the first run; stopped by {@link #stop}.
 *
 * <p>The past thread and the metric's writer store into the same metric at once. That is safe:
 * the writer only appends after the metric's newest point and the past run lies at or before it;
 * the past thread reads hot pages through their snapshots and writes pages of its own.
 */
final class PastRunQueue {

    private static final Logger LOG = LoggerFactory.getLogger(PastRunQueue.class);
    /** Points waiting: 4 MiB of storage numbers at most. */
    static final int MAX_POINTS = 1 << 20;
    /** Runs waiting, whatever their size: about 64 bytes of queue and array headers each. */
    static final int MAX_RUNS = 1 << 16;
    private static final long LOG_SUMMARY_MILLIS = 60_000;

    private record Run(int metric, long firstTime, int updateEvery, int[] sns) {
    }

    /** Wakes the thread to stop (not an interrupt: one during a read would close a shared file channel). */
    private static final Run STOP = new Run(-1, 0, 0, new int[0]);

    private final PastWriter writer;
    private final LinkedBlockingQueue<Run> queue = new LinkedBlockingQueue<>(MAX_RUNS + 1); // + the stop mark
    /** Points of the runs in {@link #queue}. */
    private final AtomicLong queuedPoints = new AtomicLong();
    private final Object done = new Object();
    private final AtomicLong submitted = new AtomicLong();
    /** Runs finished (stored, held, failed); guarded by {@link #done} for waiters. */
    private long finished;
    private final LongAdder refused = new LongAdder();
    private final LongAdder failed = new LongAdder();
    /** Refused and failed runs: the first of a run of them logged, then a summary a minute. */
    private final RepeatedFailureLog failures = new RepeatedFailureLog(RepeatedFailureLog.forWarn(LOG),
            LOG_SUMMARY_MILLIS, Clocks.wallMillisSupplier());
    private Thread thread;
    private volatile boolean stopped;

    PastRunQueue(PastWriter writer) {
        this.writer = writer;
    }

    /**
     * Queues a copy of the run's points before the metric's newest one; false when the queue is
     * full or stopped (the run is not stored). The points at or after the newest second are left
     * out here, on the caller's thread: a replication answer usually repeats the newest second, and
     * that slot is held (or, a gap, cannot be told from a held one without a read).
     */
    boolean submit(int metric, long firstTime, int updateEvery, int[] sns, int from, int count) {
        PastWriter.check(metric, firstTime, updateEvery, sns, from, count);
        long newest = writer.newest(metric);
        if (count > 0 && firstTime < newest) {
            count = (int) Math.min(count, (newest - 1 - firstTime) / updateEvery + 1);
        } else {
            count = 0;
        }
        if (count == 0) {
            return true;
        }
        if (stopped) {
            return false;
        }
        int[] copy = new int[count];
        System.arraycopy(sns, from, copy, 0, count);
        startIfNeeded();
        if (queuedPoints.addAndGet(count) <= MAX_POINTS && queue.size() < MAX_RUNS
                && queue.offer(new Run(metric, firstTime, updateEvery, copy))) {
            submitted.incrementAndGet();
        } else {
            queuedPoints.addAndGet(-count);
            refused.increment();
            failures.failed("past writer queue", "refused a run of " + count + " point(s) behind metric " + metric
                    + "'s newest point: " + MAX_POINTS + " points or " + MAX_RUNS + " runs wait already; the hole"
                    + " stays");
            return false;
        }
        failures.recovered("past writer queue", "runs accepted again");
        return true;
    }

    private synchronized void startIfNeeded() {
        if (thread == null && !stopped) {
            thread = StrataThreads.newDaemonThread(this::loop, "strata-past-writer");
            thread.start();
        }
    }

    private void loop() {
        while (!stopped) {
            Run r;
            try {
                r = queue.poll(1, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                return;
            }
            if (r == STOP) {
                return;
            }
            if (r != null) {
                queuedPoints.addAndGet(-r.sns().length);
            }
            try {
                if (r == null) {
                    writer.drainPending();
                    continue;
                }
                writer.store(r.metric(), r.firstTime(), r.updateEvery(), r.sns(), 0, r.sns().length);
                failures.recovered("past writer", "runs stored again");
            } catch (IOException | RuntimeException e) {
                failed.increment();
                failures.failed("past writer", "a run behind metric " + (r == null ? -1 : r.metric())
                        + "'s newest point was not stored: " + e);
            }
            if (r != null) {
                synchronized (done) {
                    finished++;
                    done.notifyAll();
                }
            }
        }
    }

    /** Waits until every run submitted before the call is done, at most {@code millis}; true if so. */
    boolean awaitIdle(long millis) throws InterruptedException {
        long target = submitted.get();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        synchronized (done) {
            while (finished < target) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(done, left);
            }
        }
        return true;
    }

    /** Runs refused because the queue was full. */
    long refused() {
        return refused.sum();
    }

    /** Runs whose store failed (an I/O error reading their range). */
    long failed() {
        return failed.sum();
    }

    /** Stops the thread after the run in progress; the queued runs are dropped. */
    void stop(long joinMillis) throws InterruptedException {
        Thread t;
        synchronized (this) {
            stopped = true;
            t = thread;
        }
        queue.clear();
        queuedPoints.set(0);
        if (t != null) {
            queue.offer(STOP);
            t.join(joinMillis);
        }
    }
}
