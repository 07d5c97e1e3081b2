package io.strata.node.collect;

import io.strata.streaming.child.ChartSink;
import io.strata.streaming.child.LocalChartsSink;
import io.strata.streaming.child.LocalCharts;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.RejectedExecutionException;
import io.strata.engine.thread.StrataThreads;
import io.strata.engine.time.Clocks;
import io.strata.node.runtime.CollectionClock;

/**
 * The machine's own charts, read from /proc and /sys every {@code update_every} seconds on the
 * second boundary (as Netdata's proc plugin thread does), with Netdata's chart ids, contexts,
 * units, dimensions and algorithms. One thread runs all modules in turn and ends each pass with
 * one {@link ChartSink#passDone()}. A module that fails is logged once and skipped for that
 * pass; the others go on.
 */
public final class ProcCollector implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(ProcCollector.class);

    private final ChartSink sink;
    private final List<ProcModule> modules;
    private final boolean[] failed;
    private final int updateEvery;
    private final ScheduledExecutorService timer;
    private volatile boolean closed;

    /** The node's collector: this machine's /proc and /sys into {@code local}. */
    public ProcCollector(LocalCharts local, int updateEvery) {
        this(new LocalChartsSink(local), local.host().machineGuid(), Path.of("/"), updateEvery);
    }

    /** {@code root}: where proc/ and sys/ are (the real "/" or a copy for tests). */
    public ProcCollector(ChartSink sink, UUID host, Path root, int updateEvery) {
        if (updateEvery <= 0) {
            throw new IllegalArgumentException("update_every must be positive, got " + updateEvery);
        }
        this.sink = sink;
        this.updateEvery = updateEvery;
        ProcModule.Context ctx = new ProcModule.Context(host, root, updateEvery, sink);
        this.modules = List.of(new ProcStatModule(ctx), new ProcInterruptsModule(ctx), new ProcLoadavgModule(ctx),
                new ProcUptimeModule(ctx), new ProcMeminfoModule(ctx), new ProcVmstatModule(ctx),
                new ProcNetDevModule(ctx), new ProcDiskstatsModule(ctx));
        this.failed = new boolean[modules.size()];
        this.timer = StrataThreads.newSingleThreadScheduledExecutor(r -> {
            Thread t = StrataThreads.newThread(r, "strata-proc-collector");
            t.setDaemon(true);
            return t;
        });
    }

    public List<ProcModule> modules() {
        return modules;
    }

    /** One pass now. Call it before streaming starts so that the first connection sends every chart. */
    public void collectOnce() {
        collectOnce(CollectionClock.nowMicros());
    }

    /** One pass at {@code nowMicros}: every module, then the end of the pass. */
    public void collectOnce(long nowMicros) {
        for (int i = 0; i < modules.size(); i++) {
            ProcModule m = modules.get(i);
            try {
                m.collect(nowMicros);
                if (failed[i]) {
                    failed[i] = false;
                    LOG.info("proc module {} collects again", m.name());
                }
            } catch (RuntimeException e) {
                if (!failed[i]) {
                    failed[i] = true;
                    LOG.warn("proc module {} failed; skipped until it works again", m.name(), e);
                }
            }
        }
        sink.passDone();
    }

    /** Collects every update_every seconds, on the boundary, until {@link #close()}. */
    public void start() {
        scheduleNext();
    }

    private void scheduleNext() {
        if (closed) {
            return;
        }
        long periodMicros = updateEvery * 1_000_000L;
        long now = CollectionClock.nowMicros();
        long delay = periodMicros - now % periodMicros;
        try {
            timer.schedule(this::tick, delay, TimeUnit.MICROSECONDS);
        } catch (RejectedExecutionException e) {
            // closed meanwhile
        }
    }

    private void tick() {
        try {
            collectOnce();
        } finally {
            scheduleNext();
        }
    }

    @Override
    public void close() {
        closed = true;
        timer.shutdownNow();
        try {
            timer.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (ProcModule m : modules) {
            m.close();
        }
    }
}
