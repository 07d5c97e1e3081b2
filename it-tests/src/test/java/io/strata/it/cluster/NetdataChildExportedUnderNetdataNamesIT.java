package io.strata.it.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import io.strata.exporting.config.DataSource;
import io.strata.exporting.remotewrite.NetdataNames;
import io.strata.it.netdata.RealNetdata;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A real Netdata 1.37.1 child streams into a Strata parent that exports to a real VictoriaMetrics: the
 * child's charts arrive under the names Netdata's own remote-write connector gives them
 * ({@code netdata_<context>_<units>_average} with {@code chart}, {@code family}, {@code dimension} and
 * {@code instance} labels), every dimension that has values, of every chart.
 */
class NetdataChildExportedUnderNetdataNamesIT {

    static final String CHILD = "ndchild";

    /** The value of {@code name} in a series' sorted label text {@code {a=b, c=d}}. */
    private static String label(String key, String name) {
        String body = key.substring(1, key.length() - 1);
        for (String part : body.split(", (?=[A-Za-z_][A-Za-z0-9_]*=)")) {
            int eq = part.indexOf('=');
            if (part.substring(0, eq).equals(name)) {
                return part.substring(eq + 1);
            }
        }
        return null;
    }

    @Test
    void realNetdataChildArrivesUnderNetdatasNames() throws Exception {
        RealNetdata.assumeInstalled();
        String absent = RemoteWriteTarget.absent(RemoteWriteTarget.Kind.VICTORIA_METRICS);
        if (absent != null) {
            System.out.println("[NetdataChildExportedUnderNetdataNamesIT] skipped: " + absent);
        }
        Assumptions.assumeTrue(absent == null, absent);
        Path tmp = ClusterLayout.runDirectory("NetdataChildExportedUnderNetdataNamesIT");
        int parentPort = ClusterLayout.freePort();
        NodeProcess parent = ClusterLayout.parent(tmp, "parent", parentPort, List.of());
        try (RemoteWriteTarget vm = new RemoteWriteTarget(RemoteWriteTarget.Kind.VICTORIA_METRICS,
                tmp.resolve("vm"), ClusterLayout.freePort());
             parent;
             RealNetdata child = RealNetdata.child(tmp.resolve(CHILD), CHILD, RealNetdata.freePort(),
                     "127.0.0.1:" + parentPort, true)) {
            Files.writeString(parent.dir.resolve("exporting.conf"), "[exporting:global]\n\tenabled = yes\n"
                    + "[prometheus_remote_write:vm]\n\tenabled = yes\n\tdestination = 127.0.0.1:" + vm.port + "\n"
                    + "\tremote write URL path = /api/v1/write\n\tupdate every = 1\n"
                    + "\tsend hosts matching = " + CHILD + "\n");
            vm.start();
            parent.start();
            child.start(Duration.ofSeconds(240));
            ClusterChecks.waitForHosts(parent, List.of(CHILD), Duration.ofSeconds(90));
            // what the parent holds of the child: every chart with its context, units, family, dimensions
            Thread.sleep(10_000);
            JsonNode charts = ClusterApi.get(parent, "/host/" + CHILD + "/api/v1/charts").get("charts");
            List<String[]> expected = new ArrayList<>();
            Iterator<Map.Entry<String, JsonNode>> it = charts.fields();
            while (it.hasNext()) {
                JsonNode c = it.next().getValue();
                String name = NetdataNames.metricName("netdata", c.get("context").asText(), c.get("units").asText(),
                        DataSource.AVERAGE);
                // the dimensions that have values (a dimension Netdata never filled, e.g. an absent
                // interface's operstate, has no sample to send)
                JsonNode data;
                try {
                    data = ClusterApi.get(parent, "/host/" + CHILD + "/api/v1/data?chart=" + c.get("id").asText()
                            + "&after=-120&format=json&options=seconds");
                } catch (IOException e) {
                    // a chart defined with nothing stored in the window yet (a real child under load
                    // collects a 5-second chart late): no value to send, as Netdata answers it
                    if (String.valueOf(e.getMessage()).contains("answered 404: No metrics where matched")) {
                        continue;
                    }
                    throw e;
                }
                JsonNode labels = data.get("labels");
                for (int j = 1; j < labels.size(); j++) {
                    boolean any = false;
                    for (JsonNode row : data.get("data")) {
                        any |= !row.get(j).isNull();
                    }
                    if (any) {
                        expected.add(new String[] {name, c.get("name").asText(), labels.get(j).asText()});
                    }
                }
            }
            assertTrue(expected.size() > 100, "the child has few dimensions: " + expected.size());
            // Netdata's names for the charts every Linux child has, written out as Netdata 1.37.1 gives them
            List<String> known = List.of(
                    "{__name__=netdata_system_cpu_percentage_average, chart=system.cpu, dimension=user, family=cpu,"
                            + " instance=" + CHILD + ", ",
                    "{__name__=netdata_system_load_load_average, chart=system.load, dimension=load1, family=load,"
                            + " instance=" + CHILD + ", ",
                    "{__name__=netdata_system_ram_MiB_average, chart=system.ram, dimension=free, family=ram,"
                            + " instance=" + CHILD + ", ");
            long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
            List<String> missing = List.of();
            List<String> lastKeys = List.of();
            long now = System.currentTimeMillis() / 1000;
            while (System.nanoTime() < deadline) {
                Map<String, List<double[]>> raw = vm.rawSamples("{instance=\"" + CHILD + "\"}", now - 600, now + 600);
                List<String> keys = new ArrayList<>(raw.keySet());
                // (name, chart, dimension) of every series; chart labels (e.g. cpu=cpu0) sort among them
                java.util.Set<String> triples = new java.util.HashSet<>();
                for (String k : keys) {
                    triples.add(label(k, "__name__") + "|" + label(k, "chart") + "|" + label(k, "dimension"));
                }
                List<String> miss = new ArrayList<>();
                for (String k : known) {
                    if (keys.stream().noneMatch(x -> x.startsWith(k))) {
                        miss.add(k);
                    }
                }
                for (String[] e : expected) {
                    if (!triples.contains(e[0] + "|" + e[1] + "|" + e[2])) {
                        miss.add("{__name__=" + e[0] + ", chart=" + e[1] + ", dimension=" + e[2] + ", ...}");
                    }
                }
                missing = miss;
                lastKeys = keys;
                if (missing.isEmpty()) {
                    System.out.println("[NetdataChildExportedUnderNetdataNamesIT] " + expected.size() + " dimensions of "
                            + charts.size() + " charts of a real Netdata child in VictoriaMetrics under Netdata's names,"
                            + " e.g. " + keys.stream().filter(x -> x.startsWith(known.get(0))).findFirst().orElse(""));
                    return;
                }
                Thread.sleep(1000);
            }
            java.util.TreeSet<String> missingCharts = new java.util.TreeSet<>();
            for (String m : missing) {
                missingCharts.add(m.replaceAll(".*chart=([^,]*),.*", "$1"));
            }
            String first = missingCharts.isEmpty() ? "" : missingCharts.first();
            fail(missing.size() + " of " + expected.size() + " dimensions not in the target, of charts " + missingCharts
                    + ", e.g. " + missing.subList(0, Math.min(5, missing.size())) + "; the target's series of " + first
                    + ": " + lastKeys.stream().filter(k -> k.contains("chart=" + first + ",")).toList() + "\n"
                    + parent.tail(30));
        }
    }
}
