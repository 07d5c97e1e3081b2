package io.strata.streaming.receiver;

import io.strata.streaming.wire.StreamProtocolException;

/**
 * Not a fault of the sender: the receiver ends the stream on purpose before storing what follows a
 * hole in the host's replay answer, so that the host reaches this parent through a peer that may
 * hold the hole ({@link PeerHandOver}). Logged at INFO, not counted as a protocol error.
 */
final class StreamHandedOverException extends StreamProtocolException {
    private static final long serialVersionUID = 1L;

    StreamHandedOverException(String message) {
        super(message);
    }
}
