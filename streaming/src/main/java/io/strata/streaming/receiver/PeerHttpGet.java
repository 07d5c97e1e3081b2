package io.strata.streaming.receiver;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.Proxy;
import java.net.URI;
import java.util.Map;

/**
 * One plain-HTTP {@code GET} of a peer parent that leaves no connection open: no proxy, no
 * redirects, {@code Connection: close}, connect and read timeouts, the answer (a refusal's text
 * too) read to its end up to a bound, and the connection disconnected before its stream is closed.
 * Both orders matter with the JDK's client: an answer left unread is drained by its keep-alive
 * cleaner, and a stream read to its end and closed first hands its socket to the keep-alive cache;
 * either keeps the socket open for seconds after the answer, whatever the Connection header said.
 * Blocking: for the peers' own threads, never an event loop.
 */
public final class PeerHttpGet {

    private static final Logger LOG = LoggerFactory.getLogger(PeerHttpGet.class);

    /** A peer's answer: its status and its body, whole. */
    public record Answer(int status, byte[] body) {
    }

    /** An answer longer than the caller's bound (not read further). */
    public static final class AnswerTooLargeException extends IOException {
        private static final long serialVersionUID = 1L;

        AnswerTooLargeException(String message) {
            super(message);
        }
    }

    private PeerHttpGet() {
    }

    /**
     * Gets {@code uri} with {@code headers}; an answer longer than {@code maxBytes} is an
     * {@link AnswerTooLargeException}.
     */
    public static Answer get(URI uri, int timeoutMillis, int maxBytes, Map<String, String> headers)
            throws IOException {
        HttpURLConnection c = null;
        InputStream in = null;
        try {
            c = (HttpURLConnection) uri.toURL().openConnection(Proxy.NO_PROXY);
            c.setConnectTimeout(timeoutMillis);
            c.setReadTimeout(timeoutMillis);
            c.setInstanceFollowRedirects(false);
            c.setUseCaches(false);
            c.setRequestProperty("Connection", "close");
            for (Map.Entry<String, String> h : headers.entrySet()) {
                c.setRequestProperty(h.getKey(), h.getValue());
            }
            int status = c.getResponseCode();
            in = status >= 400 ? c.getErrorStream() : c.getInputStream();
            byte[] body = in == null ? new byte[0] : in.readNBytes(maxBytes + 1);
            if (body.length > maxBytes) {
                throw new AnswerTooLargeException("answer of " + uri + " is larger than " + maxBytes + " bytes");
            }
            return new Answer(status, body);
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
