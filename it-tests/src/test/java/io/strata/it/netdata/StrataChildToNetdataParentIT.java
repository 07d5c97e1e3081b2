package io.strata.it.netdata;

import com.fasterxml.jackson.databind.JsonNode;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.MetadataStore;
import io.strata.engine.page.StorageNumber;
import io.strata.node.config.NodeConfig;
import io.strata.node.runtime.NodeRoles;
import io.strata.node.runtime.StrataNode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A Strata child streams into a real Netdata 1.37.1 parent: the parent lists our host and charts,
 * and its {@code /api/v1/data} answers the values our child stored for the same seconds.
 */
class StrataChildToNetdataParentIT {

    static final int CHARTS = 6;

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "compression {0}")
    @ValueSource(booleans = {false, true})
    void strataChildStreamsIntoRealParent(boolean compression) throws Exception {
        RealNetdata.assumeInstalled();
        try (RealNetdata parent = RealNetdata.parent(tmp.resolve("ndparent"), "ndparent", RealNetdata.freePort(),
                compression)) {
            parent.start(Duration.ofSeconds(180));
            Path conf = tmp.resolve("strata-child");
            Files.createDirectories(conf);
            Files.writeString(conf.resolve("netdata.conf"), "[global]\n\thostname = strata-child\n"
                    + "[web]\n\tbind to = 127.0.0.1:0\n"
                    + "[directories]\n\tcache = " + conf.resolve("cache") + "\n\tlib = " + conf.resolve("lib") + "\n"
                    + "[strata]\n\tsynthetic charts = " + CHARTS + "\n\tsynthetic dimensions per chart = 4\n"
                    // the machine's charts are compared with Netdata's in ProcChartsMatchNetdataIT
                    + "[plugins]\n\tproc = no\n");
            Files.writeString(conf.resolve("stream.conf"), "[stream]\n\tenabled = yes\n"
                    + "\tdestination = 127.0.0.1:" + parent.webPort() + "\n"
                    + "\tapi key = " + RealNetdata.API_KEY + "\n"
                    + "\tenable compression = " + (compression ? "yes" : "no") + "\n");
            try (StrataNode child = NodeRoles.start(NodeConfig.load(conf), null)) {
                String expected = compression ? "COMPRESSION" : "REPLICATION";
                assertTrue(parent.waitForLog("established link with negotiated capabilities", Duration.ofSeconds(30)),
                        "the real parent never accepted our child: " + parent.errorLog());
                assertTrue(parent.errorLog().contains(expected), "negotiated without " + expected);
                // let it replicate and stream live
                Thread.sleep(15_000);
                JsonNode info = parent.get("/api/v1/info");
                assertTrue(info.get("mirrored_hosts").toString().contains("strata-child"),
                        "the real parent does not list our host: " + info.get("mirrored_hosts"));
                JsonNode charts = parent.get("/host/strata-child/api/v1/charts").get("charts");
                for (int c = 0; c < CHARTS; c++) {
                    assertTrue(charts.has("strata.synthetic_" + c), "chart strata.synthetic_" + c + " missing: "
                            + charts.fieldNames());
                }
                // no flush while the collector stores: queries read hot pages
                compare(parent, child.engine());
            }
        }
    }

    private static void compare(RealNetdata parent, StorageEngine engine) throws Exception {
        MetadataStore meta = engine.metadata();
        long before = System.currentTimeMillis() / 1000 - 2;
        long after = before - 10;
        int host = -1;
        for (int h = 0; h < meta.hosts().size(); h++) {
            if (meta.host(h).hostname().equals("strata-child")) {
                host = h;
            }
        }
        long compared = 0;
        List<String> mismatches = new ArrayList<>();
        for (int chart : meta.charts(host)) {
            String id = meta.chart(chart).id();
            JsonNode data = parent.get("/host/strata-child/api/v1/data?chart=" + id + "&after=" + after
                    + "&before=" + before + "&points=" + (before - after)
                    + "&group=average&format=json&options=seconds%7Cunaligned");
            Map<String, Integer> metricByName = new HashMap<>();
            for (int m : meta.metrics(chart)) {
                DimensionInfo d = meta.dimension(m);
                metricByName.put(d.name(), m);
            }
            JsonNode labels = data.get("labels");
            for (int col = 1; col < labels.size(); col++) {
                int metric = metricByName.get(labels.get(col).asText());
                Map<Long, Double> ours = new HashMap<>();
                engine.queryTier0(metric, after - 1, before, (t, sn) -> {
                    if (!StorageNumber.isEmpty(sn)) {
                        ours.put(t, StorageNumber.unpack(sn));
                    }
                });
                for (JsonNode row : data.get("data")) {
                    JsonNode v = row.get(col);
                    if (v == null || v.isNull()) {
                        continue;
                    }
                    long t = row.get(0).asLong();
                    compared++;
                    Double mine = ours.get(t);
                    if (mine == null || !NetdataChildToStrataParentIT.close(mine, v.asDouble())) {
                        mismatches.add(id + "/" + labels.get(col).asText() + " @" + t + ": parent " + v.asDouble()
                                + ", child " + mine);
                    }
                }
            }
        }
        System.out.println("compared " + compared + " points: " + mismatches.size() + " differ");
        assertTrue(compared >= CHARTS * 4 * 5, "too few points compared: " + compared);
        if (!mismatches.isEmpty()) {
            fail(mismatches.size() + " of " + compared + " differ: "
                    + mismatches.subList(0, Math.min(30, mismatches.size())));
        }
    }
}
