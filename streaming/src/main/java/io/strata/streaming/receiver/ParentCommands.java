package io.strata.streaming.receiver;

/** The parent→child direction of a stream: plain text command lines ({@code REPLAY_CHART}, {@code FUNCTION}). */
public interface ParentCommands {
    void send(String line);

    /**
     * False while the child does not take what was sent (its channel is not writable): replication
     * requests then wait, one per chart, until {@link ReceiverParser#sendDeferredRequests()}.
     */
    default boolean writable() {
        return true;
    }
}
