package io.strata.streaming.receiver;

import io.strata.engine.StorageEngine;
import io.strata.streaming.auth.StreamAuthorizer;

import java.util.function.LongSupplier;

/**
 * What every receiver of a node shares: the engine, the authoriser, the live streams, limits and
 * counters, and who else hears of what is received ({@code listener}: forwarding).
 */
public record ReceiverContext(StorageEngine engine, StreamAuthorizer authorizer, ReceiverRegistry registry,
                              ReceiverLimits limits, ReceiverStats stats, LongSupplier nowMicros,
                              int receiveTimeoutSeconds, ReceiverParser.FunctionResults functionResults,
                              ReceivedStreamListener listener) {

    /** A receiver that stores only. */
    public ReceiverContext(StorageEngine engine, StreamAuthorizer authorizer, ReceiverRegistry registry,
                           ReceiverLimits limits, ReceiverStats stats, LongSupplier nowMicros,
                           int receiveTimeoutSeconds, ReceiverParser.FunctionResults functionResults) {
        this(engine, authorizer, registry, limits, stats, nowMicros, receiveTimeoutSeconds, functionResults,
                ReceivedStreamListener.NONE);
    }

    public ReceiverContext {
        if (listener == null) {
            listener = ReceivedStreamListener.NONE;
        }
    }

    /** The same context with another listener. */
    public ReceiverContext withListener(ReceivedStreamListener l) {
        return new ReceiverContext(engine, authorizer, registry, limits, stats, nowMicros, receiveTimeoutSeconds,
                functionResults, l);
    }

    public static LongSupplier wallClockMicros() {
        return () -> {
            java.time.Instant i = java.time.Instant.now();
            return i.getEpochSecond() * 1_000_000L + i.getNano() / 1000;
        };
    }
}
