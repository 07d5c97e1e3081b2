package io.strata.streaming.receiver;

import io.strata.engine.thread.StrataThreads;
import io.strata.streaming.sender.Destination;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@link PeerLookup} through the peers' query API, which a Strata parent and a Netdata 1.37.1
 * parent both answer: {@code GET /host/<machine GUID>/api/v1/charts}, the newest {@code last_entry}
 * of its charts. Plain HTTP only: a {@code :SSL} destination is skipped (its answer would need the
 * stream's TLS trust settings), as are destinations that do not parse. Each peer is asked once, at
 * the same time, on threads of this lookup (blocking I/O, never on an event loop), with short
 * timeouts and {@code Connection: close} (nothing stays open). A peer that answers with an error
 * status (a 404: it does not know the host) holds nothing; a peer that does not answer at all (no
 * connection, a timeout, an unreadable answer) makes the answer incomplete
 * ({@link PeerLookup.Answer#everyPeerAnswered()} false): it may hold more of the host.
 */
public final class HttpPeerLookup implements PeerLookup, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(HttpPeerLookup.class);
    private static final Pattern LAST_ENTRY = Pattern.compile("\"last_entry\"\\s*:\\s*(\\d+)");
    /** The answer of one peer is read up to this many bytes (a host of thousands of charts fits). */
    static final int MAX_ANSWER_BYTES = 16 << 20;
    /** Peers asked at the same time. */
    static final int THREADS = 4;

    private final int timeoutMillis;
    private final int defaultPort;
    /** Made at the first lookup: most parents never need one. */
    private ExecutorService executor;
    private boolean closed;

    public HttpPeerLookup(Duration timeout, int defaultPort) {
        this.timeoutMillis = (int) Math.min(Integer.MAX_VALUE, Math.max(1, timeout.toMillis()));
        this.defaultPort = defaultPort;
    }

    private synchronized ExecutorService executor() {
        if (closed) {
            return null;
        }
        if (executor == null) {
            executor = StrataThreads.newFixedThreadPool(THREADS,
                    r -> StrataThreads.newDaemonThread(r, "strata-peer-lookup"));
        }
        return executor;
    }

    @Override
    public CompletableFuture<Answer> newestSecond(String destinations, String machineGuid) {
        List<Destination> peers;
        try {
            peers = Destination.parseList(destinations, defaultPort);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.completedFuture(Answer.NOBODY);
        }
        ExecutorService exec = executor();
        List<CompletableFuture<Long>> answers = new ArrayList<>();
        for (Destination d : peers) {
            if (d.ssl() || exec == null) {
                continue;
            }
            String host = d.host().indexOf(':') >= 0 ? "[" + d.host() + "]" : d.host();
            URI uri;
            try {
                uri = URI.create("http://" + host + ":" + d.port() + "/host/" + machineGuid + "/api/v1/charts");
            } catch (IllegalArgumentException e) {
                continue;
            }
            try {
                answers.add(CompletableFuture.supplyAsync(() -> ask(uri), exec));
            } catch (RejectedExecutionException e) {
                // closing
            }
        }
        if (answers.isEmpty()) {
            return CompletableFuture.completedFuture(Answer.NOBODY);
        }
        return CompletableFuture.allOf(answers.toArray(new CompletableFuture<?>[0])).thenApply(v -> {
            long newest = -1;
            boolean every = true;
            for (CompletableFuture<Long> a : answers) {
                long n = a.join();
                if (n == NO_ANSWER) {
                    every = false;
                } else {
                    newest = Math.max(newest, n);
                }
            }
            return new Answer(newest, every);
        });
    }

    /** {@link #ask}'s value for a peer that did not answer. */
    private static final long NO_ANSWER = Long.MIN_VALUE;

    /** The peer's newest second of the host, -1 when it holds nothing, {@link #NO_ANSWER} when it did not answer. */
    private long ask(URI uri) {
        try {
            PeerHttpGet.Answer a = PeerHttpGet.get(uri, timeoutMillis, MAX_ANSWER_BYTES, Map.of());
            if (a.status() != 200) {
                return -1;
            }
            return newestLastEntry(new String(a.body(), StandardCharsets.UTF_8));
        } catch (PeerHttpGet.AnswerTooLargeException e) {
            return -1; // as a refusal: nothing usable
        } catch (IOException | RuntimeException e) {
            LOG.debug("asking {}: {}", uri, e.toString());
            return NO_ANSWER;
        }
    }

    /** The largest {@code "last_entry": N} of a charts answer, -1 when none. */
    static long newestLastEntry(String body) {
        long newest = -1;
        if (body == null) {
            return newest;
        }
        Matcher m = LAST_ENTRY.matcher(body);
        while (m.find()) {
            String digits = m.group(1);
            if (digits.length() <= 12) {
                newest = Math.max(newest, Long.parseLong(digits));
            }
        }
        return newest;
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (executor != null) {
            executor.shutdownNow();
        }
    }
}
