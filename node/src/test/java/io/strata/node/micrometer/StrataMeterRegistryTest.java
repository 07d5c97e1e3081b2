package io.strata.node.micrometer;

import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.MetadataStore;
import io.strata.engine.page.StorageNumber;
import io.strata.micrometer.EmbeddedChild;
import io.strata.micrometer.StrataMeterRegistry;
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
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/** A JVM application's meters stream, through an embedded child, into an in-process Strata parent. */
class StrataMeterRegistryTest {

    static final String KEY = "11111111-2222-3333-4444-555555555555";

    @TempDir
    Path tmp;

    @Test
    void metersBecomeChartsOnTheParent() throws Exception {
        Path pconf = tmp.resolve("parent");
        Files.createDirectories(pconf);
        Files.writeString(pconf.resolve("netdata.conf"), "[global]\n\thostname = parent\n[db]\n\tstorage tiers = 1\n"
                + "[web]\n\tbind to = 127.0.0.1:0\n"
                + "[directories]\n\tcache = " + pconf.resolve("cache") + "\n\tlib = " + pconf.resolve("lib") + "\n");
        Files.writeString(pconf.resolve("stream.conf"), "[stream]\n\tenabled = no\n\n[" + KEY + "]\n\tenabled = yes\n"
                + "\tallow from = *\n");
        try (StrataNode parent = NodeRoles.start(NodeConfig.load(pconf), null)) {
            String streamConf = "[stream]\n\tenabled = yes\n\tdestination = 127.0.0.1:"
                    + parent.listening().get(0).getPort() + "\n\tapi key = " + KEY + "\n";
            try (EmbeddedChild child = EmbeddedChild.open(tmp.resolve("app"), "jvm-app", 1, streamConf);
                 StrataMeterRegistry registry = new StrataMeterRegistry(child, "app", Clock.SYSTEM)) {
                Counter orders = Counter.builder("orders.placed").tag("region", "eu").register(registry);
                AtomicInteger queue = new AtomicInteger(42);
                Gauge.builder("queue.size", queue, AtomicInteger::get).baseUnit("jobs").register(registry);
                Timer timer = Timer.builder("http.requests").register(registry);
                registry.defineNow();
                child.connect();
                registry.startPublishing();
                // a meter registered while connected: its chart goes to the parent on this connection
                AtomicInteger late = new AtomicInteger(7);
                Gauge.builder("late.gauge", late, AtomicInteger::get).register(registry);
                // The application runs until the parent holds what the checks want, at most 2 min: a
                // busy machine may take long to connect and to publish. The counter grows by 10 a
                // second of wall time, whatever the pace of this loop.
                long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
                long last = System.nanoTime();
                long nextCheck = last + Duration.ofSeconds(8).toNanos();
                String missing = "not checked";
                while (System.nanoTime() < deadline) {
                    long now = System.nanoTime();
                    orders.increment(10.0 * (now - last) / 1e9);
                    last = now;
                    timer.record(Duration.ofMillis(5));
                    if (now >= nextCheck) {
                        missing = missingOnTheParent(parent, child.machineGuid());
                        if (missing == null) {
                            break;
                        }
                        nextCheck = now + Duration.ofSeconds(1).toNanos();
                    }
                    Thread.sleep(100);
                }
                assertNull(missing, missing);

                MetadataStore meta = parent.engine().metadata();
                int host = meta.hostId(child.machineGuid());
                assertEquals("jvm-app", meta.host(host).hostname());
                Map<String, Integer> charts = charts(meta, host);
                ChartInfo counterChart = meta.chart(charts.get("app.orders_placed_region_eu"));
                assertEquals("app.orders_placed", counterChart.context());
                assertEquals("orders", counterChart.family());
                assertEquals("eu", counterChart.labels().get("region"));
                Map<String, DimensionInfo> timerDims = dims(meta, charts.get("app.http_requests"));
                assertEquals("incremental", timerDims.get("count").algorithm());
                assertEquals("incremental", timerDims.get("sum").algorithm());
                assertEquals("absolute", timerDims.get("max").algorithm());
            }
        }
    }

    /** What the parent does not hold yet of the application's meters; null when it holds all. */
    private static String missingOnTheParent(StrataNode parent, UUID app) throws Exception {
        MetadataStore meta = parent.engine().metadata();
        int host = meta.hostId(app);
        if (host < 0) {
            return "the parent does not know the application's host";
        }
        Map<String, Integer> charts = charts(meta, host);
        if (!charts.keySet().containsAll(List.of("app.orders_placed_region_eu", "app.queue_size",
                "app.http_requests", "app.late_gauge"))) {
            return "charts on the parent: " + charts.keySet();
        }
        StorageEngine engine = parent.engine();
        long now = System.currentTimeMillis() / 1000;
        List<Double> gauge = values(engine, meta, charts.get("app.queue_size"), "value", now - 6, now);
        if (gauge.size() < 3 || !gauge.stream().allMatch(v -> Math.abs(v - 42.0) < 1e-6)) {
            return "gauge points on the parent: " + gauge;
        }
        List<Double> lateValues = values(engine, meta, charts.get("app.late_gauge"), "value", now - 4, now);
        if (lateValues.size() < 2 || !lateValues.stream().allMatch(v -> Math.abs(v - 7.0) < 1e-6)) {
            return "the late meter's points on the parent: " + lateValues;
        }
        // 10 a second, counted per step of 1 s
        List<Double> rate = values(engine, meta, charts.get("app.orders_placed_region_eu"), "count", now - 5, now);
        if (rate.stream().noneMatch(v -> v >= 5 && v <= 12)) {
            return "counter rates: " + rate;
        }
        List<Double> max = values(engine, meta, charts.get("app.http_requests"), "max", now - 5, now);
        if (max.stream().noneMatch(v -> Math.abs(v - 5.0) < 0.01)) {
            return "timer max (ms): " + max;
        }
        return null;
    }

    private static Map<String, Integer> charts(MetadataStore meta, int host) {
        Map<String, Integer> charts = new HashMap<>();
        for (int c : meta.charts(host)) {
            charts.put(meta.chart(c).id(), c);
        }
        return charts;
    }

    private static Map<String, DimensionInfo> dims(MetadataStore meta, int chart) {
        Map<String, DimensionInfo> m = new HashMap<>();
        for (int metric : meta.metrics(chart)) {
            m.put(meta.dimension(metric).id(), meta.dimension(metric));
        }
        return m;
    }

    private static List<Double> values(StorageEngine engine, MetadataStore meta, int chart, String dim, long after,
                                       long before) throws Exception {
        Integer metric = null;
        for (int m : meta.metrics(chart)) {
            if (meta.dimension(m).id().equals(dim)) {
                metric = m;
            }
        }
        assertNotNull(metric, "no dimension " + dim);
        List<Double> out = new ArrayList<>();
        engine.queryTier0(metric, after, before, (t, sn) -> {
            if (!StorageNumber.isEmpty(sn)) {
                out.add(StorageNumber.unpack(sn));
            }
        });
        return out;
    }
}
