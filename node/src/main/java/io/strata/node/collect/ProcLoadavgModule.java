package io.strata.node.collect;

import io.strata.streaming.child.ProcChart;

/**
 * {@code /proc/loadavg}: system.load (kept every 5 s at least, as Netdata does: the kernel
 * recomputes the averages every 5 s) and system.active_processes.
 */
public final class ProcLoadavgModule extends ProcModule {

    /** Netdata's MIN_LOADAVG_UPDATE_EVERY. */
    static final int MIN_LOAD_UPDATE_EVERY = 5;

    private final ProcFile file;
    private final ProcText text = new ProcText(" \t/");
    private final int loadEvery;
    private ProcChart load;
    private ProcChart active;

    public ProcLoadavgModule(Context ctx) {
        super(ctx);
        this.file = new ProcFile(ctx.path("/proc/loadavg"), 256);
        this.loadEvery = Math.max(MIN_LOAD_UPDATE_EVERY, ctx.updateEvery());
    }

    @Override
    public String name() {
        return "/proc/loadavg";
    }

    @Override
    public void collect(long nowMicros) {
        if (!file.read()) {
            return;
        }
        text.parse(file);
        // "0.98 0.94 1.61 4/213 6165": three averages, running/total, last pid
        if (text.lines() < 1 || text.words(0) < 6) {
            return;
        }
        long second = nowMicros / 1_000_000L;
        if (load == null || second % loadEvery == 0) {
            if (load == null) {
                load = chart("system", "load").family("load").title("System Load Average").units("load")
                        .priority(100).type("line").updateEvery(loadEvery)
                        .dim("load1", null, ProcChart.ABSOLUTE, 1, 1000)
                        .dim("load5", null, ProcChart.ABSOLUTE, 1, 1000)
                        .dim("load15", null, ProcChart.ABSOLUTE, 1, 1000).build();
                define(load);
            }
            load.values[0] = text.scaledAt(0, 0, 1000);
            load.values[1] = text.scaledAt(0, 1, 1000);
            load.values[2] = text.scaledAt(0, 2, 1000);
            done(load, nowMicros);
        }
        if (active == null) {
            active = chart("system", "active_processes").family("processes").title("System Active Processes")
                    .units("processes").priority(750).type("line")
                    .dim("active", null, ProcChart.ABSOLUTE, 1, 1).build();
            define(active);
        }
        active.values[0] = text.longAt(0, 4);
        done(active, nowMicros);
    }

    @Override
    public void close() {
        file.close();
    }
}
