package io.strata.it.engine;

import io.strata.engine.EngineConfig;
import io.strata.engine.EngineTestSupport;
import io.strata.engine.FsyncPolicy;
import io.strata.engine.StorageEngine;
import io.strata.engine.page.StorageNumber;
import io.strata.engine.registry.MetricRegistry;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Path;

/**
 * The writer process of {@link WriterKilledBySigkillIT}: writes {@value #CHARTS} charts x
 * {@value #DIMS} dimensions, one point per metric per second, as fast as it can, until it is
 * killed.
 *
 * <p>Usage: {@code CrashWriter <dir> <never|per-extent|per-datafile>}. It continues from the last
 * second every metric has on disk (or from {@link #T0} on an empty directory). The value of metric
 * index {@code k} (its place in {@link EngineTestSupport#define} order, chart-major) at second
 * {@code t} is {@code EngineTestSupport.value(k, t)}.
 *
 * <p>Protocol on stdout: {@code READY <first second>} once open, then after every
 * {@value #FLUSH_EVERY} seconds of data {@code FLUSHED <last second>}, printed only after
 * {@link StorageEngine#flush()} returned (everything up to that second is in the datafiles).
 * Bounded: stops after {@value #MAX_WALL_MILLIS} ms or {@value #MAX_SECONDS} seconds of data,
 * and halts at once when its stdin closes (the test JVM went away).
 */
public final class CrashWriter {

    public static final long T0 = 1_700_000_000L;
    public static final int CHARTS = 20;
    public static final int DIMS = 10;
    public static final int FLUSH_EVERY = 100;
    static final long MAX_WALL_MILLIS = 10 * 60 * 1000L;
    static final long MAX_SECONDS = 10_000_000L;

    private CrashWriter() {
    }

    public static EngineConfig config(Path dir, FsyncPolicy fsync) {
        return EngineConfig.defaults(dir).withDatafileMaxBytes(256 * 1024).withFlushMaxAgeMillis(20).withFsync(fsync);
    }

    /** The first second to write: one after the smallest last second of all metrics, or T0. */
    public static long resumeSecond(StorageEngine e, int[] ids) {
        long min = Long.MAX_VALUE;
        for (int id : ids) {
            long last = e.registry().lastTime(id, 0);
            min = Math.min(min, last == MetricRegistry.NO_TIME ? T0 - 1 : last);
        }
        return Math.max(T0, min + 1);
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: CrashWriter <dir> <never|per-extent|per-datafile>");
            System.exit(2);
        }
        watchParent();
        PrintStream out = System.out;
        long started = System.nanoTime();
        try (StorageEngine e = StorageEngine.open(config(Path.of(args[0]), FsyncPolicy.parse(args[1])))) {
            int[] ids = EngineTestSupport.define(e, CHARTS, DIMS);
            long first = resumeSecond(e, ids);
            out.println("READY " + first);
            out.flush();
            long end = first + MAX_SECONDS;
            long deadline = started + MAX_WALL_MILLIS * 1_000_000L;
            for (long t = first; t < end; t++) {
                for (int k = 0; k < ids.length; k++) {
                    e.store(ids[k], t, 1, EngineTestSupport.value(k, t), StorageNumber.SN_DEFAULT_FLAGS);
                }
                if ((t - first + 1) % FLUSH_EVERY == 0) {
                    e.flush();
                    out.println("FLUSHED " + t);
                    out.flush();
                    if (System.nanoTime() - deadline > 0) {
                        break;
                    }
                }
            }
            out.println("DONE");
            out.flush();
        }
    }

    /** Halts when stdin reaches end of file: the parent died, so nobody will kill us. */
    private static void watchParent() {
        Thread t = new Thread(() -> {
            InputStream in = System.in;
            byte[] buf = new byte[64];
            try {
                while (in.read(buf) >= 0) {
                    // ignore input
                }
            } catch (IOException ignored) {
                // treat like end of file
            }
            Runtime.getRuntime().halt(3);
        }, "parent-watch");
        t.setDaemon(true);
        t.start();
    }
}
