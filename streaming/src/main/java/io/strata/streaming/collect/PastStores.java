package io.strata.streaming.collect;

import io.strata.engine.StorageEngine;
import io.strata.engine.time.Clocks;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine sinks' {@link StoredPointSink#storePast}: {@link StorageEngine#storePast}, whose read
 * of the range may fail on the disk. A failure stores nothing of the run (the hole stays, as before
 * past runs were stored) and is logged at most once a minute for the process: the stream goes on.
 */
final class PastStores {

    private static final Logger LOG = LoggerFactory.getLogger(PastStores.class);
    private static final long LOG_EVERY_MILLIS = 60_000;
    private static final AtomicLong LAST_LOG = new AtomicLong(Long.MIN_VALUE / 2);
    private static final AtomicLong FAILED = new AtomicLong();

    private PastStores() {
    }

    static int store(StorageEngine engine, int metricId, long firstTime, int updateEvery, int[] sns, int from,
                     int count) {
        try {
            return engine.storePast(metricId, firstTime, updateEvery, sns, from, count);
        } catch (IOException e) {
            long failed = FAILED.incrementAndGet();
            long now = Clocks.wallMillis();
            long last = LAST_LOG.get();
            if (now - last >= LOG_EVERY_MILLIS && LAST_LOG.compareAndSet(last, now)) {
                LOG.warn("a replayed run behind metric {}'s newest point ({} points from {}) was not stored: reading "
                        + "what the metric holds there failed: {} ({} such run(s) since start)", metricId, count,
                        firstTime, e.toString(), failed);
            }
            return 0;
        }
    }
}
