package io.strata.node.collect;

import io.strata.streaming.child.ProcChart;
import java.nio.charset.StandardCharsets;

/** {@code /proc/meminfo}: system.ram, mem.available and system.swap, as Netdata's {@code do_proc_meminfo}. */
public final class ProcMeminfoModule extends ProcModule {

    private static final String[] KEYS = {"MemTotal", "MemFree", "MemAvailable", "Buffers", "Cached", "SwapTotal",
            "SwapFree", "Shmem", "SReclaimable"};
    private static final int MEM_TOTAL = 0;
    private static final int MEM_FREE = 1;
    private static final int MEM_AVAILABLE = 2;
    private static final int BUFFERS = 3;
    private static final int CACHED = 4;
    private static final int SWAP_TOTAL = 5;
    private static final int SWAP_FREE = 6;
    private static final int SHMEM = 7;
    private static final int SRECLAIMABLE = 8;
    private static final byte[][] KEY_BYTES = new byte[KEYS.length][];

    static {
        for (int i = 0; i < KEYS.length; i++) {
            KEY_BYTES[i] = KEYS[i].getBytes(StandardCharsets.US_ASCII);
        }
    }

    private final ProcFile file;
    private final ProcText text = new ProcText(" \t:");
    private final long[] kb = new long[KEYS.length];
    private final boolean[] found = new boolean[KEYS.length];
    private ProcChart ram;
    private ProcChart available;
    private ProcChart swap;

    public ProcMeminfoModule(Context ctx) {
        super(ctx);
        this.file = new ProcFile(ctx.path("/proc/meminfo"), 8 * 1024);
    }

    @Override
    public String name() {
        return "/proc/meminfo";
    }

    @Override
    public void collect(long nowMicros) {
        if (!file.read()) {
            return;
        }
        text.parse(file);
        text.keyedValues(KEY_BYTES, kb, found);
        if (!found[MEM_TOTAL]) {
            return;
        }
        // what the page cache could give back: Netdata counts reclaimable slab as cache and tmpfs (Shmem) as used
        long cached = kb[CACHED] + kb[SRECLAIMABLE] - kb[SHMEM];
        long used = kb[MEM_TOTAL] - kb[MEM_FREE] - cached - kb[BUFFERS];
        if (ram == null) {
            ram = chart("system", "ram").family("ram").title("System RAM").units("MiB").priority(200)
                    .type("stacked")
                    .dim("free", null, ProcChart.ABSOLUTE, 1, 1024)
                    .dim("used", null, ProcChart.ABSOLUTE, 1, 1024)
                    .dim("cached", null, ProcChart.ABSOLUTE, 1, 1024)
                    .dim("buffers", null, ProcChart.ABSOLUTE, 1, 1024).build();
            define(ram);
        }
        ram.values[0] = kb[MEM_FREE];
        ram.values[1] = used;
        ram.values[2] = cached;
        ram.values[3] = kb[BUFFERS];
        done(ram, nowMicros);

        if (found[MEM_AVAILABLE]) {
            if (available == null) {
                available = chart("mem", "available").family("system").title("Available RAM for applications")
                        .units("MiB").priority(1010).type("area")
                        .dim("MemAvailable", "avail", ProcChart.ABSOLUTE, 1, 1024).build();
                define(available);
            }
            available.values[0] = kb[MEM_AVAILABLE];
            done(available, nowMicros);
        }

        long swapUsed = kb[SWAP_TOTAL] - kb[SWAP_FREE];
        // Netdata's "auto": the chart appears once the machine has swap, and stays
        if (swap != null || kb[SWAP_TOTAL] != 0 || swapUsed != 0 || kb[SWAP_FREE] != 0) {
            if (swap == null) {
                swap = chart("system", "swap").family("swap").title("System Swap").units("MiB").priority(201)
                        .type("stacked")
                        .dim("free", null, ProcChart.ABSOLUTE, 1, 1024)
                        .dim("used", null, ProcChart.ABSOLUTE, 1, 1024).build();
                define(swap);
            }
            swap.values[0] = kb[SWAP_FREE];
            swap.values[1] = swapUsed;
            done(swap, nowMicros);
        }
    }

    @Override
    public void close() {
        file.close();
    }
}
