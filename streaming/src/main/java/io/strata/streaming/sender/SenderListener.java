package io.strata.streaming.sender;

/**
 * What the integrator does with a connection. All calls come from the sender's own connection
 * thread, one at a time and in order, never from a Netty event loop: they may block (reading the
 * engine to answer a replication request, for example).
 */
public interface SenderListener {

    /**
     * The parent accepted the stream and the pipeline is ready (compression installed when
     * negotiated). Send everything from scratch: host preamble, every chart definition.
     */
    void onConnected(SenderSession session, long capabilities);

    /**
     * One line the parent sent ({@code REPLAY_CHART ...}, {@code FUNCTION ...}), without its
     * newline. The array is the listener's to keep.
     */
    void onParentCommand(SenderSession session, byte[] line, int length);

    /** The connection ended; the sender reconnects right away. Pending replication requests are void. */
    void onDisconnected(String reason);
}
