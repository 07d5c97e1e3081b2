package io.strata.node.collect;

import io.strata.streaming.child.ProcChart;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.nio.charset.StandardCharsets;

/**
 * {@code /proc/interrupts}: system.interrupts, one incremental dimension per interrupt line
 * that has counted something (Netdata's rule), named {@code <device>_<irq>} for numbered
 * interrupts and by their id otherwise (LOC, RES...). The dimensions are those non-zero at the
 * first pass: a chart's dimensions cannot grow after it is defined here, so an interrupt that
 * starts counting later is reported once and left out.
 */
public final class ProcInterruptsModule extends ProcModule {

    private static final Logger LOG = LoggerFactory.getLogger(ProcInterruptsModule.class);

    private final ProcFile file;
    private final ProcText text = new ProcText(" \t:");
    private ProcChart chart;
    private byte[][] dimIds;
    /** For each line of the previous pass, the dimension it fed (-1: none): lines rarely move. */
    private int[] lineToDim = new int[0];
    private boolean reportedNew;

    public ProcInterruptsModule(Context ctx) {
        super(ctx);
        this.file = new ProcFile(ctx.path("/proc/interrupts"), 16 * 1024);
    }

    @Override
    public String name() {
        return "/proc/interrupts";
    }

    @Override
    public void collect(long nowMicros) {
        if (!file.read()) {
            return;
        }
        text.parse(file);
        if (text.lines() < 2) {
            return;
        }
        int cpus = text.words(0);
        if (chart == null) {
            defineChart(cpus);
            if (chart == null) {
                return;
            }
        }
        if (lineToDim.length < text.lines()) {
            int old = lineToDim.length;
            lineToDim = Arrays.copyOf(lineToDim, text.lines());
            Arrays.fill(lineToDim, old, lineToDim.length, -1);
        }
        Arrays.fill(chart.values, 0);
        for (int l = 1; l < text.lines(); l++) {
            if (text.words(l) < 2) {
                continue;
            }
            int d = dimOf(l);
            if (d < 0) {
                if (!reportedNew && total(l, cpus) != 0) {
                    reportedNew = true;
                    LOG.info("interrupt {} started counting after system.interrupts was defined; it is not charted",
                            text.string(l, 0));
                }
                continue;
            }
            chart.values[d] = total(l, cpus);
        }
        done(chart, nowMicros);
    }

    private int dimOf(int l) {
        int cached = lineToDim[l];
        if (cached >= 0 && text.is(l, 0, dimIds[cached])) {
            return cached;
        }
        for (int d = 0; d < dimIds.length; d++) {
            if (text.is(l, 0, dimIds[d])) {
                lineToDim[l] = d;
                return d;
            }
        }
        lineToDim[l] = -1;
        return -1;
    }

    private long total(int l, int cpus) {
        long sum = 0;
        int last = Math.min(cpus, text.words(l) - 1);
        for (int w = 1; w <= last; w++) {
            byte first = text.bytes()[text.start(l, w)];
            if (first < '0' || first > '9') {
                break; // fewer counters than CPUs (ERR, MIS): the description starts here
            }
            sum += text.longAt(l, w);
        }
        return sum;
    }

    private void defineChart(int cpus) {
        ProcChart.Builder b = chart("system", "interrupts").family("interrupts").title("System interrupts")
                .units("interrupts/s").priority(1000).type("stacked");
        List<byte[]> ids = new ArrayList<>();
        for (int l = 1; l < text.lines(); l++) {
            int words = text.words(l);
            if (words < 2 || total(l, cpus) == 0) {
                continue;
            }
            String id = text.string(l, 0);
            String name = id;
            if (Character.isDigit(id.charAt(0)) && cpus + 2 < words) {
                name = text.string(l, words - 1) + "_" + id;
            }
            b.dim(id, name, ProcChart.INCREMENTAL, 1, 1);
            ids.add(id.getBytes(StandardCharsets.UTF_8));
        }
        if (ids.isEmpty()) {
            return;
        }
        dimIds = ids.toArray(new byte[0][]);
        chart = b.build();
        define(chart);
    }

    @Override
    public void close() {
        file.close();
    }
}
