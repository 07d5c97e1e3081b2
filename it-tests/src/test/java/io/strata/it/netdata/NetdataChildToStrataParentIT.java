package io.strata.it.netdata;

import com.fasterxml.jackson.databind.JsonNode;
import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.MetadataStore;
import io.strata.engine.page.StorageNumber;
import io.strata.streaming.receiver.ReceiverStats;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.ToLongFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A real Netdata 1.37.1 child streams into a Strata parent: every chart and dimension of the
 * child becomes known to the parent, and for the same seconds the values the parent stores equal
 * the child's own {@code /api/v1/data} answer (the precision of a storage number).
 */
class NetdataChildToStrataParentIT {

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "compression {0}")
    @ValueSource(booleans = {false, true})
    void realChildStreamsIntoStrataParent(boolean compression) throws Exception {
        RealNetdata.assumeInstalled();
        try (StrataTestParent parent = StrataTestParent.start(tmp.resolve("strata-parent"), compression);
             RealNetdata child = RealNetdata.child(tmp.resolve("ndchild"), "ndchild", RealNetdata.freePort(),
                     "127.0.0.1:" + parent.port(), compression)) {
            child.start(Duration.ofSeconds(180));
            String expectedCaps = compression ? "COMPRESSION" : "REPLICATION";
            assertTrue(child.waitForLog("established link with negotiated capabilities", Duration.ofSeconds(30)),
                    "the child did not connect: " + child.errorLog());
            String log = child.errorLog();
            assertTrue(log.contains(expectedCaps), "negotiated capabilities lack " + expectedCaps + ": " + log);
            UUID guid = UUID.fromString(child.machineGuid());
            ChildOnParent known = awaitChildOnParent(child::get, guid, "ndchild", parent);

            // no engine.flush() here: it seals hot pages and must not run while the receiver stores (queries read hot pages)
            StorageEngine engine = parent.engine();
            compareValues(child, engine, engine.metadata(), known.charts(), known.strataCharts());
        }
    }

    /** A child's charts as it answers {@code /api/v1/charts}, and the parent's chart of each id. */
    record ChildOnParent(JsonNode charts, Map<String, Integer> strataCharts) {
    }

    /**
     * Lets a child that connected define everything, replicate and stream live for a while, then
     * checks the parent received it without a protocol error and knows the host ({@code guid},
     * {@code hostname}) and every chart and dimension the child answers.
     */
    static ChildOnParent awaitChildOnParent(ChildApi child, UUID guid, String hostname, StrataTestParent parent)
            throws Exception {
        ReceiverStats stats = parent.stats();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline && stats.samplesCollected.sum() < 20_000) {
            Thread.sleep(500);
        }
        // a few more seconds of live data past the replicated ones
        Thread.sleep(12_000);
        assertTrue(stats.samplesCollected.sum() > 0, "no sample received");
        assertEquals(0, stats.protocolErrors.sum(), "protocol errors on the parent");

        JsonNode charts = child.get("/api/v1/charts").get("charts");
        MetadataStore meta = parent.engine().metadata();
        int hostId = meta.hostId(guid);
        assertTrue(hostId >= 0, "host " + guid + " unknown to the parent");
        assertEquals(hostname, meta.host(hostId).hostname());
        Map<String, Integer> strataCharts = new HashMap<>();
        for (int c : meta.charts(hostId)) {
            strataCharts.put(meta.chart(c).id(), c);
        }
        List<String> missing = new ArrayList<>();
        int dims = 0;
        for (Iterator<String> it = charts.fieldNames(); it.hasNext(); ) {
            String id = it.next();
            Integer c = strataCharts.get(id);
            if (c == null) {
                missing.add("chart " + id);
                continue;
            }
            Map<String, DimensionInfo> byId = dimensionsById(meta, c);
            for (Iterator<String> d = charts.get(id).get("dimensions").fieldNames(); d.hasNext(); ) {
                String dimId = d.next();
                dims++;
                if (!byId.containsKey(dimId)) {
                    missing.add("dimension " + id + "/" + dimId);
                }
            }
        }
        assertTrue(missing.isEmpty(), "unknown to the parent: " + missing);
        assertTrue(charts.size() > 50 && dims > 200, "a real child has hundreds of dimensions: " + dims);
        return new ChildOnParent(charts, strataCharts);
    }

    static Map<String, DimensionInfo> dimensionsById(MetadataStore meta, int chart) {
        Map<String, DimensionInfo> m = new HashMap<>();
        for (int metric : meta.metrics(chart)) {
            DimensionInfo d = meta.dimension(metric);
            if (d != null) {
                m.put(d.id(), d);
            }
        }
        return m;
    }

    /** Every chart, the last seconds both sides hold: Strata's tier 0 against the child's own answer. */
    private static void compareValues(RealNetdata child, StorageEngine engine, MetadataStore meta, JsonNode charts,
                                      Map<String, Integer> strataCharts) throws Exception {
        long now = System.currentTimeMillis() / 1000;
        long before = now - 3;
        compareValues(child, engine, meta, charts, strataCharts, before - 10, before);
    }

    /**
     * Every per-second chart over {@code (after, before]}: each value the child answers must be stored
     * by the parent, equal; returns the number of points compared.
     */
    static long compareValues(RealNetdata child, StorageEngine engine, MetadataStore meta, JsonNode charts,
                              Map<String, Integer> strataCharts, long after, long before) throws Exception {
        return compareValues(child::get, engine, meta, charts, strataCharts, after, before);
    }

    /** A child's API: the JSON it answers to a path and query (a 1.37.1 or a 2.x agent). */
    interface ChildApi {
        JsonNode get(String pathAndQuery) throws IOException;
    }

    /** As above, for any child that answers {@code /api/v1/data}. */
    static long compareValues(ChildApi child, StorageEngine engine, MetadataStore meta, JsonNode charts,
                              Map<String, Integer> strataCharts, long after, long before) throws Exception {
        return compareValues(child, engine, meta, charts, strataCharts, id -> after, before);
    }

    /** As above, each chart over {@code (afterOf(chart id), before]}. */
    static long compareValues(ChildApi child, StorageEngine engine, MetadataStore meta, JsonNode charts,
                              Map<String, Integer> strataCharts, ToLongFunction<String> afterOf, long before)
            throws Exception {
        long compared = 0;
        List<String> mismatches = new ArrayList<>();
        for (Iterator<String> it = charts.fieldNames(); it.hasNext(); ) {
            String id = it.next();
            Integer chartOrNull = strataCharts.get(id);
            if (chartOrNull == null) {
                mismatches.add(id + ": chart unknown to the parent");
                continue;
            }
            int chart = chartOrNull;
            ChartInfo ci = meta.chart(chart);
            long after = afterOf.applyAsLong(id);
            if (ci.updateEvery() != 1 || after >= before) {
                continue;
            }
            JsonNode data;
            try {
                data = child.get("/api/v1/data?chart=" + URLEncoder.encode(id, StandardCharsets.UTF_8)
                        + "&after=" + after + "&before=" + before + "&points=" + (before - after)
                        + "&group=average&format=json&options=seconds%7Cunaligned%7Cnonzero");
            } catch (IOException e) {
                if (String.valueOf(e.getMessage()).contains("404: No metrics where matched to query")) {
                    // Netdata's answer when no dimension of the chart holds a value in the window (a
                    // loaded child that collected nothing of it then): nothing to compare
                    continue;
                }
                throw e;
            }
            JsonNode labels = data.get("labels");
            Map<String, Integer> metricByName = new HashMap<>();
            for (int metric : meta.metrics(chart)) {
                DimensionInfo d = meta.dimension(metric);
                metricByName.put(d.name(), metric);
            }
            for (int col = 1; col < labels.size(); col++) {
                String name = labels.get(col).asText();
                Integer metric = metricByName.get(name);
                if (metric == null) {
                    mismatches.add(id + ": the child answers a dimension named '" + name + "' the parent lacks");
                    continue;
                }
                TreeMap<Long, Double> ours = new TreeMap<>();
                engine.queryTier0(metric, after - 1, before, (time, sn) -> {
                    if (!StorageNumber.isEmpty(sn)) {
                        ours.put(time, StorageNumber.unpack(sn));
                    }
                });
                for (JsonNode row : data.get("data")) {
                    long t = row.get(0).asLong();
                    JsonNode v = row.get(col);
                    if (v == null || v.isNull()) {
                        continue;
                    }
                    Double mine = ours.get(t);
                    double theirs = v.asDouble();
                    compared++;
                    if (mine == null) {
                        mismatches.add(id + "/" + name + " @" + t + ": child " + theirs + ", parent has no point");
                    } else if (!close(mine, theirs)) {
                        mismatches.add(id + "/" + name + " @" + t + ": child " + theirs + ", parent " + mine);
                    }
                }
            }
        }
        System.out.println("compared " + compared + " points of " + charts.size() + " charts: "
                + mismatches.size() + " differ");
        assertTrue(compared > 1000, "too few points compared: " + compared);
        if (!mismatches.isEmpty()) {
            fail(mismatches.size() + " of " + compared + " points differ, e.g. "
                    + mismatches.subList(0, Math.min(40, mismatches.size())));
        }
        return compared;
    }

    /** Equal within what a storage number and Netdata's JSON printing keep. */
    static boolean close(double a, double b) {
        double diff = Math.abs(a - b);
        return diff <= 1e-6 + 2e-6 * Math.max(Math.abs(a), Math.abs(b));
    }
}
