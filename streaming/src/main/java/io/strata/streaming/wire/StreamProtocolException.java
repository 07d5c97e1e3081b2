package io.strata.streaming.wire;

import java.io.IOException;

/**
 * A peer sent bytes that break the Netdata streaming protocol (bad LZ4 framing, a corrupt block, an
 * over-long line, a malformed command...). The connection that produced it cannot be trusted any more:
 * the usual reaction is to log the message and close it, as Netdata does.
 */
public class StreamProtocolException extends IOException {
    private static final long serialVersionUID = 1L;

    public StreamProtocolException(String message) {
        super(message);
    }

    public StreamProtocolException(String message, Throwable cause) {
        super(message, cause);
    }
}
