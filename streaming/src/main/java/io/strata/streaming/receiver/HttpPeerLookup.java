package io.strata.streaming.receiver;

import io.strata.engine.thread.StrataThreads;
import io.strata.streaming.sender.Destination;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@link PeerLookup} through the peers' query API, which a Strata parent and a Netdata 1.37.1
 * parent both answer: {@code GET /host/<machine GUID>/api/v1/charts}, the newest {@code last_entry}
 * of its charts. Plain HTTP only: a {@code :SSL} destination is skipped (its answer would need the
 * stream's TLS trust settings), as are destinations that do not parse. Each peer is asked once, all
 * at the same time, with a short timeout; a peer that does not answer counts as holding nothing.
 */
public final class HttpPeerLookup implements PeerLookup, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(HttpPeerLookup.class);
    private static final Pattern LAST_ENTRY = Pattern.compile("\"last_entry\"\\s*:\\s*(\\d+)");
    /** The answer of one peer is read up to this many bytes (a host of thousands of charts fits). */
    static final int MAX_ANSWER_BYTES = 16 << 20;

    private final Duration timeout;
    private final int defaultPort;
    /** Made at the first lookup: most parents never need one. */
    private ExecutorService executor;
    private HttpClient client;

    public HttpPeerLookup(Duration timeout, int defaultPort) {
        this.timeout = timeout;
        this.defaultPort = defaultPort;
    }

    private synchronized HttpClient client() {
        if (client == null) {
            executor = StrataThreads.newSingleThreadExecutor(r -> StrataThreads.newDaemonThread(r, "strata-peer-lookup"));
            client = HttpClient.newBuilder().executor(executor).connectTimeout(timeout)
                    .followRedirects(HttpClient.Redirect.NEVER).build();
        }
        return client;
    }

    @Override
    public CompletableFuture<Long> newestSecond(String destinations, String machineGuid) {
        List<CompletableFuture<Long>> answers = new ArrayList<>();
        List<Destination> peers;
        try {
            peers = Destination.parseList(destinations, defaultPort);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.completedFuture(-1L);
        }
        for (Destination d : peers) {
            if (d.ssl()) {
                continue;
            }
            String host = d.host().indexOf(':') >= 0 ? "[" + d.host() + "]" : d.host();
            URI uri;
            try {
                uri = URI.create("http://" + host + ":" + d.port() + "/host/" + machineGuid + "/api/v1/charts");
            } catch (IllegalArgumentException e) {
                continue;
            }
            HttpRequest request = HttpRequest.newBuilder(uri).timeout(timeout).GET().build();
            answers.add(client().sendAsync(request, HttpResponse.BodyHandlers.ofString())
                    .thenApply(r -> r.statusCode() == 200 ? newestLastEntry(r.body()) : -1L)
                    .exceptionally(e -> {
                        LOG.debug("asking {} for host {}: {}", uri, machineGuid, e.toString());
                        return -1L;
                    }));
        }
        if (answers.isEmpty()) {
            return CompletableFuture.completedFuture(-1L);
        }
        return CompletableFuture.allOf(answers.toArray(new CompletableFuture<?>[0])).thenApply(v -> {
            long newest = -1;
            for (CompletableFuture<Long> a : answers) {
                newest = Math.max(newest, a.join());
            }
            return newest;
        });
    }

    /** The largest {@code "last_entry": N} of a charts answer, -1 when none. */
    static long newestLastEntry(String body) {
        long newest = -1;
        if (body == null || body.length() > MAX_ANSWER_BYTES) {
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
        if (executor != null) {
            executor.shutdownNow();
        }
    }
}
