package io.strata.it.netdata;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.MetadataStore;
import io.strata.node.config.NodeConfig;
import io.strata.node.runtime.NodeRoles;
import io.strata.node.runtime.StrataNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
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
 * Strata's /proc collectors against the real Netdata 1.37.1 on the same machine (both read the
 * same /proc): a real Netdata child and a Strata child (proc = yes, no synthetic charts) both
 * stream into one Strata parent. For every chart the Strata child makes, Netdata's own
 * {@code /api/v1/charts} must have the chart with the same name, type, family, context, title,
 * priority, units, chart type, update_every, plugin, module and dimension ids and names; the
 * parent's metadata of the two hosts must have the same algorithm, multiplier, divisor and
 * hidden flag for every dimension (what the stream's DIMENSION lines carry); and a few values
 * must agree loosely (RAM within a few % of the machine's RAM, uptime within 2 s).
 */
class ProcChartsMatchNetdataIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The charts the brief names: the Strata child must make each of them (where the machine has it). */
    private static final String[] REQUIRED = {"system.cpu", "cpu.cpu0", "system.load", "system.ram", "mem.available",
            "system.io", "system.net", "system.processes", "system.forks", "system.ctxt", "system.intr",
            "system.interrupts", "system.uptime", "system.pgpgio"};

    @TempDir
    Path tmp;

    @Test
    void strataProcChartsAreNetdatasProcCharts() throws Exception {
        RealNetdata.assumeInstalled();
        try (StrataTestParent parent = StrataTestParent.start(tmp.resolve("strata-parent"), false);
             RealNetdata netdata = RealNetdata.child(tmp.resolve("ndchild"), "ndchild", RealNetdata.freePort(),
                     "127.0.0.1:" + parent.port(), false)) {
            netdata.start(Duration.ofSeconds(180));
            Path conf = tmp.resolve("strata-child");
            Files.createDirectories(conf);
            Files.writeString(conf.resolve("netdata.conf"), "[global]\n\thostname = strata-child\n"
                    + "[web]\n\tbind to = 127.0.0.1:0\n"
                    + "[directories]\n\tcache = " + conf.resolve("cache") + "\n\tlib = " + conf.resolve("lib") + "\n"
                    + "[plugins]\n\tproc = yes\n");
            Files.writeString(conf.resolve("stream.conf"), "[stream]\n\tenabled = yes\n"
                    + "\tdestination = 127.0.0.1:" + parent.port() + "\n"
                    + "\tapi key = " + RealNetdata.API_KEY + "\n"
                    + "\tenable compression = no\n");
            try (StrataNode child = NodeRoles.start(NodeConfig.load(conf), null)) {
                assertTrue(netdata.waitForLog("established link with negotiated capabilities", Duration.ofSeconds(30)),
                        "the real child did not connect to the Strata parent: " + netdata.errorLog());
                int port = child.listening().get(0).getPort();
                // both collect for a while: Netdata's "auto" charts appear once their counters move
                Thread.sleep(15_000);

                JsonNode ours = get(port, "/api/v1/charts").get("charts");
                JsonNode theirs = netdata.get("/api/v1/charts").get("charts");
                for (String id : REQUIRED) {
                    if (theirs.has(id)) {
                        assertTrue(ours.has(id), "Strata makes no " + id + " though Netdata does here");
                    }
                }
                List<String> problems = new ArrayList<>();
                int compared = compareDefinitions(ours, theirs, problems);
                compareAlgorithms(parent, UUID.fromString(netdata.machineGuid()), problems);
                compareValues(port, netdata, problems);
                System.out.println("compared " + compared + " charts of the Strata child with the real Netdata's: "
                        + problems.size() + " differences");
                if (!problems.isEmpty()) {
                    fail(problems.size() + " differences:\n  " + String.join("\n  ", problems));
                }
                assertTrue(compared >= 15, "too few charts compared: " + compared);
            }
        }
    }

    private static final String[] FIELDS = {"name", "type", "family", "context", "title", "priority", "units",
            "chart_type", "update_every", "plugin", "module"};

    private static int compareDefinitions(JsonNode ours, JsonNode theirs, List<String> problems) {
        int compared = 0;
        for (Iterator<String> it = ours.fieldNames(); it.hasNext(); ) {
            String id = it.next();
            JsonNode o = ours.get(id);
            JsonNode t = theirs.get(id);
            if (t == null) {
                problems.add(id + ": Netdata has no such chart");
                continue;
            }
            compared++;
            for (String f : FIELDS) {
                if (!o.path(f).asText().equals(t.path(f).asText())) {
                    problems.add(id + "." + f + ": Strata '" + o.path(f).asText() + "', Netdata '"
                            + t.path(f).asText() + "'");
                }
            }
            Map<String, String> od = dimensions(o);
            Map<String, String> td = dimensions(t);
            if (!od.equals(td)) {
                problems.add(id + ".dimensions: Strata " + od + ", Netdata " + td);
            }
            Map<String, String> ol = labels(o);
            Map<String, String> tl = labels(t);
            if (!ol.equals(tl)) {
                // labels are not among the fields dashboards key on: reported, not failed
                System.out.println("labels of " + id + " differ: Strata " + ol + ", Netdata " + tl);
            }
        }
        return compared;
    }

    private static Map<String, String> dimensions(JsonNode chart) {
        Map<String, String> m = new TreeMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = chart.path("dimensions").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            m.put(e.getKey(), e.getValue().path("name").asText());
        }
        return m;
    }

    private static Map<String, String> labels(JsonNode chart) {
        Map<String, String> m = new TreeMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = chart.path("chart_labels").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            m.put(e.getKey(), e.getValue().asText());
        }
        return m;
    }

    /** The parent holds both hosts' DIMENSION lines: algorithm, multiplier, divisor, hidden. */
    private static void compareAlgorithms(StrataTestParent parent, UUID netdataGuid, List<String> problems) {
        MetadataStore meta = parent.engine().metadata();
        int nd = meta.hostId(netdataGuid);
        int st = -1;
        for (int h = 0; h < meta.hosts().size(); h++) {
            if (meta.host(h).hostname().equals("strata-child")) {
                st = h;
            }
        }
        if (nd < 0 || st < 0) {
            problems.add("the parent lacks a host: netdata " + nd + ", strata-child " + st);
            return;
        }
        Map<String, Integer> netdataCharts = new HashMap<>();
        for (int c : meta.charts(nd)) {
            netdataCharts.put(meta.chart(c).id(), c);
        }
        int dims = 0;
        for (int c : meta.charts(st)) {
            ChartInfo ci = meta.chart(c);
            Integer other = netdataCharts.get(ci.id());
            if (other == null) {
                problems.add(ci.id() + ": the real child did not stream such a chart");
                continue;
            }
            Map<String, DimensionInfo> theirs = new HashMap<>();
            for (int m : meta.metrics(other)) {
                DimensionInfo d = meta.dimension(m);
                theirs.put(d.id(), d);
            }
            for (int m : meta.metrics(c)) {
                DimensionInfo d = meta.dimension(m);
                DimensionInfo t = theirs.get(d.id());
                dims++;
                if (t == null) {
                    problems.add(ci.id() + "/" + d.id() + ": the real child streamed no such dimension");
                    continue;
                }
                boolean hidden = (d.flags() & DimensionInfo.FLAG_HIDDEN) != 0;
                boolean theirHidden = (t.flags() & DimensionInfo.FLAG_HIDDEN) != 0;
                if (!d.algorithm().equals(t.algorithm()) || d.multiplier() != t.multiplier()
                        || d.divisor() != t.divisor() || hidden != theirHidden) {
                    problems.add(ci.id() + "/" + d.id() + ": Strata " + d.algorithm() + " " + d.multiplier() + "/"
                            + d.divisor() + (hidden ? " hidden" : "") + ", Netdata " + t.algorithm() + " "
                            + t.multiplier() + "/" + t.divisor() + (theirHidden ? " hidden" : ""));
                }
            }
        }
        System.out.println("compared algorithm, multiplier and divisor of " + dims + " dimensions");
        if (dims < 40) {
            problems.add("only " + dims + " dimensions reached the parent from the Strata child");
        }
    }

    private static void compareValues(int port, RealNetdata netdata, List<String> problems) throws IOException {
        double totalMiB = 0;
        Map<String, Double> ram = lastValues(get(port, dataQuery("system.ram")));
        Map<String, Double> ndRam = lastValues(netdata.get(dataQuery("system.ram")));
        for (double v : ndRam.values()) {
            totalMiB += v;
        }
        for (String dim : new String[]{"used", "free", "cached", "buffers"}) {
            close(problems, "system.ram/" + dim, ram.get(dim), ndRam.get(dim), 0.03 * totalMiB);
        }
        close(problems, "mem.available/avail", lastValues(get(port, dataQuery("mem.available"))).get("avail"),
                lastValues(netdata.get(dataQuery("mem.available"))).get("avail"), 0.03 * totalMiB);
        close(problems, "system.uptime/uptime", lastValues(get(port, dataQuery("system.uptime"))).get("uptime"),
                lastValues(netdata.get(dataQuery("system.uptime"))).get("uptime"), 2.0);
        close(problems, "system.active_processes/active",
                lastValues(get(port, dataQuery("system.active_processes"))).get("active"),
                lastValues(netdata.get(dataQuery("system.active_processes"))).get("active"), 50);
        System.out.println("system.ram Strata " + ram + ", Netdata " + ndRam);
    }

    private static void close(List<String> problems, String what, Double ours, Double theirs, double tolerance) {
        if (ours == null || theirs == null || Math.abs(ours - theirs) > tolerance) {
            problems.add(what + ": Strata " + ours + ", Netdata " + theirs + " (tolerance " + tolerance + ")");
        }
    }

    private static String dataQuery(String chart) {
        return "/api/v1/data?chart=" + chart + "&after=-4&before=-1&points=1&group=average&format=json"
                + "&options=seconds%7Cabsolute";
    }

    /** Dimension name to value of the one point of a data query. */
    private static Map<String, Double> lastValues(JsonNode data) {
        Map<String, Double> m = new HashMap<>();
        JsonNode labels = data.get("labels");
        JsonNode row = data.path("data").path(0);
        for (int i = 1; labels != null && i < labels.size(); i++) {
            JsonNode v = row.path(i);
            if (v.isNumber()) {
                m.put(labels.get(i).asText(), v.asDouble());
            }
        }
        return m;
    }

    private static JsonNode get(int port, String pathAndQuery) throws IOException {
        HttpURLConnection c = (HttpURLConnection) URI.create("http://127.0.0.1:" + port + pathAndQuery).toURL()
                .openConnection();
        c.setConnectTimeout(2000);
        c.setReadTimeout(10_000);
        int status = c.getResponseCode();
        try (InputStream in = status < 400 ? c.getInputStream() : c.getErrorStream()) {
            String body = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
            if (status >= 400) {
                throw new IOException("GET " + pathAndQuery + " -> " + status + ": " + body);
            }
            return JSON.readTree(body);
        } finally {
            c.disconnect();
        }
    }
}
