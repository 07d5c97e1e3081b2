package io.strata.replication.peer;

import io.strata.streaming.receiver.PeerHttpGet;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;

/**
 * Asks one peer parent for a past range of a host's chart over plain HTTP:
 * {@code GET /host/<guid>/api/v1/replay_chart?chart=<id>&after=<s>&before=<s>} with
 * {@code Authorization: Bearer <proxy api key>} and {@code Connection: close} (nothing stays open),
 * short connect and read timeouts, the answer read to its end up to {@link #MAX_ANSWER_BYTES}
 * ({@link PeerHttpGet}).
 * Blocking: called on the repair's own thread, never on an event loop. Thread-safe (no state).
 */
public final class PeerRangeClient implements HoleRepair.PeerFetch {

    /** An answer of {@code PastRangeAnswer.MAX_VALUES} values is about 8 MiB; anything past this is refused. */
    static final int MAX_ANSWER_BYTES = 16 << 20;

    private final int timeoutMillis;

    public PeerRangeClient(Duration timeout) {
        this.timeoutMillis = (int) Math.min(Integer.MAX_VALUE, Math.max(1, timeout.toMillis()));
    }

    @Override
    public HoleRepair.PeerAnswer fetch(HoleRepair.Peer peer, UUID host, String chartId, long after, long before)
            throws IOException {
        String h = peer.host().indexOf(':') >= 0 ? "[" + peer.host() + "]" : peer.host();
        URI uri = URI.create("http://" + h + ":" + peer.port() + "/host/" + host + "/api/v1/replay_chart?chart="
                + URLEncoder.encode(chartId, StandardCharsets.UTF_8) + "&after=" + after + "&before=" + before);
        PeerHttpGet.Answer a = PeerHttpGet.get(uri, timeoutMillis, MAX_ANSWER_BYTES,
                Map.of("Authorization", "Bearer " + peer.apiKey()));
        return new HoleRepair.PeerAnswer(a.status(), a.body(), a.body().length);
    }
}
