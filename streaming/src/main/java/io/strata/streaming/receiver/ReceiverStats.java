package io.strata.streaming.receiver;

import java.util.concurrent.atomic.LongAdder;

/** Counters shared by every receiver of a node (read by the node's meters). */
public final class ReceiverStats {
    public final LongAdder samplesCollected = new LongAdder();
    public final LongAdder samplesReplayed = new LongAdder();
    public final LongAdder linesParsed = new LongAdder();
    public final LongAdder bytesReceived = new LongAdder();
    /** Bytes of commands written to children (REPLAY_CHART, FUNCTION): ASCII, counted as committed to the channel. */
    public final LongAdder bytesSent = new LongAdder();
    public final LongAdder protocolErrors = new LongAdder();
    public final LongAdder connectionsAccepted = new LongAdder();
    public final LongAdder connectionsRefused = new LongAdder();
    /** Chart definitions refused for {@code max charts per host} (the stream goes on without them). */
    public final LongAdder chartsRefused = new LongAdder();
    /** Dimension definitions refused for {@code max dimensions per host} or the per-chart bound. */
    public final LongAdder dimensionsRefused = new LongAdder();
    /**
     * Slots a child sent neither in the replay answer that started a chart's live stream nor live
     * after it (its first live point came later): the child's loss, counted, not stored.
     */
    public final LongAdder slotsSkippedAtStreamingStart = new LongAdder();
    /** Holes replication answers left behind, kept to be asked again (docs/replication.md, "Holes asked again"). */
    public final LongAdder holesRemembered = new LongAdder();
    /** {@code REPLAY_CHART}s sent for a hole (each attempt). */
    public final LongAdder holesAsked = new LongAdder();
    /** Holes whose answers reached their end. */
    public final LongAdder holesFilled = new LongAdder();
    /** Holes no longer asked: attempts without a point, too old, over the bounds, or their stream ended. */
    public final LongAdder holesGivenUp = new LongAdder();
}
