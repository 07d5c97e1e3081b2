package io.strata.streaming.collect;

import io.strata.engine.page.StorageNumber;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Drives {@link ChartCollector} with real bytes of a Netdata 1.37.1 child (excerpts of the
 * captures in src/test/resources/vectors/netdata-1.37.1, five charts each) and checks properties that hold for
 * any correct parent: one point per second without hole or duplicate, live data continuing right
 * after the replicated points, CPU percentages adding up to 100, non-negative counter rates.
 */
class RealStreamTest {

    /** Stored points per "chart dimension", by time. */
    private final Map<String, TreeMap<Long, Double>> stored = new LinkedHashMap<>();
    private final Map<String, Long> lastReplicatedTime = new HashMap<>();
    private final Map<String, Long> firstLiveTime = new HashMap<>();
    private final Map<String, ChartCollector> charts = new HashMap<>();
    private final Map<String, Map<String, Integer>> dimensionIndexes = new HashMap<>();
    private final List<String> metricNames = new ArrayList<>();
    private final Map<String, Algorithm> algorithms = new HashMap<>();
    private boolean live;

    private final StoredPointSink sink = (metricId, time, updateEvery, value, flags) -> {
        String key = metricNames.get(metricId);
        Double previous = stored.computeIfAbsent(key, k -> new TreeMap<>()).put(time, value);
        assertEquals(null, previous, "two points for " + key + " at " + time);
        if (live) {
            firstLiveTime.putIfAbsent(key, time);
        } else {
            lastReplicatedTime.put(key, time);
        }
        if (!Double.isNaN(value)) {
            assertEquals(0, flags & ~StorageNumber.SN_USER_FLAGS, "only user flags reach the engine");
        }
    };

    @Test
    void replicationAnswersThenLiveDataOfARealChild() throws IOException {
        replay("/vectors/netdata-1.37.1/conn3-replication-then-live.txt.gz");

        for (Map.Entry<String, TreeMap<Long, Double>> e : stored.entrySet()) {
            String key = e.getKey();
            // 30 replicated seconds, then the live ones
            assertTrue(e.getValue().size() >= 30, key + " has " + e.getValue().size() + " points");
            assertOneMonotonicPointPerSecond(key, e.getValue());
            Long lastReplicated = lastReplicatedTime.get(key);
            Long firstLive = firstLiveTime.get(key);
            assertNotNull(lastReplicated, key);
            assertNotNull(firstLive, key);
            assertEquals(lastReplicated + 1, firstLive, key + ": live data continues the replicated points");
            // RDSTATE carried the counters over: the first live point is a value, not a gap
            assertFalse(Double.isNaN(e.getValue().get(firstLive)), key + " first live point");
        }
        assertCpuPercentagesAddUpTo100("system.cpu");
        assertCpuPercentagesAddUpTo100("cpu.cpu0");
        assertNonNegativeRates();
    }

    @Test
    void twentySecondsOfLiveDataOfARealChild() throws IOException {
        replay("/vectors/netdata-1.37.1/fakeparent-live-25s.txt.gz");

        for (Map.Entry<String, TreeMap<Long, Double>> e : stored.entrySet()) {
            String key = e.getKey();
            assertTrue(e.getValue().size() >= 18, key + " has " + e.getValue().size() + " points");
            assertOneMonotonicPointPerSecond(key, e.getValue());
            // nothing was replicated (the fake parent asked for 0 0): only the very first live
            // point of a dimension without collection history may be a gap
            boolean first = true;
            for (Map.Entry<Long, Double> p : e.getValue().entrySet()) {
                if (!first) {
                    assertFalse(Double.isNaN(p.getValue()), key + " gap at " + p.getKey());
                }
                first = false;
            }
        }
        assertCpuPercentagesAddUpTo100("system.cpu");
        assertNonNegativeRates();
    }

    private void assertOneMonotonicPointPerSecond(String key, TreeMap<Long, Double> points) {
        long previous = -1;
        for (long t : points.keySet()) {
            if (previous >= 0) {
                assertEquals(previous + 1, t, key + ": hole or step other than 1 s after " + previous);
            }
            previous = t;
        }
    }

    private void assertCpuPercentagesAddUpTo100(String chart) {
        TreeMap<Long, Double> sums = new TreeMap<>();
        int dimensions = 0;
        for (Map.Entry<String, TreeMap<Long, Double>> e : stored.entrySet()) {
            if (!e.getKey().startsWith(chart + " ")) {
                continue;
            }
            dimensions++;
            for (Map.Entry<Long, Double> p : e.getValue().entrySet()) {
                if (!Double.isNaN(p.getValue())) {
                    sums.merge(p.getKey(), p.getValue(), Double::sum);
                }
            }
        }
        assertEquals(10, dimensions, chart + " dimensions");
        assertTrue(sums.size() >= 3, chart + " has too few complete seconds: " + sums);
        for (Map.Entry<Long, Double> s : sums.entrySet()) {
            // replicated points are the child's values printed with 7 decimals
            assertEquals(100.0, s.getValue(), 1e-4, chart + " at " + s.getKey());
        }
    }

    private void assertNonNegativeRates() {
        int checked = 0;
        for (Map.Entry<String, TreeMap<Long, Double>> e : stored.entrySet()) {
            if (algorithms.get(e.getKey()) != Algorithm.INCREMENTAL) {
                continue;
            }
            for (Map.Entry<Long, Double> p : e.getValue().entrySet()) {
                if (!Double.isNaN(p.getValue())) {
                    assertTrue(p.getValue() >= 0, e.getKey() + " rate " + p.getValue() + " at " + p.getKey());
                    checked++;
                }
            }
        }
        assertTrue(checked >= 20, "incremental points checked: " + checked);
    }

    // ------------------------------------------------------------------------------------------
    // a deliberately simple driver: the production tokenizer lives elsewhere

    private void replay(String resource) throws IOException {
        try (InputStream in = getClass().getResourceAsStream(resource)) {
            assertNotNull(in, resource);
            BufferedReader r = new BufferedReader(new InputStreamReader(new GZIPInputStream(in), StandardCharsets.UTF_8));
            String chart = null;
            long beginMicros = 0;
            String line;
            while ((line = r.readLine()) != null) {
                List<String> w = words(line);
                if (w.isEmpty()) {
                    continue;
                }
                ChartCollector c = chart == null ? null : charts.get(chart);
                switch (w.get(0)) {
                    case "CHART" -> {
                        chart = w.get(1);
                        int updateEvery = Integer.parseInt(w.get(9));
                        ChartCollector created = charts.computeIfAbsent(chart, k -> new ChartCollector(updateEvery, sink));
                        created.storeFirst(w.get(10).contains("store_first"));
                        dimensionIndexes.putIfAbsent(chart, new HashMap<>());
                    }
                    case "DIMENSION" -> {
                        String key = chart + " " + w.get(1);
                        Algorithm a = Algorithm.parse(w.get(3));
                        if (!dimensionIndexes.get(chart).containsKey(w.get(1))) {
                            metricNames.add(key);
                            algorithms.put(key, a);
                            int index = c.addDimension(metricNames.size() - 1, a, Long.parseLong(w.get(4)), Long.parseLong(w.get(5)));
                            dimensionIndexes.get(chart).put(w.get(1), index);
                        }
                    }
                    case "RBEGIN" -> {
                        live = false;
                        if (!w.get(1).isEmpty()) {
                            chart = w.get(1);
                            charts.get(chart).replayBeginUntimed();
                        } else {
                            c.replayBegin(Long.parseLong(w.get(2)), Long.parseLong(w.get(3)));
                        }
                    }
                    case "RSET" -> {
                        double v = w.get(2).equals("NAN") ? Double.NaN : Double.parseDouble(w.get(2));
                        int flags = w.size() > 3 && w.get(3).contains("R") ? StorageNumber.SN_FLAG_RESET : 0;
                        c.replaySet(dim(chart, w.get(1)), v, flags);
                    }
                    case "RDSTATE" -> c.dimensionState(dim(chart, w.get(1)), Long.parseUnsignedLong(w.get(2)),
                            Long.parseLong(w.get(3)), Double.parseDouble(w.get(4)), Double.parseDouble(w.get(5)));
                    case "RSSTATE" -> c.chartState(Long.parseUnsignedLong(w.get(1)), Long.parseUnsignedLong(w.get(2)));
                    case "REND" -> c.replayEnd(w.get(4).equals("true"), Integer.parseInt(w.get(1)));
                    case "BEGIN" -> {
                        live = true;
                        chart = w.get(1);
                        beginMicros = Long.parseLong(w.get(2));
                        charts.get(chart).begin(beginMicros);
                    }
                    case "SET" -> {
                        // "SET id = value": the tokenizer treats '=' as a separator
                        if (w.size() > 3 && !w.get(3).isEmpty()) {
                            c.set(dim(chart, w.get(1)), Long.parseLong(w.get(3)));
                        }
                    }
                    case "END" -> c.end(c.chartLastCollectedUt() + beginMicros + 2_000);
                    default -> { }
                }
            }
        }
    }

    private int dim(String chart, String id) {
        Integer i = dimensionIndexes.get(chart).get(id);
        assertNotNull(i, chart + " has no dimension " + id);
        return i;
    }

    /** Splits at spaces, keeping "..." and '...' words whole (without their quotes). */
    private static List<String> words(String line) {
        List<String> out = new ArrayList<>();
        int i = 0;
        int n = line.length();
        while (i < n) {
            char ch = line.charAt(i);
            if (ch == ' ') {
                i++;
                continue;
            }
            if (ch == '"' || ch == '\'') {
                int close = line.indexOf(ch, i + 1);
                if (close < 0) {
                    close = n;
                }
                out.add(line.substring(i + 1, close));
                i = close + 1;
            } else {
                int sp = line.indexOf(' ', i);
                if (sp < 0) {
                    sp = n;
                }
                out.add(line.substring(i, sp));
                i = sp;
            }
        }
        return out;
    }
}
