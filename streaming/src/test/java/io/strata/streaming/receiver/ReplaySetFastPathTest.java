package io.strata.streaming.receiver;

import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.HostInfo;
import io.strata.engine.page.StorageNumber;
import io.strata.streaming.wire.StreamProtocolException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code RSET} lines in the shape senders write are split without the general tokenizer; every
 * other spelling goes through it. Both must store the same: each case here is one replicated point
 * spelled one way, and the stored value and flags are compared with what the line means.
 */
class ReplaySetFastPathTest {

    @TempDir
    Path dir;

    private static final long T = 1_700_000_000L;

    /** line → expected stored point ("value" or "value R" for a reset, "gap" for an empty slot). */
    private static final String[][] CASES = {
            {"RSET \"user\" 5.2500000 \"\"", "5.25"},
            {"RSET \"user\" 5.2500000 \"R\"", "5.25 R"},
            {"RSET \"user\" NAN \"E\"", "gap"},
            {"RSET \"user\" = 7 \"\"", "7.0"},
            {"RSET \"user\" -3.5", "-3.5"},
            {"RSET \"user\"\t12\t\"\"\r", "12.0"},
            {"RSET \"user\"9 \"\"", "9.0"},
            // the general tokenizer's shapes: still the same meaning
            {"RSET user 5 ''", "5.0"},
            {"RSET 'user' 6 \"R\"", "6.0 R"},
            {"RSET \"user\" \"8\" \"\"", "8.0"},
            {"RSET \"user\" 4 \"\" extra", "4.0"},
            {"RSET \"user\" 3 R", "3.0 R"},
            {"RSET \"user\" 2 \"\"\u0000ignored", "2.0"},
    };

    @Test
    void everySpellingOfAReplicatedPointStoresWhatItMeans() throws Exception {
        for (int i = 0; i < CASES.length; i++) {
            String line = CASES[i][0];
            try (StorageEngine engine = StorageEngine.open(EngineConfig.defaults(dir.resolve("c" + i)))) {
                ReceiverParser p = parser(engine);
                feed(p, "CHART system.cpu '' 'CPU' '%' cpu system.cpu line 100 1 '' '' ''\n"
                        + "DIMENSION user user absolute 1 1 ''\n"
                        + "CHART_DEFINITION_END " + (T - 10) + " " + T + " " + T + "\n"
                        + "RBEGIN '' " + (T - 1) + " " + T + " " + T);
                byte[] b = line.getBytes(StandardCharsets.UTF_8);
                p.line(b, 0, b.length);
                assertEquals(CASES[i][1], stored(engine), "line: " + line.replace("\u0000", "\\0"));
            }
        }
    }

    @Test
    void errorsAreTheGeneralPathsErrors() throws Exception {
        try (StorageEngine engine = StorageEngine.open(EngineConfig.defaults(dir))) {
            ReceiverParser p = parser(engine);
            StreamProtocolException noChart = assertThrows(StreamProtocolException.class,
                    () -> feed(p, "RSET \"user\" 1 \"\""));
            assertTrue(noChart.getMessage().contains("RSET without RBEGIN"), noChart.getMessage());
            feed(p, "CHART system.cpu '' 'CPU' '%' cpu system.cpu line 100 1 '' '' ''\n"
                    + "DIMENSION user user absolute 1 1 ''\n"
                    + "RBEGIN '' " + (T - 1) + " " + T + " " + T);
            StreamProtocolException unknown = assertThrows(StreamProtocolException.class,
                    () -> feed(p, "RSET \"nice\" 1 \"\""));
            assertTrue(unknown.getMessage().contains("RSET of a dimension that was not defined"), unknown.getMessage());
            StreamProtocolException noValue = assertThrows(StreamProtocolException.class,
                    () -> feed(p, "RSET \"user\""));
            assertTrue(noValue.getMessage().contains("RSET needs a dimension and a value"), noValue.getMessage());
        }
    }

    private String stored(StorageEngine engine) throws java.io.IOException {
        var meta = engine.metadata();
        int metric = meta.metrics(meta.chartId(meta.host(meta.hosts().size() - 1).machineGuid(), "system.cpu")).get(0);
        List<String> points = new ArrayList<>();
        engine.queryTier0(metric, T - 5, T + 5, (time, sn) -> {
            assertEquals(T, time);
            points.add(StorageNumber.isEmpty(sn) ? "gap" : StorageNumber.unpack(sn)
                    + ((sn & StorageNumber.SN_FLAG_RESET) != 0 ? " R" : ""));
        });
        return String.join(",", points);
    }

    private static ReceiverParser parser(StorageEngine engine) {
        HostInfo host = new HostInfo(UUID.randomUUID(), "child", "linux", "UTC", 1, null);
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
