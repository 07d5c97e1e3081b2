package io.strata.streaming.receiver;

import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.HostInfo;
import io.strata.engine.page.StorageNumber;
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
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code SET} lines in the shape senders write ({@code SET "<dim>" = <value>}) are split without
 * the general tokenizer; every other spelling goes through it. Both must mean the same: each case
 * here is one collected value spelled one way, collected a few seconds in a row, and the newest
 * stored point is compared with what the line means.
 */
class SetFastPathTest {

    @TempDir
    Path dir;

    private static final long T = 1_700_000_000L;

    /** line → the newest stored point of dimension "user" ("gap" when the line collects nothing). */
    private static final String[][] CASES = {
            {"SET \"user\" = 5", "5.0"},
            {"SET \"user\" = -7", "-7.0"},
            {"SET \"user\" = 0x10", "16.0"},
            {"SET \"user\" = 12\r", "12.0"},
            {"SET \"user\"\t=\t9", "9.0"},
            {"SET \"user\"=11", "11.0"},
            {"SET \"user\" 13", "13.0"},
            {"SET \"user\" = 1234567890123", "1.2345679E12"}, // as a storage number keeps it
            // the general tokenizer's shapes: still the same meaning
            {"SET user = 5", "5.0"},
            {"SET 'user' = 6", "6.0"},
            {"SET \"user\" = \"8\"", "8.0"},
            {"SET \"user\" = 4 extra", "4.0"},
            {"SET \"user\" = 3\u0000ignored", "3.0"},
            {"SET \"user\" = 2'", "2.0"},
            {"SET \"us\\er\" = 2", "error"},
            {"SET \"user\"x = 3", "0.0"},
            {"SET \"user\" = ", "gap"},
            {"SET \"user\"", "gap"},
    };

    @Test
    void everySpellingOfACollectedValueStoresWhatItMeans() throws Exception {
        for (int i = 0; i < CASES.length; i++) {
            String line = CASES[i][0];
            try (StorageEngine engine = StorageEngine.open(EngineConfig.defaults(dir.resolve("c" + i)))) {
                long[] clock = {T * 1_000_000L};
                ReceiverParser p = parser(engine, clock);
                feed(p, "CHART system.cpu '' 'CPU' '%' cpu system.cpu line 100 1 '' '' ''\n"
                        + "DIMENSION user user absolute 1 1 ''\n"
                        + "DIMENSION system system absolute 1 1 ''");
                String got;
                try {
                    for (int k = 0; k < 4; k++) {
                        clock[0] += 1_000_000L;
                        feed(p, "BEGIN system.cpu 1000000\nSET system = 1");
                        byte[] b = line.getBytes(StandardCharsets.UTF_8);
                        p.line(b, 0, b.length);
                        feed(p, "END");
                    }
                    got = newest(engine);
                } catch (StreamProtocolException e) {
                    assertTrue(e.getMessage().contains("SET of a dimension that was not defined"), e.getMessage());
                    got = "error";
                }
                assertEquals(CASES[i][1], got, "line: " + line.replace("\u0000", "\\0"));
            }
        }
    }

    @Test
    void errorsAreTheGeneralPathsErrors() throws Exception {
        try (StorageEngine engine = StorageEngine.open(EngineConfig.defaults(dir))) {
            ReceiverParser p = parser(engine, new long[] {T * 1_000_000L});
            feed(p, "CHART system.cpu '' 'CPU' '%' cpu system.cpu line 100 1 '' '' ''\n"
                    + "DIMENSION user user absolute 1 1 ''");
            StreamProtocolException outside = assertThrows(StreamProtocolException.class,
                    () -> feed(p, "SET \"user\" = 1"));
            assertTrue(outside.getMessage().contains("SET outside BEGIN/END"), outside.getMessage());
            feed(p, "BEGIN system.cpu");
            StreamProtocolException unknown = assertThrows(StreamProtocolException.class,
                    () -> feed(p, "SET \"nice\" = 1"));
            assertTrue(unknown.getMessage().contains("SET of a dimension that was not defined"), unknown.getMessage());
            assertTrue(unknown.getMessage().contains("SET \"nice\" = 1"), unknown.getMessage());
        }
    }

    private String newest(StorageEngine engine) throws IOException {
        var meta = engine.metadata();
        int chart = meta.chartId(meta.host(meta.hosts().size() - 1).machineGuid(), "system.cpu");
        int metric = meta.metrics(chart).get(0);
        List<String> points = new ArrayList<>();
        engine.queryTier0(metric, T - 5, T + 10, (time, sn) -> points.add(StorageNumber.isEmpty(sn) ? "gap"
                : String.valueOf(StorageNumber.unpack(sn))));
        assertTrue(points.size() >= 2, "points stored: " + points);
        return points.get(points.size() - 1);
    }

    /** A parser storing into {@code engine}, its clock read from {@code clock[0]} (also for {@link CollectionFastPathTest}). */
    static ReceiverParser parser(StorageEngine engine, long[] clock) {
        HostInfo host = new HostInfo(UUID.randomUUID(), "child", "linux", "UTC", 1, null);
        return new ReceiverParser(engine, host, line -> { }, ReceiverReplication.NONE, false,
                ReceiverLimits.DEFAULTS, new ReceiverStats(), () -> clock[0], null);
    }

    static void feed(ReceiverParser p, String lines) throws StreamProtocolException {
        for (String l : lines.split("\n")) {
            byte[] b = l.getBytes(StandardCharsets.UTF_8);
            p.line(b, 0, b.length);
        }
    }
}
