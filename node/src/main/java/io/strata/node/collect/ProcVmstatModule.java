package io.strata.node.collect;

import io.strata.streaming.child.ProcChart;
import java.nio.charset.StandardCharsets;

/**
 * {@code /proc/vmstat}: system.pgpgio, system.swapio (once the machine has swapped),
 * mem.pgfaults and mem.oom_kill, as Netdata's {@code do_proc_vmstat}.
 */
public final class ProcVmstatModule extends ProcModule {

    private static final String[] KEYS = {"pgpgin", "pgpgout", "pswpin", "pswpout", "pgfault", "pgmajfault",
            "oom_kill"};
    private static final int PGPGIN = 0;
    private static final int PGPGOUT = 1;
    private static final int PSWPIN = 2;
    private static final int PSWPOUT = 3;
    private static final int PGFAULT = 4;
    private static final int PGMAJFAULT = 5;
    private static final int OOM_KILL = 6;
    private static final byte[][] KEY_BYTES = new byte[KEYS.length][];

    static {
        for (int i = 0; i < KEYS.length; i++) {
            KEY_BYTES[i] = KEYS[i].getBytes(StandardCharsets.US_ASCII);
        }
    }

    /** Swap counts pages; Netdata multiplies by the page size (sysconf(_SC_PAGESIZE)) to show KiB. */
    static final long PAGE_SIZE = 4096;

    private final ProcFile file;
    private final ProcText text = new ProcText(" \t");
    private final long[] v = new long[KEYS.length];
    private final boolean[] found = new boolean[KEYS.length];
    private ProcChart pgpgio;
    private ProcChart swapio;
    private ProcChart pgfaults;
    private ProcChart oomKill;

    public ProcVmstatModule(Context ctx) {
        super(ctx);
        this.file = new ProcFile(ctx.path("/proc/vmstat"), 16 * 1024);
    }

    @Override
    public String name() {
        return "/proc/vmstat";
    }

    @Override
    public void collect(long nowMicros) {
        if (!file.read()) {
            return;
        }
        text.parse(file);
        text.keyedValues(KEY_BYTES, v, found);
        if (swapio != null || v[PSWPIN] != 0 || v[PSWPOUT] != 0) {
            if (swapio == null) {
                swapio = chart("system", "swapio").family("swap").title("Swap I/O").units("KiB/s").priority(250)
                        .type("area")
                        .dim("in", null, ProcChart.INCREMENTAL, PAGE_SIZE, 1024)
                        .dim("out", null, ProcChart.INCREMENTAL, -PAGE_SIZE, 1024).build();
                define(swapio);
            }
            swapio.values[0] = v[PSWPIN];
            swapio.values[1] = v[PSWPOUT];
            done(swapio, nowMicros);
        }
        if (found[PGPGIN]) {
            if (pgpgio == null) {
                pgpgio = chart("system", "pgpgio").family("disk").title("Memory Paged from/to disk").units("KiB/s")
                        .priority(151).type("area")
                        .dim("in", null, ProcChart.INCREMENTAL, 1, 1)
                        .dim("out", null, ProcChart.INCREMENTAL, -1, 1).build();
                define(pgpgio);
            }
            pgpgio.values[0] = v[PGPGIN];
            pgpgio.values[1] = v[PGPGOUT];
            done(pgpgio, nowMicros);
        }
        if (found[PGFAULT]) {
            if (pgfaults == null) {
                pgfaults = chart("mem", "pgfaults").family("system").title("Memory Page Faults").units("faults/s")
                        .priority(1040).type("line")
                        .dim("minor", null, ProcChart.INCREMENTAL, 1, 1)
                        .dim("major", null, ProcChart.INCREMENTAL, -1, 1).build();
                define(pgfaults);
            }
            pgfaults.values[0] = v[PGFAULT];
            pgfaults.values[1] = v[PGMAJFAULT];
            done(pgfaults, nowMicros);
        }
        if (found[OOM_KILL]) {
            if (oomKill == null) {
                oomKill = chart("mem", "oom_kill").family("system").title("Out of Memory Kills").units("kills/s")
                        .priority(1020).type("line")
                        .dim("kills", null, ProcChart.INCREMENTAL, 1, 1).build();
                define(oomKill);
            }
            oomKill.values[0] = v[OOM_KILL];
            done(oomKill, nowMicros);
        }
    }

    @Override
    public void close() {
        file.close();
    }
}
