package io.strata.it.netdata;

import com.fasterxml.jackson.databind.JsonNode;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.MetadataStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A real Netdata 2.9.0 child streams into a Strata parent with ZSTD (both offer it, and it comes
 * before LZ4 in 2.x's order): the link is established with INTERPOLATED and IEEE754 (the child
 * sends BEGIN2/SET2/END2 with base64 numbers, and replication in the same forms; the parent stores
 * the child's values as they are), every chart and dimension
 * of the child becomes known to the parent, and for the same seconds every chart's values the
 * parent stores equal the child's own {@code /api/v1/data} answer.
 */
class Netdata2ChildToStrataParentIT {

    @TempDir
    Path tmp;

    @Test
    void netdata2ChildStreamsIntoStrataParent() throws Exception {
        // every second the child sends is collected after this one: a fact, not a time allowance
        long testStartSecond = System.currentTimeMillis() / 1000;
        RealNetdata2.assumeAvailable();
        try (StrataTestParent parent = StrataTestParent.start(tmp.resolve("strata-parent"), true);
             RealNetdata2 child = RealNetdata2.child(tmp.resolve("nd2child"), "nd2child", RealNetdata.freePort(),
                     "127.0.0.1:" + parent.port(), true)) {
            child.start(Duration.ofSeconds(240));
            // a 2.x child waits about 18 s after its start before it first connects
            assertTrue(child.waitForLog("established link with negotiated capabilities", Duration.ofSeconds(90)),
                    "the child did not connect: " + child.log());
            List<String> link = child.logLines("established link with negotiated capabilities");
            assertTrue(link.stream().anyMatch(l -> l.contains("ZSTD") && !l.contains("LZ4")),
                    "the link was not negotiated with ZSTD alone: " + link);
            // values as the child interpolated them (BEGIN2/SET2), numbers in base64 IEEE754
            assertTrue(link.stream().anyMatch(l -> l.contains("INTERPOLATED") && l.contains("IEEE754")),
                    "the link was not negotiated with INTERPOLATED and IEEE754: " + link);
            UUID guid = UUID.fromString(child.machineGuid());
            NetdataChildToStrataParentIT.ChildOnParent known =
                    NetdataChildToStrataParentIT.awaitChildOnParent(child::get, guid, "nd2child", parent);
            JsonNode charts = known.charts();
            Map<String, Integer> strataCharts = known.strataCharts();
            StorageEngine engine = parent.engine();
            MetadataStore meta = engine.metadata();

            // what the child asks before it reconnects: the parent holds it, live
            java.net.HttpURLConnection ask = (java.net.HttpURLConnection) java.net.URI.create("http://127.0.0.1:"
                    + parent.port() + "/api/v3/stream_info?machine_guid=" + guid).toURL().openConnection();
            assertEquals(200, ask.getResponseCode());
            JsonNode info;
            try (java.io.InputStream in = ask.getInputStream()) {
                info = new com.fasterxml.jackson.databind.ObjectMapper().readTree(in);
            }
            assertEquals("child", info.get("ingest_type").asText(), info.toString());
            assertEquals("online", info.get("ingest_status").asText(), info.toString());
            assertEquals("live", info.get("db_liveness").asText(), info.toString());
            assertEquals(1, info.get("receivers").asInt(), info.toString());
            assertTrue(info.get("last_time_s").asLong() >= testStartSecond, "the newest second received is one the"
                    + " child collected during this test: " + info);

            long before = System.currentTimeMillis() / 1000 - 3;
            NetdataChildToStrataParentIT.compareValues(child::get, engine, meta, charts, strataCharts,
                    before - 10, before);

            // the whole history: everything the child stored, replicated or streamed, from each chart's
            // second point on. Its first point is not required: a Netdata child clamps its replication
            // answer to its first stored second and sends only the points after it (docs/replication.md,
            // "A chart's first seconds"), so it reaches a parent only if it was streamed live. A chart
            // the child makes during the test (a container that starts) has a later first point than the
            // others: each chart is compared from its own.
            int firstHeld = 0;
            int oneSecondCharts = 0;
            for (Iterator<String> it = charts.fieldNames(); it.hasNext(); ) {
                String id = it.next();
                JsonNode c = charts.get(id);
                if (c.get("update_every").asInt() != 1) {
                    continue;
                }
                oneSecondCharts++;
                long f = c.get("first_entry").asLong();
                int metric = meta.metrics(strataCharts.get(id)).get(0);
                boolean[] held = {false};
                engine.queryTier0(metric, f - 1, f, (t, sn) -> held[0] |= t == f
                        && !io.strata.engine.page.StorageNumber.isEmpty(sn));
                if (held[0]) {
                    firstHeld++;
                }
            }
            System.out.println("the parent holds the first point of " + firstHeld + " of " + oneSecondCharts
                    + " per-second charts of the 2.9.0 child");
            NetdataChildToStrataParentIT.compareValues(child::get, engine, meta, charts, strataCharts,
                    id -> charts.get(id).get("first_entry").asLong() + 1, before);
        }
    }
}
