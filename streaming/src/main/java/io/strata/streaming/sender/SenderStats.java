package io.strata.streaming.sender;

import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of every stream sender of the process (a child's own stream and each forwarder's),
 * read by the node's meters. {@link SenderSession} counts per connection and forgets on reconnect;
 * these keep counting. One instance per process because senders are built in several places (the
 * child, each forwarded host) that share no node object; a JVM running several nodes (tests)
 * sums them.
 */
public final class SenderStats {

    /** The process's senders. */
    public static final SenderStats PROCESS = new SenderStats();

    /** Bytes of committed blocks the socket took (before compression and TLS), added once per block. */
    public final LongAdder bytesSent = new LongAdder();
    /** Blocks (atomic writes: a chart's collection, a replication answer) the socket took. */
    public final LongAdder blocksSent = new LongAdder();

    SenderStats() {
    }

    void count(int blockBytes) {
        bytesSent.add(blockBytes);
        blocksSent.increment();
    }
}
