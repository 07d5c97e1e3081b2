package io.strata.streaming.handshake;

/** A {@code STREAM} request that cannot be read; the message says what is wrong and where. */
public final class StreamRequestException extends Exception {

    private static final long serialVersionUID = 1L;

    public StreamRequestException(String message) {
        super(message);
    }
}
