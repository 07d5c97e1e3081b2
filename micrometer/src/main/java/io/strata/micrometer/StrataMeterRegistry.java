package io.strata.micrometer;

import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.Measurement;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.step.StepMeterRegistry;
import io.micrometer.core.instrument.step.StepRegistryConfig;
import io.micrometer.core.instrument.util.NamedThreadFactory;
import io.strata.streaming.child.ChartSink;
import io.strata.streaming.child.LocalChartsSink;
import io.strata.streaming.child.ProcChart;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * A Micrometer registry whose meters become Netdata charts of an {@link EmbeddedChild}, streamed to
 * its parents. Every step (the child's update_every) each meter is collected as raw integers
 * (values times 1000, divisor 1000, so fractions survive):
 * <ul>
 *   <li>counter, function counter: one {@code incremental} dimension "count" over the running total
 *       (Netdata shows events/s);</li>
 *   <li>gauge, time gauge: one {@code absolute} dimension "value";</li>
 *   <li>timer, function timer: "count" (incremental: calls/s), "sum" (incremental: milliseconds
 *       spent per second) and, for timers, "max" (absolute, ms, the step's maximum);</li>
 *   <li>distribution summary: the same in the summary's base unit;</li>
 *   <li>long task timer: "active" and "duration" (ms), both absolute;</li>
 *   <li>any other meter: one absolute dimension per measurement, named by its statistic.</li>
 * </ul>
 * The chart id is {@code <type>.<meter name and tags>} with characters Netdata does not allow in
 * ids turned into '_'; the context is {@code <type>.<meter name>} (one context for all tag
 * combinations), the family the name's first segment, and the tags become chart labels.
 * A meter registered after the child connected is collected locally but reaches the parents only
 * after the next reconnection (the streamer sends definitions on connecting).
 */
public final class StrataMeterRegistry extends StepMeterRegistry implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(StrataMeterRegistry.class);
    static final int PRIORITY_BASE = 100_000;

    private final ChartSink sink;
    private final UUID host;
    private final String type;
    private final int updateEvery;
    private final long stepMillis;
    private final Map<Meter, MeterChart> charts = new IdentityHashMap<>();
    private int nextPriority = PRIORITY_BASE;

    /** One meter's chart and the running totals its incremental dimensions need. */
    private static final class MeterChart {
        final ProcChart chart;
        final double[] totals;
        long lastStep = -1;

        MeterChart(ProcChart chart) {
            this.chart = chart;
            this.totals = new double[chart.values.length];
        }
    }

    /**
     * A registry feeding {@code child}'s charts every {@code child.updateEvery()} seconds, with chart
     * ids starting {@code type.} (e.g. the application's name).
     */
    public StrataMeterRegistry(EmbeddedChild child, String type, Clock clock) {
        this(new LocalChartsSink(child.charts()), child.machineGuid(), type, child.updateEvery(), clock);
    }

    StrataMeterRegistry(ChartSink sink, UUID host, String type, int updateEvery, Clock clock) {
        super(config(updateEvery), clock);
        this.sink = sink;
        this.host = host;
        this.type = fixId(type);
        this.updateEvery = updateEvery;
        this.stepMillis = updateEvery * 1000L;
    }

    private static StepRegistryConfig config(int updateEvery) {
        Duration step = Duration.ofSeconds(updateEvery);
        return new StepRegistryConfig() {
            @Override
            public String prefix() {
                return "strata";
            }

            @Override
            public String get(String key) {
                return null;
            }

            @Override
            public Duration step() {
                return step;
            }
        };
    }

    /** Starts publishing every step on a daemon thread. */
    public StrataMeterRegistry startPublishing() {
        start(new NamedThreadFactory("strata-micrometer"));
        return this;
    }

    /**
     * Defines the charts of the meters registered so far and collects them once: call it before
     * {@link EmbeddedChild#connect()} so that the first connection sends them.
     */
    public synchronized void defineNow() {
        collect(clock.wallTime());
    }

    @Override
    protected TimeUnit getBaseTimeUnit() {
        return TimeUnit.MILLISECONDS;
    }

    @Override
    protected void publish() {
        collect(clock.wallTime());
    }

    private synchronized void collect(long wallMillis) {
        long nowMicros = wallMillis * 1000L;
        long step = wallMillis / stepMillis;
        for (Meter m : getMeters()) {
            try {
                MeterChart mc = charts.get(m);
                if (mc == null) {
                    ProcChart c = define(m);
                    if (c == null) {
                        continue;
                    }
                    mc = new MeterChart(c);
                    charts.put(m, mc);
                    sink.define(c);
                }
                // step meters report the last complete step: add it to the totals once per step
                boolean newStep = step != mc.lastStep;
                mc.lastStep = step;
                if (fill(m, mc, newStep)) {
                    sink.collect(mc.chart, nowMicros);
                }
            } catch (RuntimeException e) {
                LOG.warn("meter {} cannot be collected: {}", m.getId().getName(), e.toString());
            }
        }
        sink.passDone();
    }

    private boolean fill(Meter m, MeterChart mc, boolean newStep) {
        long[] v = mc.chart.values;
        double[] totals = mc.totals;
        if (m instanceof Counter c) {
            add(totals, 0, c.count(), newStep);
            v[0] = scaled(totals[0]);
        } else if (m instanceof FunctionCounter c) {
            add(totals, 0, c.count(), newStep);
            v[0] = scaled(totals[0]);
        } else if (m instanceof TimeGauge g) {
            return gauge(v, g.value(TimeUnit.MILLISECONDS));
        } else if (m instanceof Gauge g) {
            return gauge(v, g.value());
        } else if (m instanceof Timer tm) {
            add(totals, 0, tm.count(), newStep);
            add(totals, 1, tm.totalTime(TimeUnit.MILLISECONDS), newStep);
            v[0] = scaled(totals[0]);
            v[1] = scaled(totals[1]);
            v[2] = scaled(tm.max(TimeUnit.MILLISECONDS));
        } else if (m instanceof FunctionTimer ft) {
            add(totals, 0, ft.count(), newStep);
            add(totals, 1, ft.totalTime(TimeUnit.MILLISECONDS), newStep);
            v[0] = scaled(totals[0]);
            v[1] = scaled(totals[1]);
        } else if (m instanceof DistributionSummary s) {
            add(totals, 0, s.count(), newStep);
            add(totals, 1, s.totalAmount(), newStep);
            v[0] = scaled(totals[0]);
            v[1] = scaled(totals[1]);
            v[2] = scaled(s.max());
        } else if (m instanceof LongTaskTimer lt) {
            v[0] = scaled(lt.activeTasks());
            v[1] = scaled(lt.duration(TimeUnit.MILLISECONDS));
        } else {
            int i = 0;
            for (Measurement x : m.measure()) {
                if (i < v.length) {
                    double d = x.getValue();
                    v[i] = Double.isFinite(d) ? scaled(d) : 0;
                }
                i++;
            }
        }
        return true;
    }

    private static void add(double[] totals, int i, double stepValue, boolean newStep) {
        if (newStep && Double.isFinite(stepValue)) {
            totals[i] += stepValue;
        }
    }

    private static boolean gauge(long[] v, double value) {
        if (!Double.isFinite(value)) {
            return false; // a gauge whose object is gone (NaN): a gap, as Netdata leaves uncollected slots
        }
        v[0] = scaled(value);
        return true;
    }

    private static long scaled(double d) {
        return Math.round(d * 1000);
    }

    private ProcChart define(Meter m) {
        Meter.Id id = m.getId();
        String name = id.getName();
        StringBuilder chartId = new StringBuilder(name);
        for (Tag t : id.getTagsAsIterable()) {
            chartId.append('_').append(t.getKey()).append('_').append(t.getValue());
        }
        int dot = name.indexOf('.');
        String family = fixId(dot > 0 ? name.substring(0, dot) : name);
        String base = id.getBaseUnit();
        ProcChart.Builder b = ProcChart.builder(host, type, fixId(chartId.toString()))
                .plugin("micrometer").module(m.getClass().getSimpleName())
                .context(type + "." + fixId(name)).family(family)
                .title(id.getDescription() != null ? id.getDescription() : name)
                .priority(nextPriority++).updateEvery(updateEvery).type("line");
        for (Tag t : id.getTagsAsIterable()) {
            b.label(t.getKey(), t.getValue());
        }
        if (m instanceof Counter || m instanceof FunctionCounter) {
            b.units((base != null ? base : "events") + "/s").dim("count", null, ProcChart.INCREMENTAL, 1, 1000);
        } else if (m instanceof TimeGauge) {
            b.units("ms").dim("value", null, ProcChart.ABSOLUTE, 1, 1000);
        } else if (m instanceof Gauge) {
            b.units(base != null ? base : "value").dim("value", null, ProcChart.ABSOLUTE, 1, 1000);
        } else if (m instanceof Timer) {
            b.units("ms").dim("count", null, ProcChart.INCREMENTAL, 1, 1000)
                    .dim("sum", null, ProcChart.INCREMENTAL, 1, 1000)
                    .dim("max", null, ProcChart.ABSOLUTE, 1, 1000);
        } else if (m instanceof FunctionTimer) {
            b.units("ms").dim("count", null, ProcChart.INCREMENTAL, 1, 1000)
                    .dim("sum", null, ProcChart.INCREMENTAL, 1, 1000);
        } else if (m instanceof DistributionSummary) {
            b.units(base != null ? base : "value").dim("count", null, ProcChart.INCREMENTAL, 1, 1000)
                    .dim("sum", null, ProcChart.INCREMENTAL, 1, 1000)
                    .dim("max", null, ProcChart.ABSOLUTE, 1, 1000);
        } else if (m instanceof LongTaskTimer) {
            b.units("ms").dim("active", null, ProcChart.ABSOLUTE, 1, 1000)
                    .dim("duration", null, ProcChart.ABSOLUTE, 1, 1000);
        } else {
            List<String> stats = new ArrayList<>();
            for (Measurement x : m.measure()) {
                stats.add(x.getStatistic().getTagValueRepresentation());
            }
            if (stats.isEmpty()) {
                return null;
            }
            b.units(base != null ? base : "value");
            for (String s : stats) {
                b.dim(fixId(s), s, ProcChart.ABSOLUTE, 1, 1000);
            }
        }
        return b.build();
    }

    /** Chart id characters: letters, digits, '_' and '-'; anything else (a dot too: one dot parts type and id) becomes '_'. */
    static String fixId(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            b.append(c < 128 && (Character.isLetterOrDigit(c) || c == '_' || c == '-') ? c : '_');
        }
        return b.toString();
    }
}
