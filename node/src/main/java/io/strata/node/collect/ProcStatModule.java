package io.strata.node.collect;

import io.strata.streaming.child.ProcChart;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * {@code /proc/stat}: system.cpu, cpu.cpuN, system.intr, system.ctxt, system.forks and
 * system.processes, as Netdata's {@code do_proc_stat} makes them.
 */
public final class ProcStatModule extends ProcModule {

    private static final byte[] CPU = "cpu".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] INTR = "intr".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CTXT = "ctxt".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] PROCESSES = "processes".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] RUNNING = "procs_running".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] BLOCKED = "procs_blocked".getBytes(StandardCharsets.US_ASCII);

    /** Netdata's dimension order of a CPU chart (the order its stream defines them in). */
    private static final String[] CPU_DIMS = {"guest_nice", "guest", "steal", "softirq", "irq", "user", "system",
            "nice", "iowait", "idle"};

    private final ProcFile file;
    private final ProcText text = new ProcText(" \t");
    private ProcChart total;
    private ProcChart[] cores = new ProcChart[0];
    private ProcChart intr;
    private ProcChart ctxt;
    private ProcChart forks;
    private ProcChart processes;

    public ProcStatModule(Context ctx) {
        super(ctx);
        this.file = new ProcFile(ctx.path("/proc/stat"), 16 * 1024);
    }

    @Override
    public String name() {
        return "/proc/stat";
    }

    @Override
    public void collect(long nowMicros) {
        if (!file.read()) {
            return;
        }
        text.parse(file);
        long running = -1;
        long blocked = -1;
        for (int l = 0; l < text.lines(); l++) {
            if (text.words(l) < 2) {
                continue;
            }
            if (text.startsWith(l, 0, CPU)) {
                cpuLine(l, nowMicros);
            } else if (text.is(l, 0, INTR)) {
                intr = single(intr, "intr", "CPU Interrupts", "interrupts/s", "interrupts", 900, "interrupts", l,
                        nowMicros);
            } else if (text.is(l, 0, CTXT)) {
                ctxt = single(ctxt, "ctxt", "CPU Context Switches", "context switches/s", "processes", 800,
                        "switches", l, nowMicros);
            } else if (text.is(l, 0, PROCESSES)) {
                forks = single(forks, "forks", "Started Processes", "processes/s", "processes", 700, "started", l,
                        nowMicros);
            } else if (text.is(l, 0, RUNNING)) {
                running = text.longAt(l, 1);
            } else if (text.is(l, 0, BLOCKED)) {
                blocked = text.longAt(l, 1);
            }
        }
        if (running >= 0 && blocked >= 0) {
            if (processes == null) {
                processes = chart("system", "processes").family("processes").title("System Processes")
                        .units("processes").priority(600).type("line")
                        .dim("running", null, ProcChart.ABSOLUTE, 1, 1)
                        .dim("blocked", null, ProcChart.ABSOLUTE, -1, 1).build();
                define(processes);
            }
            processes.values[0] = running;
            processes.values[1] = blocked;
            done(processes, nowMicros);
        }
    }

    private void cpuLine(int l, long nowMicros) {
        int len = text.length(l, 0);
        ProcChart c;
        if (len == CPU.length) {
            if (total == null) {
                total = cpuChart("system", "cpu", "cpu", "system.cpu", "Total CPU utilization", 100);
            }
            c = total;
        } else {
            long core = ProcText.parseLong(text.bytes(), text.start(l, 0) + CPU.length, text.end(l, 0));
            if (core < 0 || core > 65_535) {
                return;
            }
            int n = (int) core;
            if (n >= cores.length) {
                cores = Arrays.copyOf(cores, n + 1);
            }
            if (cores[n] == null) {
                cores[n] = cpuChart("cpu", "cpu" + n, "utilization", "cpu.cpu", "Core utilization", 1001 + n);
            }
            c = cores[n];
        }
        long user = text.longAt(l, 1);
        long nice = text.longAt(l, 2);
        long system = text.longAt(l, 3);
        long idle = text.longAt(l, 4);
        long iowait = text.longAt(l, 5);
        long irq = text.longAt(l, 6);
        long softirq = text.longAt(l, 7);
        long steal = text.longAt(l, 8);
        long guest = text.longAt(l, 9);
        long guestNice = text.longAt(l, 10);
        // the kernel counts guest time in user (and guest_nice in nice) too: Netdata shows them once
        user -= guest;
        nice -= guestNice;
        long[] v = c.values;
        v[0] = guestNice;
        v[1] = guest;
        v[2] = steal;
        v[3] = softirq;
        v[4] = irq;
        v[5] = user;
        v[6] = system;
        v[7] = nice;
        v[8] = iowait;
        v[9] = idle;
        done(c, nowMicros);
    }

    private ProcChart cpuChart(String type, String id, String family, String context, String title, long priority) {
        ProcChart.Builder b = chart(type, id).family(family).context(context).title(title).units("percentage")
                .priority(priority).type("stacked");
        for (String d : CPU_DIMS) {
            b.dim(d, null, ProcChart.PCENT_OF_INCREMENTAL_ROW, 1, 1, d.equals("idle"));
        }
        ProcChart c = b.build();
        define(c);
        return c;
    }

    private ProcChart single(ProcChart c, String id, String title, String units, String family, long priority,
                             String dim, int l, long nowMicros) {
        if (c == null) {
            c = chart("system", id).family(family).title(title).units(units).priority(priority).type("line")
                    .dim(dim, null, ProcChart.INCREMENTAL, 1, 1).build();
            define(c);
        }
        c.values[0] = text.longAt(l, 1);
        done(c, nowMicros);
        return c;
    }

    @Override
    public void close() {
        file.close();
    }
}
