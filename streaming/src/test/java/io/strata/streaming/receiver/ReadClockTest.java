package io.strata.streaming.receiver;

import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.HostInfo;
import io.strata.streaming.wire.StreamProtocolException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.UUID;
import java.util.function.LongSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The wall clock of {@code BEGIN} and {@code END}: read once for a socket read
 * ({@link ReceiverParser#readStarted()} … {@link ReceiverParser#readEnded()}), at each of them for
 * lines given outside a read.
 */
class ReadClockTest {

    private static final UUID GUID = UUID.fromString("5f3c1d2e-7a4b-4c6d-9e8f-0a1b2c3d4e5f");
    private static final long T0 = 1_700_000_000L;

    @TempDir
    Path dir;

    /** The clock the parser reads: counts the readings, moves a millisecond at each. */
    private static final class CountingClock implements LongSupplier {
        long micros = T0 * 1_000_000L;
        int readings;

        @Override
        public long getAsLong() {
            readings++;
            micros += 1_000;
            return micros;
        }
    }

    private static String definitions(int charts) {
        StringBuilder s = new StringBuilder();
        for (int c = 0; c < charts; c++) {
            s.append("CHART \"clk.c").append(c).append("\" \"\" \"t\" \"u\" \"f\" \"clk.ctx\" \"line\" 1 1 \"\" \"p\" \"m\"\n")
                    .append("DIMENSION \"d0\" \"d0\" \"absolute\" 1 1 \"\"\n")
                    .append("DIMENSION \"d1\" \"d1\" \"absolute\" 1 1 \"\"\n");
        }
        return s.toString();
    }

    private static String collection(int charts, long value) {
        StringBuilder s = new StringBuilder();
        for (int c = 0; c < charts; c++) {
            s.append("BEGIN \"clk.c").append(c).append("\" 1000000\n")
                    .append("SET \"d0\" = ").append(value).append('\n')
                    .append("SET \"d1\" = ").append(value + 1).append('\n')
                    .append("END\n");
        }
        return s.toString();
    }

    private static void feed(ReceiverParser p, String lines) throws StreamProtocolException {
        for (String l : lines.split("\n")) {
            byte[] b = l.getBytes(StandardCharsets.UTF_8);
            p.line(b, 0, b.length);
        }
    }

    private static ReceiverParser parser(StorageEngine engine, ReceiverStats stats, LongSupplier clock) {
        HostInfo host = new HostInfo(GUID, "clk", "linux", "UTC", 1, null);
        return new ReceiverParser(engine, host, line -> { }, ReceiverReplication.NONE, false,
                ReceiverLimits.DEFAULTS, stats, clock, null);
    }

    @Test
    void beginAndEndOfOneReadShareOneReading() throws IOException, StreamProtocolException {
        try (StorageEngine engine = StorageEngine.open(EngineConfig.defaults(dir))) {
            CountingClock clock = new CountingClock();
            ReceiverStats stats = new ReceiverStats();
            ReceiverParser p = parser(engine, stats, clock);
            feed(p, definitions(5));
            int before = clock.readings;
            for (int second = 1; second <= 4; second++) {
                p.readStarted();
                try {
                    feed(p, collection(5, second));
                } finally {
                    p.readEnded();
                }
                assertEquals(before + second, clock.readings, "one reading for read " + second);
            }
            assertEquals(4 * 5 * 2, stats.samplesCollected.sum());
        }
    }

    @Test
    void linesOutsideAReadReadTheClockAtEachBeginAndEnd() throws IOException, StreamProtocolException {
        try (StorageEngine engine = StorageEngine.open(EngineConfig.defaults(dir))) {
            CountingClock clock = new CountingClock();
            ReceiverStats stats = new ReceiverStats();
            ReceiverParser p = parser(engine, stats, clock);
            feed(p, definitions(3));
            int before = clock.readings;
            feed(p, collection(3, 7));
            assertEquals(before + 3 * 2, clock.readings);
            // a read that ended leaves no reading behind for the lines after it
            p.readStarted();
            p.readEnded();
            feed(p, collection(3, 8));
            assertEquals(before + 2 * 3 * 2, clock.readings);
        }
    }
}
