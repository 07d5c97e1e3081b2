package io.strata.node.compare;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/** The comparison as one table (both parents and Strata/Netdata) or one JSON object. */
public final class CompareReport {

    private record Row(String label, String format, ToDoubleFunction<ParentMeasurement> value, String jsonKey) {
    }

    private static final List<Row> ROWS = List.of(
            new Row("samples in the window (sent by the load)", "%.0f", ParentMeasurement::samplesInWindow,
                    "samples_in_window"),
            new Row("parent CPU, cores", "%.3f", ParentMeasurement::parentCores, "parent_cores"),
            new Row("parent CPU per sample, ns", "%.0f", ParentMeasurement::cpuNanosPerSample, "cpu_ns_per_sample"),
            new Row("samples per parent CPU-second", "%.0f", ParentMeasurement::samplesPerCpuSecond,
                    "samples_per_cpu_second"),
            new Row("RSS at the window's start, MiB", "%.1f", m -> m.rssStartBytes() / 1048576.0, "rss_start_mib"),
            new Row("RSS at the window's end, MiB", "%.1f", m -> m.rssEndBytes() / 1048576.0, "rss_end_mib"),
            new Row("threads", "%.0f", ParentMeasurement::threadsEnd, "threads"),
            new Row("rows read back", "%.0f", ParentMeasurement::rowsQueried, "rows_read_back"),
            new Row("rows with a gap (null)", "%.0f", ParentMeasurement::nullRows, "null_rows"),
            new Row("ingest lag at the end, worst host, s", "%.1f", ParentMeasurement::ingestLagMaxSeconds,
                    "ingest_lag_max_s"),
            new Row("tier 0 on disk, bytes per sample sent", "%.3f", ParentMeasurement::tier0BytesPerSample,
                    "tier0_bytes_per_sample_sent"),
            new Row("tier 0 bytes per sample, engine's own figure", "%.3f", ParentMeasurement::engineReportedTier0,
                    "tier0_bytes_per_sample_reported"),
            new Row("load generator CPU, cores", "%.3f", ParentMeasurement::loadCores, "load_cores"),
            new Row("load generator: share of its schedule sent", "%.4f", ParentMeasurement::loadKeptShare,
                    "load_kept_share"));

    private CompareReport() {
    }

    /** RSS per collected metric, which depends on the settings' metrics. */
    private static double rssPerMetric(long rss, CompareSettings s) {
        return (double) rss / s.metrics();
    }

    public static String table(Comparison.Result r) {
        CompareSettings s = r.settings();
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "Strata against Netdata 1.37.1: %d children x %d charts x %d dimensions "
                        + "= %d metrics, %.0f samples/s offered, LZ4 %s; window %d s after %d s%n", s.children(), s.charts(),
                s.dimensions(), s.metrics(), s.offeredPerSecond(), s.compression() ? "on" : "off", s.seconds(),
                s.warmup()));
        out.append("machine: ").append(r.machine()).append("; load average at the start: ")
                .append(r.loadAverageAtStart()).append('\n');
        if (r.netdata() == null) {
            out.append("netdata: skipped: ").append(r.netdataSkipped()).append('\n');
        }
        List<String[]> lines = new ArrayList<>();
        lines.add(new String[]{"", "Strata", "Netdata", "Strata/Netdata"});
        List<Row> rows = new ArrayList<>(ROWS);
        rows.add(6, new Row("RSS per collected metric at the start, bytes", "%.0f",
                m -> rssPerMetric(m.rssStartBytes(), s), ""));
        rows.add(7, new Row("RSS per collected metric at the end, bytes", "%.0f",
                m -> rssPerMetric(m.rssEndBytes(), s), ""));
        for (Row row : rows) {
            double a = row.value().applyAsDouble(r.strata());
            double b = r.netdata() == null ? Double.NaN : row.value().applyAsDouble(r.netdata());
            lines.add(new String[]{row.label(), fmt(row.format(), a), fmt(row.format(), b), ratio(a, b)});
        }
        lines.add(new String[]{"load generator kept its schedule", yesNo(r.strata().loadKeptSchedule()),
                r.netdata() == null ? "-" : yesNo(r.netdata().loadKeptSchedule()), ""});
        int[] w = new int[4];
        for (String[] l : lines) {
            for (int i = 0; i < 4; i++) {
                w[i] = Math.max(w[i], l[i].length());
            }
        }
        for (String[] l : lines) {
            out.append(String.format(Locale.ROOT, "%-" + w[0] + "s  %" + w[1] + "s  %" + w[2] + "s  %" + w[3] + "s%n",
                    l[0], l[1], l[2], l[3]));
        }
        for (ParentMeasurement m : new ParentMeasurement[]{r.strata(), r.netdata()}) {
            if (m == null) {
                continue;
            }
            out.append(m.name()).append(" CPU by thread:");
            for (Map.Entry<String, Double> e : m.cpuByThread()) {
                out.append(String.format(Locale.ROOT, " %s %.0f%%", e.getKey(), 100 * e.getValue() / m.parentCpuSeconds()));
            }
            out.append('\n');
            out.append(m.name()).append(" tier 0 engine figure: ").append(m.engineReportedHow()).append('\n');
            m.queryErrors().forEach(e -> out.append(m.name()).append(" read-back error: ").append(e).append('\n'));
            m.loadErrors().forEach(e -> out.append(m.name()).append(" load error: ").append(e).append('\n'));
        }
        return out.toString();
    }

    public static String json(Comparison.Result r) {
        ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode root = mapper.createObjectNode();
        CompareSettings s = r.settings();
        ObjectNode load = root.putObject("load");
        load.put("children", s.children());
        load.put("charts", s.charts());
        load.put("dimensions", s.dimensions());
        load.put("metrics", s.metrics());
        load.put("rate", s.rate());
        load.put("samples_offered_per_second", s.offeredPerSecond());
        load.put("compression", s.compression());
        load.put("warmup_seconds", s.warmup());
        load.put("window_seconds", s.seconds());
        root.put("machine", r.machine());
        root.put("load_average_at_start", r.loadAverageAtStart());
        root.set("strata", part(mapper, r.strata(), s));
        if (r.netdata() != null) {
            root.set("netdata", part(mapper, r.netdata(), s));
            ObjectNode ratios = root.putObject("ratios_strata_to_netdata");
            for (Row row : ROWS) {
                double a = row.value().applyAsDouble(r.strata());
                double b = row.value().applyAsDouble(r.netdata());
                putNumber(ratios, row.jsonKey(), b == 0 || Double.isNaN(a) || Double.isNaN(b) ? Double.NaN : a / b);
            }
            putNumber(ratios, "rss_per_metric_end", (double) r.strata().rssEndBytes() / r.netdata().rssEndBytes());
        } else {
            root.putNull("netdata");
            root.put("netdata_skipped", r.netdataSkipped());
        }
        try {
            return mapper.writeValueAsString(root);
        } catch (IOException e) {
            throw new IllegalStateException("cannot write the comparison as JSON", e);
        }
    }

    private static ObjectNode part(ObjectMapper mapper, ParentMeasurement m, CompareSettings s) {
        ObjectNode o = mapper.createObjectNode();
        o.put("window_seconds", m.windowSeconds());
        for (Row row : ROWS) {
            putNumber(o, row.jsonKey(), row.value().applyAsDouble(m));
        }
        o.put("parent_cpu_seconds", m.parentCpuSeconds());
        o.put("rss_start_bytes", m.rssStartBytes());
        o.put("rss_end_bytes", m.rssEndBytes());
        putNumber(o, "rss_per_metric_start_bytes", rssPerMetric(m.rssStartBytes(), s));
        putNumber(o, "rss_per_metric_end_bytes", rssPerMetric(m.rssEndBytes(), s));
        putNumber(o, "ingest_lag_median_s", m.ingestLagMedianSeconds());
        o.put("tier0_bytes", m.tier0Bytes());
        o.put("tier0_reported_how", m.engineReportedHow());
        o.put("load_samples_sent", m.loadSent());
        o.put("load_samples_offered", Math.round(m.loadOffered()));
        o.put("load_cpu_seconds", m.loadCpuSeconds());
        o.put("load_kept_schedule", m.loadKeptSchedule());
        ArrayNode threads = o.putArray("cpu_by_thread");
        for (Map.Entry<String, Double> e : m.cpuByThread()) {
            ObjectNode t = threads.addObject();
            t.put("thread", e.getKey());
            t.put("cpu_seconds", e.getValue());
        }
        ArrayNode qe = o.putArray("read_back_errors");
        m.queryErrors().forEach(qe::add);
        ArrayNode le = o.putArray("load_errors");
        m.loadErrors().forEach(le::add);
        return o;
    }

    private static void putNumber(ObjectNode o, String key, double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            o.putNull(key);
        } else {
            o.put(key, v);
        }
    }

    private static String fmt(String format, double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, format, v);
    }

    private static String ratio(double a, double b) {
        if (Double.isNaN(a) || Double.isNaN(b) || b == 0) {
            return "-";
        }
        return String.format(Locale.ROOT, "%.2f", a / b);
    }

    private static String yesNo(boolean b) {
        return b ? "yes" : "no";
    }
}
