package io.strata.node.collect;

import io.strata.streaming.child.ProcChart;

/** {@code /proc/uptime}: system.uptime, collected in milliseconds and shown in seconds. */
public final class ProcUptimeModule extends ProcModule {

    private final ProcFile file;
    private final ProcText text = new ProcText(" \t");
    private ProcChart uptime;

    public ProcUptimeModule(Context ctx) {
        super(ctx);
        this.file = new ProcFile(ctx.path("/proc/uptime"), 128);
    }

    @Override
    public String name() {
        return "/proc/uptime";
    }

    @Override
    public void collect(long nowMicros) {
        if (!file.read()) {
            return;
        }
        text.parse(file);
        if (text.lines() < 1 || text.words(0) < 1) {
            return;
        }
        if (uptime == null) {
            uptime = chart("system", "uptime").family("uptime").title("System Uptime").units("seconds")
                    .priority(1000).type("line")
                    .dim("uptime", null, ProcChart.ABSOLUTE, 1, 1000).build();
            define(uptime);
        }
        uptime.values[0] = text.scaledAt(0, 0, 1000);
        done(uptime, nowMicros);
    }

    @Override
    public void close() {
        file.close();
    }
}
