package io.strata.streaming.receiver;

/** The parent→child direction of a stream: plain text command lines ({@code REPLAY_CHART}, {@code FUNCTION}). */
public interface ParentCommands {
    void send(String line);
}
