package io.strata.streaming.receiver;

import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.HostInfo;
import io.strata.engine.meta.MetadataStore;
import io.strata.engine.page.StorageNumber;
import io.strata.engine.query.QueryResult;
import io.strata.streaming.wire.StreamProtocolException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A replication answer for a hole behind points the parent stored after it (a peer's copy, or the
 * child asked again) is stored: its points go to the engine's past path where the chart holds no
 * value, and read back in order with the newer points, also after a restart; a point the chart
 * holds keeps its stored value.
 */
class ReplayBehindNewerPointsTest {

    private static final UUID GUID = UUID.fromString("0c2a4a8e-5f6b-4c59-9d7e-2b5f0e4d1a77");
    /** A multiple of 3600: tier windows start here. */
    private static final long T = 1_700_002_800L + 7200;

    private static final String DEFINITION = "CHART system.cpu '' 'CPU' '%' cpu system.cpu line 100 1 '' '' ''\n"
            + "DIMENSION user user absolute 1 1 ''\n";

    /** The value of second {@code t} in the child's history (exact in a storage number). */
    private static double value(long t) {
        return (t % 1000) / 4.0;
    }

    /** A replication answer for {@code [from, to]} with every second; {@code override} replaces the value at one second. */
    private static String answer(long from, long to, boolean startStreaming, long overrideAt, double override) {
        StringBuilder b = new StringBuilder("RBEGIN 'system.cpu'\n");
        for (long t = from; t <= to; t++) {
            double v = t == overrideAt ? override : value(t);
            b.append("RBEGIN '' ").append(t - 1).append(' ').append(t).append(' ').append(T).append('\n')
                    .append("RSET \"user\" ").append(v).append(" \"\"\n");
        }
        b.append("REND 1 ").append(T - 3000).append(' ').append(T).append(' ').append(startStreaming).append(' ')
                .append(from).append(' ').append(to).append(' ').append(T).append('\n');
        return b.toString();
    }

    @Test
    void anAnswerForAHoleBehindNewerPointsIsStoredAndReadInOrder(@TempDir Path dir) throws Exception {
        EngineConfig cfg = EngineConfig.defaults(dir);
        int metric;
        try (StorageEngine engine = StorageEngine.open(cfg)) {
            ReceiverParser p = parser(engine);
            // the parent stored T-3000..T-2001 and T-1000..T: the seconds between are missing
            feed(p, DEFINITION + answer(T - 3000, T - 2001, false, 0, 0));
            engine.flush();
            feed(p, answer(T - 1000, T, true, 0, 0));
            metric = metric(engine);
            assertEquals(T, engine.registry().lastTime(metric, 0));
            assertEquals(2001, values(engine, metric).size(), "the hole is not stored yet");

            // a peer's copy of the hole, which also covers T-1000 with another value
            feed(p, answer(T - 2000, T - 1000, false, T - 1000, 12345.0));
            // stored on the engine's past-writer thread, never on the receiver's: flush waits for it
            engine.flush();

            List<String> want = expected();
            assertSame(want, values(engine, metric), "the hole is stored, T-1000 keeps its value");
            assertEquals(1000, engine.pastPointsStored(), "stored by the past path");
            assertEquals(1, engine.pastPointsHeld(), "T-1000 was held");
            assertTrue(engine.tierWindowsRebuilt() > 0, "tier windows over the hole rebuilt");
            assertSame(want, values(engine, metric), "from disk");
        }
        try (StorageEngine engine = StorageEngine.open(cfg)) {
            assertSame(expected(), values(engine, metric), "after a restart");
            // the tier-1 points over the hole have their 60 values each
            long[] counts = new long[1];
            long[] windows = new long[1];
            QueryResult r = engine.query(metric, 1, T - 1980, T - 1020, 16, (time, sum, min, max, count, anomalies) -> {
                counts[0] += count;
                windows[0]++;
            });
            assertEquals(1, r.segments().get(0).tier(), r::toString);
            assertEquals(16, windows[0]);
            assertEquals(960, counts[0], "tier 1 sees every second of the filled hole");
        }
    }

    @Test
    void pointsOfAnAnswerCutOffBeforeItsEndAreStoredWhenTheStreamEnds(@TempDir Path dir) throws Exception {
        try (StorageEngine engine = StorageEngine.open(EngineConfig.defaults(dir))) {
            ReceiverParser p = parser(engine);
            feed(p, DEFINITION + answer(T - 3000, T - 2001, false, 0, 0));
            engine.flush();
            feed(p, answer(T - 1000, T, true, 0, 0));
            int metric = metric(engine);
            // a peer's copy of the hole whose connection ends before its REND
            String cut = answer(T - 2000, T - 1001, false, 0, 0);
            feed(p, cut.substring(0, cut.lastIndexOf("REND")));
            p.streamEnded();
            engine.flush();
            assertSame(expected(), values(engine, metric), "the points received before the stream ended are stored");
        }
    }

    /** Equal lists, or a failure that names the first difference and the counts (not 3 000 points). */
    private static void assertSame(List<String> want, List<String> got, String what) {
        for (int i = 0; i < Math.min(want.size(), got.size()); i++) {
            assertEquals(want.get(i), got.get(i), what + ": point " + i + " of " + want.size() + " expected, "
                    + got.size() + " stored");
        }
        assertEquals(want.size(), got.size(), what + ": points");
    }

    private static List<String> expected() {
        List<String> want = new ArrayList<>();
        for (long t = T - 3000; t <= T; t++) {
            want.add(t + "=" + StorageNumber.unpack(StorageNumber.pack(value(t), StorageNumber.SN_DEFAULT_FLAGS)));
        }
        return want;
    }

    private static int metric(StorageEngine engine) {
        MetadataStore meta = engine.metadata();
        return meta.metrics(meta.chartId(GUID, "system.cpu")).get(0);
    }

    /** The stored values of {@code metric} over the answers' range (gaps left out). */
    private static List<String> values(StorageEngine engine, int metric) throws IOException {
        List<String> out = new ArrayList<>();
        engine.queryTier0(metric, T - 3000, T, (time, sn) -> {
            if (!StorageNumber.isEmpty(sn)) {
                out.add(time + "=" + StorageNumber.unpack(sn));
            }
        });
        return out;
    }

    private static ReceiverParser parser(StorageEngine engine) {
        HostInfo host = new HostInfo(GUID, "child", "linux", "UTC", 1, null);
        return new ReceiverParser(engine, host, line -> { }, ReceiverReplication.NONE, true,
                ReceiverLimits.DEFAULTS, new ReceiverStats(), () -> (T + 1) * 1_000_000L, null);
    }

    private static void feed(ReceiverParser p, String lines) throws StreamProtocolException {
        for (String l : lines.split("\n")) {
            byte[] b = l.getBytes(StandardCharsets.UTF_8);
            p.line(b, 0, b.length);
        }
    }
}
