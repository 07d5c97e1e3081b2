package io.strata.micrometer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MockClock;
import io.micrometer.core.instrument.Timer;
import io.strata.streaming.child.ChartSink;
import io.strata.streaming.child.ProcChart;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Which charts a registry's meters become, and what each step collects, on a clock the test moves. */
class StrataMeterRegistryChartsTest {

    private static final UUID HOST = UUID.fromString("0d9f6e3c-5b1a-4f7e-9a51-000000000003");

    /** What the registry hands its sink. */
    private static final class Recorded implements ChartSink {
        final Map<String, ProcChart> defined = new LinkedHashMap<>();
        /** The last collection of each chart: "time v1 v2 ..." by chart id. */
        final Map<String, String> collected = new LinkedHashMap<>();
        int collections;
        int passes;

        @Override
        public void define(ProcChart chart) {
            defined.put(chart.id(), chart);
        }

        @Override
        public void collect(ProcChart chart, long nowMicros) {
            StringBuilder sb = new StringBuilder().append(nowMicros / 1_000_000L);
            for (long v : chart.values) {
                sb.append(' ').append(v);
            }
            collected.put(chart.id(), sb.toString());
            collections++;
        }

        @Override
        public void passDone() {
            passes++;
        }
    }

    @Test
    void metersBecomeChartsAndEachStepCollectsTheirValuesAtTheClocksTime() {
        MockClock clock = new MockClock();
        clock.add(Duration.ofSeconds(1_700_000_000L).minusMillis(clock.wallTime()));
        Recorded sink = new Recorded();
        StrataMeterRegistry registry = new StrataMeterRegistry(sink, HOST, "my.app", 1, clock);
        try {
            Counter orders = Counter.builder("orders.placed").tag("region", "eu").register(registry);
            AtomicInteger queue = new AtomicInteger(42);
            Gauge.builder("queue.size", queue, AtomicInteger::get).baseUnit("jobs").register(registry);
            Timer timer = Timer.builder("http.requests").register(registry);

            registry.defineNow();
            assertEquals(Set.of("my_app.orders_placed_region_eu", "my_app.queue_size", "my_app.http_requests"),
                    sink.defined.keySet());
            ProcChart counterChart = sink.defined.get("my_app.orders_placed_region_eu");
            assertEquals("incremental", counterChart.dimensions().get(0).algorithm());
            assertEquals(1000, counterChart.dimensions().get(0).divisor());
            assertEquals("eu", counterChart.info().labels().get("region"));
            assertEquals("my_app.orders_placed", counterChart.info().context());
            assertEquals("jobs", sink.defined.get("my_app.queue_size").info().units());
            assertEquals(List.of("count", "sum", "max"),
                    sink.defined.get("my_app.http_requests").dimensions().stream().map(d -> d.id()).toList());
            assertEquals(Map.of("my_app.orders_placed_region_eu", "1700000000 0", "my_app.queue_size", "1700000000 42000",
                    "my_app.http_requests", "1700000000 0 0 0"), sink.collected);

            // one step: the counter's step count goes into its running total, once
            orders.increment(3);
            timer.record(Duration.ofMillis(5));
            queue.set(7);
            clock.add(Duration.ofSeconds(1));
            registry.defineNow();
            assertEquals("1700000001 3000", sink.collected.get("my_app.orders_placed_region_eu"));
            assertEquals("1700000001 7000", sink.collected.get("my_app.queue_size"));
            assertEquals("1700000001 1000 5000 5000", sink.collected.get("my_app.http_requests"));
            registry.defineNow();
            assertEquals("1700000001 3000", sink.collected.get("my_app.orders_placed_region_eu"),
                    "the same step is not added twice");
            assertEquals(3, sink.passes);
            assertEquals(9, sink.collections);
            assertArrayEquals(new long[] {3000}, counterChart.values);
        } finally {
            registry.close();
        }
    }
}
