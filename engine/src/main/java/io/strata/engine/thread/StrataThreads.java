package io.strata.engine.thread;

import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

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

    /**
     * A factory of daemon threads named {@code prefix-1}, {@code prefix-2}, ..., for the executor
     * groups that take a factory (Netty's), so that their threads are named and made as every other
     * Strata thread is.
     */
    public static ThreadFactory daemonThreadFactory(String prefix) {
        String p = requireName(prefix);
        AtomicInteger next = new AtomicInteger();
        return task -> newDaemonThread(task, p + "-" + next.incrementAndGet());
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
