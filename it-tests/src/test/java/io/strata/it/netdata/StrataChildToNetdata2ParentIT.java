package io.strata.it.netdata;

import com.fasterxml.jackson.databind.JsonNode;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.MetadataStore;
import io.strata.engine.page.StorageNumber;
import io.strata.node.config.NodeConfig;
import io.strata.node.runtime.NodeRoles;
import io.strata.node.runtime.StrataNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A Strata child streams into a real Netdata 2.9.0 parent with ZSTD (our child offers ZSTD and LZ4, the
 * parent takes ZSTD, first in its order), INTERPOLATED and IEEE754 (what our child stored is sent as
 * stored, in BEGIN2/SET2/END2 and base64 replication): the parent lists our host and
 * charts, and its {@code /api/v1/data} answers every value our child stored, from each chart's
 * second point to the last.
 *
 * <p>Each chart's first point is required too. A 2.9.0 parent lost it (and then interpolated our
 * incremental charts from its own clock) when our child connected between the chart's first
 * collection, which stores nothing, and its second: the answer to {@code REPLAY_CHART ... "true" 0 0}
 * carried only the collection state, which 2.9.0 ignores without a timestamped {@code RBEGIN}. Our
 * answer now opens one (docs/replication.md, "A chart's first seconds").
 */
class StrataChildToNetdata2ParentIT {

    static final int CHARTS = 6;

    @TempDir
    Path tmp;

    @Test
    void strataChildStreamsIntoNetdata2Parent() throws Exception {
        RealNetdata2.assumeAvailable();
        try (RealNetdata2 parent = RealNetdata2.parent(tmp.resolve("nd2parent"), "nd2parent", RealNetdata.freePort(),
                true)) {
            parent.start(Duration.ofSeconds(240));
            Path conf = tmp.resolve("strata-child");
            Files.createDirectories(conf);
            Files.writeString(conf.resolve("netdata.conf"), "[global]\n\thostname = strata-child\n"
                    + "[web]\n\tbind to = 127.0.0.1:0\n"
                    + "[directories]\n\tcache = " + conf.resolve("cache") + "\n\tlib = " + conf.resolve("lib") + "\n"
                    + "[strata]\n\tsynthetic charts = " + CHARTS + "\n\tsynthetic dimensions per chart = 4\n"
                    + "[plugins]\n\tproc = no\n");
            Files.writeString(conf.resolve("stream.conf"), "[stream]\n\tenabled = yes\n"
                    + "\tdestination = 127.0.0.1:" + parent.webPort() + "\n"
                    + "\tapi key = " + RealNetdata.API_KEY + "\n"
                    + "\tenable compression = yes\n");
            try (StrataNode child = NodeRoles.start(NodeConfig.load(conf), null)) {
                assertTrue(parent.waitForLog("established link with negotiated capabilities", Duration.ofSeconds(60)),
                        "the real parent never accepted our child: " + parent.log());
                List<String> link = parent.logLines("established link with negotiated capabilities");
                assertTrue(link.stream().anyMatch(l -> l.contains("ZSTD") && !l.contains("LZ4")),
                        "negotiated without ZSTD alone: " + link);
                // our child sends BEGIN2/SET2/END2 with base64 numbers, and answers replication in the same forms
                assertTrue(link.stream().anyMatch(l -> l.contains("INTERPOLATED") && l.contains("IEEE754")),
                        "negotiated without INTERPOLATED and IEEE754: " + link);
                // wait (bounded) until the parent lists our charts, then for a few live seconds past them
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                JsonNode charts = null;
                while (System.nanoTime() < deadline) {
                    try {
                        charts = parent.get("/host/strata-child/api/v1/charts").get("charts");
                        if (charts != null && charts.size() >= CHARTS) {
                            break;
                        }
                    } catch (java.io.IOException notYet) {
                        // the host is not known yet
                    }
                    Thread.sleep(500);
                }
                assertTrue(charts != null, "the real parent never listed our host's charts");
                for (int c = 0; c < CHARTS; c++) {
                    assertTrue(charts.has("strata.synthetic_" + c), "chart strata.synthetic_" + c + " missing: "
                            + charts.fieldNames());
                }
                JsonNode info = parent.get("/api/v1/info");
                assertTrue(info.get("mirrored_hosts").toString().contains("strata-child"),
                        "the real parent does not list our host: " + info.get("mirrored_hosts"));
                Thread.sleep(12_000);
                compare(parent, child.engine());
            }
        }
    }

    /** Every point our child stored from each chart's first second to {@code now - 2}, on the parent equal. */
    private static void compare(RealNetdata2 parent, StorageEngine engine) throws Exception {
        MetadataStore meta = engine.metadata();
        long before = System.currentTimeMillis() / 1000 - 2;
        int host = -1;
        for (int h = 0; h < meta.hosts().size(); h++) {
            if (meta.host(h).hostname().equals("strata-child")) {
                host = h;
            }
        }
        long compared = 0;
        int firstPoints = 0;
        int firstPointsHeld = 0;
        List<String> mismatches = new ArrayList<>();
        for (int chart : meta.charts(host)) {
            String id = meta.chart(chart).id();
            for (int metric : meta.metrics(chart)) {
                DimensionInfo d = meta.dimension(metric);
                TreeMap<Long, Double> ours = new TreeMap<>();
                engine.queryTier0(metric, 0, before, (t, sn) -> {
                    if (!StorageNumber.isEmpty(sn)) {
                        ours.put(t, StorageNumber.unpack(sn));
                    }
                });
                if (ours.isEmpty()) {
                    mismatches.add(id + "/" + d.name() + ": our child stored nothing");
                    continue;
                }
                long after = ours.firstKey() - 1;
                if (metric == meta.metrics(chart).get(0)) {
                    JsonNode ci = parent.get("/host/strata-child/api/v1/chart?chart=" + id);
                    System.out.println(id + ": our first " + ours.firstKey() + ", the parent's first_entry "
                            + ci.get("first_entry") + ", last_entry " + ci.get("last_entry"));
                }
                JsonNode data = parent.get("/host/strata-child/api/v1/data?chart=" + id + "&dimension=" + d.name()
                        + "&after=" + after + "&before=" + before + "&points=" + (before - after)
                        + "&group=average&format=json&options=seconds%7Cunaligned");
                Map<Long, Double> theirs = new HashMap<>();
                for (JsonNode row : data.get("data")) {
                    JsonNode v = row.get(1);
                    if (v != null && !v.isNull()) {
                        theirs.put(row.get(0).asLong(), v.asDouble());
                    }
                }
                for (Map.Entry<Long, Double> e : ours.entrySet()) {
                    if (e.getKey() == ours.firstKey()) {
                        firstPoints++;
                        if (theirs.containsKey(e.getKey())) {
                            firstPointsHeld++;
                        }
                    }
                    compared++;
                    Double v = theirs.get(e.getKey());
                    if (v == null || !NetdataChildToStrataParentIT.close(e.getValue(), v)) {
                        mismatches.add(id + "/" + d.name() + " @" + e.getKey()
                                + ": child " + e.getValue() + ", parent " + v);
                    }
                }
            }
        }
        System.out.println("compared " + compared + " points: " + mismatches.size() + " differ; the parent holds "
                + firstPointsHeld + " of our " + firstPoints + " first points");
        assertTrue(compared >= CHARTS * 4 * 8, "too few points compared: " + compared);
        if (!mismatches.isEmpty()) {
            fail(mismatches.size() + " of " + compared + " differ: "
                    + mismatches.subList(0, Math.min(30, mismatches.size())));
        }
    }
}
