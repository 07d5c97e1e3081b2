package io.strata.streaming.server;

import io.netty.channel.ChannelPipeline;
import java.util.Set;

/**
 * Builds the HTTP side of the node's one port. The streaming module knows nothing of HTTP: the
 * query API hands this in, and it is called for every connection that is not a {@code STREAM}.
 */
@FunctionalInterface
public interface HttpPipelineInstaller {

    /**
     * What the port decided about an HTTP connection before its first request.
     *
     * @param permissions                what the client may do ({@code bind to} modes and {@code allow ... from})
     * @param tls                        whether the connection is TLS
     * @param redirectToTls              plain text on a {@code ^SSL=force} listener: answer with a redirect
     * @param firstRequestTimeoutSeconds {@code [web] timeout for first request}: the first request must be
     *                                   whole within it
     * @param handshakeDone              to call once the first request is whole: the connection then stops
     *                                   counting against {@code max handshakes in progress}
     */
    record HttpConnection(Set<WebPermission> permissions, boolean tls, boolean redirectToTls,
                          int firstRequestTimeoutSeconds, Runnable handshakeDone) {
        public HttpConnection {
            permissions = Set.copyOf(permissions);
            if (handshakeDone == null) {
                handshakeDone = () -> { };
            }
        }

        /** Everything allowed, plain text, the default deadline. */
        public static HttpConnection unrestricted() {
            return new HttpConnection(WebPermission.all(), false, false,
                    ServerLimits.DEFAULT_FIRST_REQUEST_TIMEOUT_SECONDS, null);
        }
    }

    /** Adds the HTTP handlers at the end of {@code pipeline}. */
    void install(ChannelPipeline pipeline, HttpConnection connection);
}
