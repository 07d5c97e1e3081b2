package io.strata.streaming.receiver;

import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.MetadataStore;
import io.strata.engine.page.StorageNumber;
import io.strata.streaming.wire.StreamProtocolException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The receiver reads {@code BEGIN "<chart>" <usec>}, {@code SET "<dim>" = <value>} and {@code END}
 * in the shapes senders write them without the general tokenizer, their numbers in the same pass,
 * and finds a SET's dimension by its position first. Each case here is the same stream spelled
 * both ways (quoted words take the short paths, unquoted ones the general one): what the engine
 * stores must be the same, point for point.
 */
class CollectionFastPathTest {

    @TempDir
    Path dir;

    private static final long T = 1_700_000_000L;
    private int runs;

    /** Value spellings: decimal, octal, hex, signs, garbage after digits, 18 to 20 digits. */
    private static final String[] VALUES = {
            "0", "00", "007", "018", "5", "-5", "+5", "1e3", "12abc", "9", "123456789012345678",
            "1234567890123456789", "9223372036854775807", "9223372036854775808", "99999999999999999999",
            "0x1F", "0X", "-0", "100000000000000000",
            // eight digits at a time, and what stops them
            "12345678", "123456789", "1234567a9", "12345678x", "1234567812345678", "12345:78", "12345/78901",
            "98765432109876543", "12345678\r", "87654321 ", "1099511627776",
    };

    /** BEGIN durations: usual, none, negative, other bases, garbage, huge. */
    private static final String[] DURATIONS = {
            "1000000", "", "0", "-5", "+1000000", "0xF4240", "03641100", "1000000abc", "999999", "2000000",
            "999999999999999999", "9999999999999999999",
    };

    @Test
    void aValueSpelledForTheShortPathStoresWhatTheGeneralPathStores() throws Exception {
        for (String v : VALUES) {
            List<String> fast = run(List.of(v), true);
            List<String> general = run(List.of(v), false);
            assertEquals(general, fast, "value " + v);
            assertTrue(fast.size() >= 8, "points stored for " + v + ": " + fast);
        }
    }

    @Test
    void eightDigitsAtOnceAreTheirValue() {
        SplittableRandom rnd = new SplittableRandom(8);
        for (int k = 0; k < 100_000; k++) {
            String digits = String.format("%08d", rnd.nextInt(100_000_000));
            byte[] b = digits.getBytes(StandardCharsets.US_ASCII);
            long w = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getLong();
            assertEquals(Long.parseLong(digits), ReceiverParser.eightDigits(w), digits);
        }
    }

    @Test
    void aBeginSpelledForTheShortPathCollectsAsTheGeneralPathDoes() throws Exception {
        for (String d : DURATIONS) {
            List<String> fast = runBegin(d, true);
            List<String> general = runBegin(d, false);
            assertEquals(general, fast, "BEGIN duration '" + d + "'");
        }
    }

    @Test
    void dimensionsSentInAnyOrderOrLateFindTheirOwnValues() throws Exception {
        String longId = "x".repeat(300);
        try (StorageEngine engine = StorageEngine.open(EngineConfig.defaults(dir.resolve("order")))) {
            long[] clock = {T * 1_000_000L};
            ReceiverParser p = SetFastPathTest.parser(engine, clock);
            SetFastPathTest.feed(p, "CHART system.cpu '' 'CPU' '%' cpu system.cpu line 100 1 '' '' ''\n"
                    + "DIMENSION a a absolute 1 1 ''\n"
                    + "DIMENSION '" + longId + "' l absolute 1 1 ''\n"
                    + "DIMENSION b b absolute 1 1 ''");
            String[][] orders = {
                    {"a", longId, "b"}, {"b", longId, "a"}, {longId, "a", "b"}, {"a", "b"}, {"b", "b", "a", longId},
            };
            for (int k = 0; k < 12; k++) {
                if (k == 6) {
                    SetFastPathTest.feed(p, "DIMENSION c c absolute 1 1 ''");
                }
                clock[0] += 1_000_000L;
                StringBuilder s = new StringBuilder("BEGIN \"system.cpu\" 1000000\n");
                String[] order = orders[k % orders.length];
                for (String id : order) {
                    s.append("SET \"").append(id).append("\" = ").append(value(id, k)).append('\n');
                }
                if (k >= 6) {
                    s.append("SET \"c\" = ").append(value("c", k)).append('\n');
                }
                s.append("END");
                SetFastPathTest.feed(p, s.toString());
                if (k >= 2) {
                    long second = T + k + 1;
                    for (String id : order) {
                        assertEquals(String.valueOf((double) value(id, k)), point(engine, id, second), "dimension " + (id.equals(longId) ? "long" : id) + " at collection " + k);
                    }
                    if (!List.of(order).contains(longId)) {
                        assertEquals("gap", point(engine, longId, second), "the long id, not sent, at " + k);
                    }
                }
            }
        }
    }

    /**
     * The points a collection stored are logged for a forwarder (read when it hears of the
     * collection) and not logged without one; the engine stores them either way.
     */
    @Test
    void storedPointsAreLoggedForAnObserverOnly() throws Exception {
        for (boolean observed : new boolean[] {true, false}) {
            try (StorageEngine engine = StorageEngine.open(EngineConfig.defaults(dir.resolve("log" + observed)))) {
                long[] clock = {T * 1_000_000L};
                ReceiverParser p = SetFastPathTest.parser(engine, clock);
                List<String> logged = new ArrayList<>();
                if (observed) {
                    p.observe(new ReceivedStreamListener.Observer() {
                        @Override
                        public void chartCollected(int chartId) {
                            var log = p.byChartId(chartId).stored;
                            for (int i = 0; i < log.storedPoints(); i++) {
                                logged.add(log.storedTime(i) + "=" + log.storedValue(i));
                            }
                        }
                    });
                }
                SetFastPathTest.feed(p, "CHART system.cpu '' 'CPU' '%' cpu system.cpu line 100 1 '' '' ''\n"
                        + "DIMENSION user user absolute 1 1 ''");
                for (int k = 0; k < 4; k++) {
                    clock[0] += 1_000_000L;
                    SetFastPathTest.feed(p, "BEGIN \"system.cpu\" 1000000\nSET \"user\" = " + (10 + k) + "\nEND");
                }
                List<String> stored = points(engine);
                assertTrue(stored.size() >= 3, "stored: " + stored);
                if (observed) {
                    assertEquals(stored.size(), logged.size(), "logged " + logged + ", stored " + stored);
                    assertEquals("1700000004=13.0", logged.get(logged.size() - 1));
                } else {
                    assertEquals(0, p.byChartId(p.chartIds()[0]).stored.storedPoints());
                }
            }
        }
    }

    private static long value(String id, int k) {
        return (long) (id.length() * 100 + id.charAt(0)) + k;
    }

    private List<String> run(List<String> values, boolean quoted) throws Exception {
        try (StorageEngine engine = StorageEngine.open(EngineConfig.defaults(dir.resolve("r" + runs++)))) {
            long[] clock = {T * 1_000_000L};
            ReceiverParser p = SetFastPathTest.parser(engine, clock);
            SetFastPathTest.feed(p, "CHART system.cpu '' 'CPU' '%' cpu system.cpu line 100 1 '' '' ''\n"
                    + "DIMENSION user user absolute 1 1 ''\n"
                    + "DIMENSION system system incremental 1 1 ''");
            for (int k = 0; k < 6; k++) {
                clock[0] += 1_000_000L;
                for (String v : values) {
                    String vk = k % 2 == 0 ? v : "1" + k;
                    SetFastPathTest.feed(p, quoted
                            ? "BEGIN \"system.cpu\" 1000000\nSET \"user\" = " + vk + "\nSET \"system\" = " + vk + "\nEND"
                            : "BEGIN system.cpu 1000000\nSET user = " + vk + "\nSET system = " + vk + "\nEND ");
                }
            }
            return points(engine);
        }
    }

    private List<String> runBegin(String duration, boolean quoted) throws Exception {
        try (StorageEngine engine = StorageEngine.open(EngineConfig.defaults(dir.resolve("b" + runs++)))) {
            long[] clock = {T * 1_000_000L};
            ReceiverParser p = SetFastPathTest.parser(engine, clock);
            SetFastPathTest.feed(p, "CHART system.cpu '' 'CPU' '%' cpu system.cpu line 100 1 '' '' ''\n"
                    + "DIMENSION user user incremental 1 1 ''");
            List<String> out = new ArrayList<>();
            try {
                for (int k = 0; k < 8; k++) {
                    clock[0] += 1_000_000L;
                    String begin = quoted ? "BEGIN \"system.cpu\"" : "BEGIN system.cpu";
                    String d = k % 3 == 2 ? duration : "1000000";
                    SetFastPathTest.feed(p, (d.isEmpty() ? begin : begin + " " + d) + "\nSET \"user\" = " + (1000 + 7L * k * k)
                            + "\n" + (quoted ? "END" : "END "));
                }
            } catch (StreamProtocolException e) {
                out.add("error");
            }
            out.addAll(points(engine));
            return out;
        }
    }

    private static List<String> points(StorageEngine engine) throws IOException {
        MetadataStore meta = engine.metadata();
        int chart = meta.chartId(meta.host(meta.hosts().size() - 1).machineGuid(), "system.cpu");
        List<String> out = new ArrayList<>();
        for (int metric : meta.metrics(chart)) {
            engine.queryTier0(metric, T - 10, T + 100, (time, sn) -> out.add(metric + "@" + time + "="
                    + (StorageNumber.isEmpty(sn) ? "gap" : StorageNumber.unpack(sn) + "/" + (sn & 0xFF000000))));
        }
        return out;
    }

    private static String point(StorageEngine engine, String dimension, long second) throws IOException {
        MetadataStore meta = engine.metadata();
        int chart = meta.chartId(meta.host(meta.hosts().size() - 1).machineGuid(), "system.cpu");
        for (int metric : meta.metrics(chart)) {
            if (meta.dimension(metric).id().equals(dimension)) {
                List<String> got = new ArrayList<>();
                engine.queryTier0(metric, second, second, (time, sn) -> got.add(
                        StorageNumber.isEmpty(sn) ? "gap" : String.valueOf(StorageNumber.unpack(sn))));
                return got.isEmpty() ? "none" : got.get(0);
            }
        }
        return "no metric " + dimension;
    }
}
