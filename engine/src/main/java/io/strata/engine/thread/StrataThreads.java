package io.strata.engine.thread;

import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;

/**
 * The one place main code creates threads and executors (the build's static check bans
 * {@code new Thread} and {@code Executors.new*} elsewhere): every thread gets a name, so a thread
 * dump, a profile and the tests' leak guard say whose it is.
 */
public final class StrataThreads {

    private StrataThreads() {
    }

    /** A thread named {@code name}, not started. */
    public static Thread newThread(Runnable task, String name) {
        return new Thread(Objects.requireNonNull(task, "task"), requireName(name));
    }

    /** A thread named {@code name}, not started, not keeping the JVM alive. */
    public static Thread newDaemonThread(Runnable task, String name) {
        Thread t = newThread(task, name);
        t.setDaemon(true);
        return t;
    }

    /** An executor of one thread from {@code threads} (which names it). */
    public static ExecutorService newSingleThreadExecutor(ThreadFactory threads) {
        return Executors.newSingleThreadExecutor(threads);
    }

    /** A scheduled executor of one thread from {@code threads} (which names it). */
    public static ScheduledExecutorService newSingleThreadScheduledExecutor(ThreadFactory threads) {
        return Executors.newSingleThreadScheduledExecutor(threads);
    }

    /** A pool of {@code n} threads from {@code threads} (which names them). */
    public static ExecutorService newFixedThreadPool(int n, ThreadFactory threads) {
        return Executors.newFixedThreadPool(n, threads);
    }

    private static String requireName(String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("every Strata thread has a name");
        }
        return name;
    }
}
