package io.strata.it.dashboard;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * An open-loop load on 127.0.0.1: {@code clients} keep-alive connections, each sending the same
 * GET on a fixed schedule so that all together send {@code ratePerSecond}. A request's latency
 * runs from the moment the schedule meant to send it to the last byte of its answer, so a slow
 * answer delays and charges the requests queued behind it (no coordinated omission). Bounded by
 * the run's length and a 5 s read timeout.
 */
final class PacedHttpLoad {

    /** Latency percentiles in milliseconds, how many answers, how many were not 200 or failed. */
    record Result(double p50, double p90, double p99, double p999, double max, int answers, int failures) {
        @Override
        public String toString() {
            return String.format(Locale.ROOT, "p50 %.3f ms, p90 %.3f ms, p99 %.3f ms, p99.9 %.3f ms, max %.3f ms, "
                    + "%d answers, %d failures", p50, p90, p99, p999, max, answers, failures);
        }
    }

    private PacedHttpLoad() {
    }

    static Result run(int port, String pathAndQuery, int clients, double ratePerSecond, double seconds)
            throws InterruptedException {
        byte[] request = ("GET " + pathAndQuery + " HTTP/1.1\r\nHost: 127.0.0.1:" + port
                + "\r\nConnection: keep-alive\r\nUser-Agent: strata-paced-load\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        long periodNanos = (long) (1e9 * clients / ratePerSecond);
        long start = System.nanoTime() + 200_000_000L;
        long end = start + (long) (seconds * 1e9);
        List<long[]> perClient = new ArrayList<>();
        int[] counts = new int[clients];
        AtomicInteger failures = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            long[] latencies = new long[(int) (seconds * ratePerSecond / clients) + 16];
            perClient.add(latencies);
            int index = c;
            // clients start spread over one period, so the sends are even over time
            long first = start + periodNanos * c / clients;
            Thread t = new Thread(() -> {
                Socket s = null;
                InputStream in = null;
                try {
                    long due = first;
                    int n = 0;
                    while (due < end && n < latencies.length) {
                        long wait = due - System.nanoTime();
                        if (wait > 0) {
                            LockSupport.parkNanos(wait);
                        }
                        try {
                            if (s == null) {
                                s = new Socket();
                                s.setTcpNoDelay(true);
                                s.setSoTimeout(5000);
                                s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
                                in = new BufferedInputStream(s.getInputStream(), 65536);
                            }
                            OutputStream out = s.getOutputStream();
                            out.write(request);
                            out.flush();
                            boolean keep = readAnswer(in);
                            latencies[n++] = System.nanoTime() - due;
                            if (!keep) {
                                s.close();
                                s = null;
                            }
                        } catch (IOException e) {
                            failures.incrementAndGet();
                            latencies[n++] = System.nanoTime() - due;
                            closeQuietly(s);
                            s = null;
                        }
                        due += periodNanos;
                    }
                    counts[index] = n;
                } finally {
                    closeQuietly(s);
                }
            }, "paced-load-" + c);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join((long) (seconds * 1000) + 30_000);
        }
        int total = 0;
        for (int c = 0; c < clients; c++) {
            total += counts[c];
        }
        long[] all = new long[total];
        int k = 0;
        for (int c = 0; c < clients; c++) {
            System.arraycopy(perClient.get(c), 0, all, k, counts[c]);
            k += counts[c];
        }
        Arrays.sort(all);
        return new Result(ms(all, 0.50), ms(all, 0.90), ms(all, 0.99), ms(all, 0.999),
                all.length == 0 ? Double.NaN : all[all.length - 1] / 1e6, total, failures.get() + NON_200.getAndSet(0));
    }

    private static final AtomicInteger NON_200 = new AtomicInteger();

    private static double ms(long[] sorted, double q) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int i = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))] / 1e6;
    }

    /**
     * Reads one answer (status line, headers, a Content-Length or chunked body); returns whether
     * the connection stays open.
     */
    private static boolean readAnswer(InputStream in) throws IOException {
        String status = line(in);
        if (!status.startsWith("HTTP/1.1 200") && !status.startsWith("HTTP/1.0 200")) {
            NON_200.incrementAndGet();
        }
        long length = -1;
        boolean chunked = false;
        boolean keep = status.startsWith("HTTP/1.1");
        String h;
        while (!(h = line(in)).isEmpty()) {
            String lower = h.toLowerCase(Locale.ROOT);
            if (lower.startsWith("content-length:")) {
                length = Long.parseLong(lower.substring(15).trim());
            } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
                chunked = true;
            } else if (lower.startsWith("connection:")) {
                keep = lower.contains("keep-alive");
            }
        }
        if (chunked) {
            long size;
            while ((size = Long.parseLong(line(in).trim().split(";")[0], 16)) > 0) {
                skip(in, size);
                line(in);
            }
            line(in);
        } else if (length >= 0) {
            skip(in, length);
        } else {
            while (in.read() >= 0) {
                // the body runs to the end of the connection
            }
            return false;
        }
        return keep;
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0 && c != '\n') {
            if (c != '\r') {
                sb.append((char) c);
            }
        }
        if (c < 0 && sb.isEmpty()) {
            throw new IOException("connection closed");
        }
        return sb.toString();
    }

    private static void skip(InputStream in, long n) throws IOException {
        byte[] buf = new byte[8192];
        while (n > 0) {
            int r = in.read(buf, 0, (int) Math.min(buf.length, n));
            if (r < 0) {
                throw new IOException("connection closed inside a body");
            }
            n -= r;
        }
    }

    private static void closeQuietly(Socket s) {
        if (s != null) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }
}
