package io.strata.streaming.receiver;

import io.strata.engine.StorageEngine;
import io.strata.streaming.auth.StreamAuthorizer;

import java.util.function.LongSupplier;

/** What every receiver of a node shares: the engine, the authoriser, the live streams, limits and counters. */
public record ReceiverContext(StorageEngine engine, StreamAuthorizer authorizer, ReceiverRegistry registry,
                              ReceiverLimits limits, ReceiverStats stats, LongSupplier nowMicros,
                              int receiveTimeoutSeconds, ReceiverParser.FunctionResults functionResults) {

    public static LongSupplier wallClockMicros() {
        return () -> {
            java.time.Instant i = java.time.Instant.now();
            return i.getEpochSecond() * 1_000_000L + i.getNano() / 1000;
        };
    }
}
