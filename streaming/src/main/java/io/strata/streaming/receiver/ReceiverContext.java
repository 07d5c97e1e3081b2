package io.strata.streaming.receiver;

import io.strata.engine.StorageEngine;
import io.strata.streaming.auth.StreamAuthorizer;

import java.util.function.LongSupplier;
import java.time.Instant;
import io.strata.engine.time.Clocks;

/**
 * What every receiver of a node shares: the engine, the authoriser, the live streams, limits and
 * counters, who else hears of what is received ({@code listener}: forwarding), and the gap filling
 * of each stream ({@code replication}: the replication module's planner; none unless wired in).
 */
public record ReceiverContext(StorageEngine engine, StreamAuthorizer authorizer, ReceiverRegistry registry,
                              ReceiverLimits limits, ReceiverStats stats, LongSupplier nowMicros,
                              int receiveTimeoutSeconds, ReceiverParser.FunctionResults functionResults,
                              ReceivedStreamListener listener, ReceiverReplication.Factory replication) {

    /** A receiver that stores only. */
    public ReceiverContext(StorageEngine engine, StreamAuthorizer authorizer, ReceiverRegistry registry,
                           ReceiverLimits limits, ReceiverStats stats, LongSupplier nowMicros,
                           int receiveTimeoutSeconds, ReceiverParser.FunctionResults functionResults) {
        this(engine, authorizer, registry, limits, stats, nowMicros, receiveTimeoutSeconds, functionResults,
                ReceivedStreamListener.NONE, ReceiverReplication.Factory.NONE);
    }

    public ReceiverContext {
        if (listener == null) {
            listener = ReceivedStreamListener.NONE;
        }
        if (replication == null) {
            replication = ReceiverReplication.Factory.NONE;
        }
    }

    /** The same context with another listener. */
    public ReceiverContext withListener(ReceivedStreamListener l) {
        return new ReceiverContext(engine, authorizer, registry, limits, stats, nowMicros, receiveTimeoutSeconds,
                functionResults, l, replication);
    }

    /** The same context with another gap filling. */
    public ReceiverContext withReplication(ReceiverReplication.Factory r) {
        return new ReceiverContext(engine, authorizer, registry, limits, stats, nowMicros, receiveTimeoutSeconds,
                functionResults, listener, r);
    }

    public static LongSupplier wallClockMicros() {
        return () -> {
            Instant i = Clocks.system().instant();
            return i.getEpochSecond() * 1_000_000L + i.getNano() / 1000;
        };
    }
}
