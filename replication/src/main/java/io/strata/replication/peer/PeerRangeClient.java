package io.strata.replication.peer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.Proxy;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;

/**
 * Asks one peer parent for a past range of a host's chart over plain HTTP:
 * {@code GET /host/<guid>/api/v1/replay_chart?chart=<id>&after=<s>&before=<s>} with
 * {@code Authorization: Bearer <proxy api key>} and {@code Connection: close} (nothing stays open),
 * short connect and read timeouts, the answer read to its end up to {@link #MAX_ANSWER_BYTES}.
 * Blocking: called on the repair's own thread, never on an event loop. Thread-safe (no state).
 */
public final class PeerRangeClient implements HoleRepair.PeerFetch {

    private static final Logger LOG = LoggerFactory.getLogger(PeerRangeClient.class);
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
        HttpURLConnection c = null;
        InputStream in = null;
        try {
            c = (HttpURLConnection) uri.toURL().openConnection(Proxy.NO_PROXY);
            c.setConnectTimeout(timeoutMillis);
            c.setReadTimeout(timeoutMillis);
            c.setInstanceFollowRedirects(false);
            c.setUseCaches(false);
            c.setRequestProperty("Connection", "close");
            c.setRequestProperty("Authorization", "Bearer " + peer.apiKey());
            int status = c.getResponseCode();
            // read to its end, a refusal too, and disconnect before closing (HttpPeerLookup: else the
            // JDK's keep-alive cache keeps the socket open after the answer)
            in = status >= 400 ? c.getErrorStream() : c.getInputStream();
            byte[] body = in == null ? new byte[0] : in.readNBytes(MAX_ANSWER_BYTES + 1);
            if (body.length > MAX_ANSWER_BYTES) {
                throw new IOException("answer of " + uri + " is larger than " + MAX_ANSWER_BYTES + " bytes");
            }
            return new HoleRepair.PeerAnswer(status, body, body.length);
        } finally {
            if (c != null) {
                c.disconnect();
            }
            if (in != null) {
                try {
                    in.close();
                } catch (IOException e) {
                    LOG.debug("closing the answer of {}: {}", uri, e.toString());
                }
            }
        }
    }
}
