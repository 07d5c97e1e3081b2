package io.strata.query;

import com.fasterxml.jackson.databind.JsonNode;
import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.HostInfo;
import io.strata.engine.page.StorageNumber;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * An engine holding what the recorded Netdata parent held: its two hosts, every chart and
 * dimension of their recorded {@code /charts} answers, each stored from the chart's recorded
 * first entry to {@link #LAST}. system.cpu carries the recorded values where the vectors show
 * them ({@link #CPU_FROM}..{@link #LAST}, recovered from the data answers) plus Netdata's hidden
 * {@code idle} dimension; everything else is a deterministic pattern.
 */
final class RecordedParent implements AutoCloseable {

    static final UUID PARENT = UUID.fromString("1761f17c-e5a4-11f1-aa0f-02fc00000001");
    static final UUID CHILD = UUID.fromString("192bb042-e5a4-11f1-b388-02fc00000001");
    static final long FIRST = 1795262837L;
    /** The parent's newest stored second (the vectors were taken at 112..114). */
    static final long LAST = 1795263113L;
    static final long CHILD_LAST = 1795263118L;
    /** The oldest second of system.cpu whose recorded values the vectors give. */
    static final long CPU_FROM = 1795263051L;
    static final String[] CPU_DIMS = {"guest_nice", "guest", "steal", "softirq", "irq", "user", "system", "nice", "iowait"};

    final StorageEngine engine;
    final MutableClock clock = new MutableClock(LAST + 1);
    final ApiContext api;
    /** Recorded parent system.cpu: second → the 9 visible values. */
    final Map<Long, double[]> cpu;
    /** Recorded child system.cpu (1795263108..117). */
    final Map<Long, double[]> childCpu;

    RecordedParent(Path dir) throws IOException {
        this.engine = StorageEngine.open(EngineConfig.defaults(dir).withFlushMaxAgeMillis(100));
        this.cpu = recordedCpu();
        this.childCpu = rows(Vectors.json("host-child-data").get("result"));
        define(PARENT, "ndq-parent", Vectors.json("info"), Vectors.json("charts"), LAST, cpu);
        define(CHILD, "ndq-child", Vectors.json("host-child-info"), Vectors.json("host-child-charts"), CHILD_LAST, childCpu);
        this.api = new ApiContext(engine, PARENT, "ndq-parent", null, clock, ApiContext.defaultExecutor(2));
    }

    /** system.cpu's recorded rows; 051 is recovered from the 10-second average ending at 060. */
    private static Map<Long, double[]> recordedCpu() {
        Map<Long, double[]> m = new HashMap<>();
        m.putAll(rows(Vectors.json("data-format-json")));
        m.putAll(rows(Vectors.json("data-opt-jsonwrap").get("result")));
        m.putAll(rows(Vectors.json("data-cors-origin")));
        double[] avg060 = null;
        for (JsonNode row : Vectors.json("data-group-average").get("result").get("data")) {
            if (row.get(0).asLong() == 1795263060L) {
                avg060 = new double[9];
                for (int i = 0; i < 9; i++) {
                    avg060[i] = row.get(i + 1).asDouble();
                }
            }
        }
        double[] v051 = new double[9];
        for (int i = 0; i < 9; i++) {
            double sum = avg060[i] * 10;
            for (long t = 1795263052L; t <= 1795263060L; t++) {
                sum -= m.get(t)[i];
            }
            // the average was printed with 7 decimals; round back to what a storage number holds
            v051[i] = Math.max(0, Math.round(sum * 1e5) / 1e5);
        }
        m.put(CPU_FROM, v051);
        return m;
    }

    static Map<Long, double[]> rows(JsonNode result) {
        Map<Long, double[]> m = new HashMap<>();
        for (JsonNode row : result.get("data")) {
            double[] v = new double[row.size() - 1];
            for (int i = 0; i < v.length; i++) {
                v[i] = row.get(i + 1).asDouble();
            }
            m.put(row.get(0).asLong(), v);
        }
        return m;
    }

    private void define(UUID guid, String hostname, JsonNode info, JsonNode charts, long last, Map<Long, double[]> cpuValues) {
        Map<String, String> labels = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : info.get("host_labels").properties()) {
            labels.put(e.getKey(), e.getValue().asText());
        }
        // the system facts a child's stream handshake gives (the recorded info shows them; the
        // parent's own host has none: its info answers from its labels)
        Map<String, String> system = new LinkedHashMap<>();
        for (String[] f : new String[][] {{"os_name", "NETDATA_HOST_OS_NAME"}, {"os_id", "NETDATA_HOST_OS_ID"},
                {"os_id_like", "NETDATA_HOST_OS_ID_LIKE"}, {"os_version", "NETDATA_HOST_OS_VERSION"},
                {"os_version_id", "NETDATA_HOST_OS_VERSION_ID"}, {"os_detection", "NETDATA_HOST_OS_DETECTION"},
                {"kernel_name", "NETDATA_SYSTEM_KERNEL_NAME"}, {"kernel_version", "NETDATA_SYSTEM_KERNEL_VERSION"},
                {"architecture", "NETDATA_SYSTEM_ARCHITECTURE"}, {"virtualization", "NETDATA_SYSTEM_VIRTUALIZATION"},
                {"virt_detection", "NETDATA_SYSTEM_VIRT_DETECTION"}, {"container", "NETDATA_SYSTEM_CONTAINER"},
                {"container_detection", "NETDATA_SYSTEM_CONTAINER_DETECTION"}}) {
            if (!guid.equals(PARENT) && info.hasNonNull(f[0])) {
                system.put(f[1], info.get(f[0]).asText());
            }
        }
        engine.metadata().upsertHost(new HostInfo(guid, hostname, "linux", "Etc/UTC", 1, labels, system));
        int metricIndex = 0;
        for (Map.Entry<String, JsonNode> entry : charts.get("charts").properties()) {
            JsonNode c = entry.getValue();
            String id = c.get("id").asText();
            String name = c.get("name").asText();
            String title = c.get("title").asText();
            String suffix = " (" + name + ")";
            if (title.endsWith(suffix)) {
                title = title.substring(0, title.length() - suffix.length());
            }
            Map<String, String> chartLabels = new LinkedHashMap<>();
            for (Map.Entry<String, JsonNode> e : c.get("chart_labels").properties()) {
                chartLabels.put(e.getKey(), e.getValue().asText());
            }
            int ue = c.get("update_every").asInt();
            engine.metadata().upsertChart(new ChartInfo(guid, id, name, title, c.get("units").asText(),
                    c.get("family").asText(), c.get("context").asText(), c.get("chart_type").asText(),
                    c.get("priority").asLong(), ue, c.get("plugin").asText(), c.get("module").asText(), chartLabels));
            List<Integer> metrics = new ArrayList<>();
            List<String> dimIds = new ArrayList<>();
            for (Map.Entry<String, JsonNode> e : c.get("dimensions").properties()) {
                String dimId = e.getKey();
                boolean negative = dimId.equals("writes") || dimId.equals("sent") || dimId.equals("out");
                metrics.add(engine.metadata().upsertDimension(new DimensionInfo(guid, id, dimId,
                        e.getValue().get("name").asText(), "incremental", negative ? -1 : 1, 1, 0)));
                dimIds.add(dimId);
            }
            boolean isCpu = id.equals("system.cpu");
            int idle = -1;
            if (isCpu) {
                idle = engine.metadata().upsertDimension(new DimensionInfo(guid, id, "idle", "idle", "incremental",
                        1, 1, DimensionInfo.FLAG_HIDDEN));
            }
            long first = c.get("first_entry").asLong();
            for (long t = first; t <= last; t += ue) {
                if (isCpu) {
                    double[] v = cpuValues.get(t);
                    if (v == null) {
                        v = syntheticCpu(t);
                    }
                    double sum = 0;
                    for (int i = 0; i < 9; i++) {
                        store(metrics.get(i), t, ue, v[i]);
                        sum += v[i];
                    }
                    store(idle, t, ue, Math.max(0, 100 - sum));
                } else {
                    for (int i = 0; i < metrics.size(); i++) {
                        double v = pattern(metricIndex + i, t);
                        store(metrics.get(i), t, ue, negativeDim(dimIds.get(i)) ? -v : v);
                    }
                }
            }
            metricIndex += metrics.size();
        }
    }

    private static boolean negativeDim(String id) {
        return id.equals("writes") || id.equals("sent") || id.equals("out");
    }

    private void store(int metric, long t, int ue, double v) {
        if (!engine.store(metric, t, ue, v, StorageNumber.SN_DEFAULT_FLAGS)) {
            throw new IllegalStateException("store refused metric " + metric + " at " + t);
        }
    }

    /** A deterministic value in [0, 50) with quarter steps: packs exactly. */
    static double pattern(int metric, long t) {
        return Math.floorMod(metric * 37L + t * 11L, 200L) / 4.0;
    }

    /** system.cpu before the recorded stretch: plausible percentages adding up to less than 100. */
    static double[] syntheticCpu(long t) {
        double[] v = new double[9];
        v[5] = 40 + Math.floorMod(t * 7, 40);
        v[6] = 5 + Math.floorMod(t * 3, 15);
        v[7] = Math.floorMod(t, 4) * 0.5;
        v[3] = Math.floorMod(t, 3) == 0 ? 0.5 : 0;
        return v;
    }

    @Override
    public void close() throws IOException {
        api.close();
        engine.close();
    }
}
