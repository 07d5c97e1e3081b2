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
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A disconnect between a real Netdata 2.9.0 agent and Strata, filled by replication, in both
 * directions: the link between child and parent (a {@link LinkRelay}) is cut while the child keeps
 * collecting; the child reconnects when its reconnect delay allows, and every second of the gap is
 * on the parent with the child's own values. Compared: every per-second chart over a window from a
 * few seconds before the cut to a few seconds after the reconnection, values the child answers (or
 * stores) against the parent's; what differs is counted and named.
 *
 * <p>A 2.9.0 child never replicates a chart's first point (its replication answer starts after its
 * first stored second, docs/replication.md "A chart's first seconds"): a chart it creates during
 * the gap (an interface that appears) is compared from its second point, and counted.
 *
 * <p>Strata child to 2.9.0 parent: the seconds before the cut are counted apart from those of the
 * cut, the gap and after, and both must be equal. Before our answers to {@code "true" 0 0} opened a
 * timestamped {@code RBEGIN} (docs/replication.md, "A chart's first seconds"), the seconds before
 * the cut of our incremental charts differed in one run: the first connection's state was lost.
 */
class Netdata2GapFilledByReplicationIT {

    private static final Duration WAIT = Duration.ofSeconds(90);
    /** How long the link stays cut at least (below a 2.9.0 child's 5 s stream_info timeout). */
    private static final Duration CUT = Duration.ofSeconds(4);

    @TempDir
    Path tmp;

    @Test
    void netdata2ChildsGapWhileTheStrataParentIsDownIsReplicated() throws Exception {
        RealNetdata2.assumeAvailable();
        try (StrataTestParent parent = StrataTestParent.start(tmp.resolve("strata-parent"), true);
             LinkRelay link = new LinkRelay(parent.port());
             RealNetdata2 child = RealNetdata2.child(tmp.resolve("nd2child"), "nd2child", RealNetdata.freePort(),
                     "127.0.0.1:" + link.port(), true)) {
            child.start(Duration.ofSeconds(300));
            // a 2.x child waits about 18 s after its start before it first connects
            assertTrue(child.waitForLog("established link with negotiated capabilities", WAIT),
                    "the child did not connect: " + child.log());
            UUID guid = UUID.fromString(child.machineGuid());
            long linked = now();
            // the collectors that start late have started, the window's charts are established
            awaitNewestSecond(parent, guid, linked + 10);
            int links = child.logLines("established link with negotiated capabilities").size();

            long stoppedAt = now();
            link.cut(CUT);
            // the child collects on; its next connections wait in the relay
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (System.nanoTime() < deadline
                    && child.logLines("established link with negotiated capabilities").size() <= links) {
                Thread.sleep(250);
            }
            assertTrue(child.logLines("established link with negotiated capabilities").size() > links,
                    "the child did not reconnect: " + child.log());
            long reconnectedAt = now();
            assertTrue(reconnectedAt - stoppedAt >= CUT.toSeconds() - 1, "the link was not cut long enough");
            System.out.println("[Netdata2GapIT] 2.9.0 child -> Strata parent: cut at " + stoppedAt
                    + ", reconnected at " + reconnectedAt + " (" + (reconnectedAt - stoppedAt) + " s without a parent)");
            long before = reconnectedAt + 3;
            awaitNewestSecond(parent, guid, before);

            StorageEngine engine = parent.engine();
            MetadataStore meta = engine.metadata();
            JsonNode charts = child.get("/api/v1/charts").get("charts");
            long after = stoppedAt - 5;
            // a chart born inside the window: from its second point (see the class comment)
            Map<String, Long> from = new HashMap<>();
            int bornInWindow = 0;
            for (Iterator<String> it = charts.fieldNames(); it.hasNext(); ) {
                String id = it.next();
                long first = charts.get(id).get("first_entry").asLong();
                from.put(id, Math.max(after, first));
                if (first > after) {
                    bornInWindow++;
                }
            }
            int born = bornInWindow;
            // replication of every chart runs after the reconnection; wait for it, do not excuse it
            long compareDeadline = System.nanoTime() + WAIT.toNanos();
            while (true) {
                Map<String, Integer> strataCharts = chartsOf(meta, guid);
                try {
                    long compared = NetdataChildToStrataParentIT.compareValues(child::get, engine, meta, charts,
                            strataCharts, from::get, before);
                    System.out.println("[Netdata2GapIT] 2.9.0 child -> Strata parent: " + compared + " points over ("
                            + after + ", " + before + "], the gap included, equal (" + born
                            + " charts born in the window compared from their second point)");
                    break;
                } catch (AssertionError notYet) {
                    if (System.nanoTime() > compareDeadline) {
                        throw notYet;
                    }
                    Thread.sleep(1000);
                }
            }
        }
    }

    @Test
    void strataChildsGapWhileTheNetdata2ParentIsDownIsReplicated() throws Exception {
        RealNetdata2.assumeAvailable();
        try (RealNetdata2 parent = RealNetdata2.parent(tmp.resolve("nd2parent"), "nd2parent", RealNetdata.freePort(),
                true)) {
            parent.start(Duration.ofSeconds(300));
            LinkRelay link = new LinkRelay(parent.webPort());
            Path conf = tmp.resolve("strata-child");
            Files.createDirectories(conf);
            Files.writeString(conf.resolve("netdata.conf"), "[global]\n\thostname = strata-child\n"
                    + "[web]\n\tbind to = 127.0.0.1:0\n"
                    + "[directories]\n\tcache = " + conf.resolve("cache") + "\n\tlib = " + conf.resolve("lib") + "\n"
                    + "[strata]\n\tsynthetic charts = 6\n\tsynthetic dimensions per chart = 4\n"
                    + "[plugins]\n\tproc = no\n");
            Files.writeString(conf.resolve("stream.conf"), "[stream]\n\tenabled = yes\n"
                    + "\tdestination = 127.0.0.1:" + link.port() + "\n"
                    + "\tapi key = " + RealNetdata.API_KEY + "\n"
                    + "\treconnect delay seconds = 5\n"
                    + "\tenable compression = yes\n");
            try (link; StrataNode child = NodeRoles.start(NodeConfig.load(conf), null)) {
                assertTrue(parent.waitForLog("established link with negotiated capabilities", WAIT),
                        "the real parent never accepted our child: " + parent.log());
                long linked = now();
                awaitParentHolds(parent, linked + 8);

                long stoppedAt = now();
                link.cut(CUT);
                // the child collects on; its next connections wait in the relay
                long deadline = System.nanoTime() + WAIT.toNanos();
                while (System.nanoTime() < deadline
                        && parent.logLines("established link with negotiated capabilities").size() < 2) {
                    Thread.sleep(250);
                }
                assertTrue(parent.logLines("established link with negotiated capabilities").size() >= 2,
                        "our child did not reconnect: " + parent.log());
                long reconnectedAt = now();
                System.out.println("[Netdata2GapIT] Strata child -> 2.9.0 parent: cut at " + stoppedAt
                        + ", reconnected at " + reconnectedAt + " (" + (reconnectedAt - stoppedAt)
                        + " s without a parent)");
                long before = reconnectedAt + 3;
                awaitParentHolds(parent, before);
                long after = stoppedAt - 5;
                long compareDeadline = System.nanoTime() + WAIT.toNanos();
                List<String> differ;
                List<String> beforeCut = new ArrayList<>();
                long[] compared = {0};
                do {
                    beforeCut.clear();
                    differ = compareWindow(parent, child.engine(), after, before, compared, stoppedAt, beforeCut);
                    if (differ.isEmpty() && beforeCut.isEmpty()) {
                        break;
                    }
                    Thread.sleep(1000);
                } while (System.nanoTime() < compareDeadline);
                System.out.println("[Netdata2GapIT] Strata child -> 2.9.0 parent: " + compared[0] + " points over ("
                        + after + ", " + before + "]: " + differ.size() + " of the cut, the gap and after it differ; "
                        + beforeCut.size() + " of the seconds before the cut differ" + (beforeCut.isEmpty() ? "" : ", e.g. " + beforeCut.subList(0,
                        Math.min(8, beforeCut.size()))));
                assertTrue(compared[0] >= 6 * 4 * (before - after - 2), "too few points compared: " + compared[0]);
                differ.addAll(0, beforeCut);
                if (!differ.isEmpty()) {
                    fail(differ.size() + " of " + compared[0] + " differ: " + differ.subList(0, Math.min(30,
                            differ.size())));
                }
            }
        }
    }

    private static long now() {
        return System.currentTimeMillis() / 1000;
    }

    private static Map<String, Integer> chartsOf(MetadataStore meta, UUID guid) {
        Map<String, Integer> out = new HashMap<>();
        int host = meta.hostId(guid);
        if (host >= 0) {
            for (int c : meta.charts(host)) {
                out.put(meta.chart(c).id(), c);
            }
        }
        return out;
    }

    /** Until the Strata parent's newest second of the host (its stream_info's) reaches {@code second}. */
    private static void awaitNewestSecond(StrataTestParent parent, UUID guid, long second) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        long last = 0;
        while (System.nanoTime() < deadline) {
            int host = parent.engine().metadata().hostId(guid);
            if (host >= 0) {
                last = newestSecond(parent.engine(), host);
                if (last >= second) {
                    return;
                }
            }
            Thread.sleep(250);
        }
        fail("the parent's newest second of " + guid + " is " + last + ", never " + second);
    }

    private static long newestSecond(StorageEngine engine, int host) {
        MetadataStore meta = engine.metadata();
        long last = 0;
        for (int c : meta.charts(host)) {
            for (int m : meta.metrics(c)) {
                last = Math.max(last, engine.registry().lastTime(m, 0));
            }
        }
        return last;
    }

    /** Until the 2.9.0 parent's strata.synthetic_0 of our host has a point at {@code second} or later. */
    private static void awaitParentHolds(RealNetdata2 parent, long second) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            try {
                JsonNode c = parent.get("/host/strata-child/api/v1/chart?chart=strata.synthetic_0");
                if (c.get("last_entry").asLong() >= second) {
                    return;
                }
                last = "last_entry " + c.get("last_entry");
            } catch (java.io.IOException notYet) {
                last = notYet.getMessage();
            }
            Thread.sleep(250);
        }
        fail("the 2.9.0 parent never held " + second + " of our host: " + last);
    }

    /**
     * Every point our child stored in (after, before], against the 2.9.0 parent's; the differences,
     * named: those at or before {@code cut} go to {@code beforeCut}, the others are returned.
     */
    private static List<String> compareWindow(RealNetdata2 parent, StorageEngine engine, long after, long before,
                                              long[] compared, long cut, List<String> beforeCut) throws Exception {
        MetadataStore meta = engine.metadata();
        int host = -1;
        for (int h = 0; h < meta.hosts().size(); h++) {
            if (meta.host(h).hostname().equals("strata-child")) {
                host = h;
            }
        }
        compared[0] = 0;
        List<String> differ = new ArrayList<>();
        for (int chart : meta.charts(host)) {
            String id = meta.chart(chart).id();
            for (int metric : meta.metrics(chart)) {
                DimensionInfo d = meta.dimension(metric);
                TreeMap<Long, Double> ours = new TreeMap<>();
                engine.queryTier0(metric, after, before, (t, sn) -> {
                    if (t > after && !StorageNumber.isEmpty(sn)) {
                        ours.put(t, StorageNumber.unpack(sn));
                    }
                });
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
                    compared[0]++;
                    Double v = theirs.get(e.getKey());
                    if (v == null || !NetdataChildToStrataParentIT.close(e.getValue(), v)) {
                        (e.getKey() <= cut ? beforeCut : differ).add(id + "/" + d.name() + " @" + e.getKey()
                                + ": child " + e.getValue() + ", parent " + v);
                    }
                }
            }
        }
        return differ;
    }
}
