package io.strata.node.attack;

import io.strata.engine.thread.StrataThreads;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.Proxy;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A client that polls one URL (a {@code /api/v1/data} query of a real chart) at a fixed interval on
 * one keep-alive HTTP/1.1 connection and records each answer's latency, for the "polling client"
 * of the port attacks: its latencies quiet and under each attack say what the attacks cost a
 * legitimate user. {@link #window()} takes the latencies since the previous window. Bounded: the
 * poller stops by itself after {@code maxRun}. A poll that fails or is not a 200 counts as failed
 * (its time is still recorded: a poll stuck until its timeout is a latency too).
 */
public final class LatencyPoller implements AutoCloseable {

    /** The latencies of one window of polls ({@code sortedMillis}: each poll's, ascending). */
    public record Window(int polls, int failures, double p50Millis, double p99Millis, double maxMillis,
                         List<String> failureSamples, double[] sortedMillis) {

        static Window of(double[] sorted, int failures, List<String> failureSamples) {
            return new Window(sorted.length, failures, percentile(sorted, 0.50), percentile(sorted, 0.99),
                    sorted.length == 0 ? 0 : sorted[sorted.length - 1], List.copyOf(failureSamples), sorted);
        }

        /** The polls of several windows as one (e.g. the whole attack over its phases). */
        public static Window merge(List<Window> windows) {
            int n = 0;
            int failed = 0;
            List<String> samples = new ArrayList<>();
            for (Window w : windows) {
                n += w.sortedMillis.length;
                failed += w.failures;
                for (String f : w.failureSamples) {
                    if (samples.size() < MAX_FAILURE_SAMPLES) {
                        samples.add(f);
                    }
                }
            }
            double[] all = new double[n];
            int at = 0;
            for (Window w : windows) {
                System.arraycopy(w.sortedMillis, 0, all, at, w.sortedMillis.length);
                at += w.sortedMillis.length;
            }
            Arrays.sort(all);
            return of(all, failed, samples);
        }

        /** This window's p99 over {@code quiet}'s ({@code NaN} when the quiet one has none). */
        public double p99Ratio(Window quiet) {
            return quiet.p99Millis > 0 ? p99Millis / quiet.p99Millis : Double.NaN;
        }

        @Override
        public String toString() {
            return String.format("%d polls, p50 %.1f ms, p99 %.1f ms, max %.1f ms, %d failed%s", polls, p50Millis,
                    p99Millis, maxMillis, failures, failureSamples.isEmpty() ? "" : " " + failureSamples);
        }
    }

    private static final int MAX_FAILURE_SAMPLES = 5;
    private static final Duration POLL_TIMEOUT = Duration.ofSeconds(30);

    private static final int CONNECT_TIMEOUT_MILLIS = 10_000;
    private final URI uri;
    private final long intervalMillis;
    private final long maxRunNanos;
    private final Thread thread;
    private volatile boolean running = true;
    /** Latencies of the current window, in ms; guarded by this. */
    private double[] millis = new double[1024];
    private int count;
    private int failures;
    private final List<String> failureSamples = new ArrayList<>();
    private int totalFailures;

    /**
     * @param uri      what to poll (a loopback URL: the tool attacks loopback only)
     * @param interval the pause between the end of one poll and the start of the next
     * @param maxRun   the longest the poller runs before it stops by itself
     */
    public LatencyPoller(URI uri, Duration interval, Duration maxRun) {
        this.uri = uri;
        this.intervalMillis = interval.toMillis();
        this.maxRunNanos = maxRun.toNanos();
        this.thread = StrataThreads.newDaemonThread(this::run, "api-poller");
    }

    /** Starts polling. */
    public LatencyPoller start() {
        thread.start();
        return this;
    }

    private void run() {
        long end = System.nanoTime() + maxRunNanos;
        while (running && System.nanoTime() < end) {
            long t0 = System.nanoTime();
            String failure = null;
            try {
                failure = poll();
            } catch (IOException | RuntimeException e) {
                failure = e.toString();
            }
            if (!running) {
                return;
            }
            record((System.nanoTime() - t0) / 1e6, failure);
            try {
                TimeUnit.MILLISECONDS.sleep(intervalMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * One request on a connection of its own, closed when the answer is read: null for a 200,
     * else the status and the start of the answer. {@link HttpURLConnection} and not the JDK's
     * {@code HttpClient}, whose selector and pooled connections (before Java 21) end only when the
     * client is garbage; disconnecting before the stream is closed keeps the socket out of the
     * JDK's keep-alive cache.
     */
    private String poll() throws IOException {
        HttpURLConnection c = (HttpURLConnection) uri.toURL().openConnection(Proxy.NO_PROXY);
        InputStream in = null;
        try {
            c.setConnectTimeout(CONNECT_TIMEOUT_MILLIS);
            c.setReadTimeout((int) POLL_TIMEOUT.toMillis());
            c.setInstanceFollowRedirects(false);
            c.setUseCaches(false);
            c.setRequestProperty("Connection", "close");
            int status = c.getResponseCode();
            in = status >= 400 ? c.getErrorStream() : c.getInputStream();
            byte[] body = in == null ? new byte[0] : in.readAllBytes();
            return status == 200 ? null : status + " " + new String(body, StandardCharsets.UTF_8);
        } finally {
            c.disconnect();
            if (in != null) {
                in.close();
            }
        }
    }

    private synchronized void record(double latencyMillis, String failure) {
        if (count == millis.length) {
            millis = Arrays.copyOf(millis, count * 2);
        }
        millis[count++] = latencyMillis;
        if (failure != null) {
            failures++;
            totalFailures++;
            if (failureSamples.size() < MAX_FAILURE_SAMPLES) {
                failureSamples.add(failure.length() > 200 ? failure.substring(0, 200) : failure);
            }
        }
    }

    /** The polls since the previous window (or the start), and a new window begins. */
    public synchronized Window window() {
        double[] sorted = Arrays.copyOf(millis, count);
        Arrays.sort(sorted);
        Window w = Window.of(sorted, failures, failureSamples);
        count = 0;
        failures = 0;
        failureSamples.clear();
        return w;
    }

    /** Failed polls since the start. */
    public synchronized int totalFailures() {
        return totalFailures;
    }

    /** The nearest-rank percentile {@code q} of ascending {@code sorted} values; 0 when there are none. */
    static double percentile(double[] sorted, double q) {
        if (sorted.length == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(sorted.length * q);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    /** Stops polling and waits (bounded) for the poll in flight. */
    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.interrupt();
        thread.join(POLL_TIMEOUT.toMillis() + 5_000);
    }
}
