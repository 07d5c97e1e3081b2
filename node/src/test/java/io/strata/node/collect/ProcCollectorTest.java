package io.strata.node.collect;

import io.strata.streaming.child.ProcChart;
import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The collectors over /proc files copied from a real machine (2 CPUs, disk vda mounted on /, a
 * zram0 and loop devices, eth0 plus lo and two ifb interfaces, no swap) and edited copies of them.
 */
class ProcCollectorTest {

    static final UUID HOST = UUID.fromString("11111111-2222-3333-4444-000000000001");
    static final String[] FILES = {"proc/stat", "proc/meminfo", "proc/loadavg", "proc/uptime", "proc/vmstat",
            "proc/diskstats", "proc/interrupts", "proc/net/dev", "proc/self/mountinfo"};
    static final long T0 = 1_795_000_000L * 1_000_000L;

    @TempDir
    Path root;

    final RecordingSink sink = new RecordingSink();

    @BeforeEach
    void machine() throws IOException {
        install("sample1");
        // the /sys entries Netdata reads to tell physical disks and real interfaces from virtual ones
        for (String d : new String[]{"sys/block/vda", "sys/block/zram0", "sys/block/loop0",
                "sys/devices/virtual/block/zram0", "sys/devices/virtual/block/loop0", "sys/dev/block/254:0",
                "sys/devices/virtual/net/lo", "sys/devices/virtual/net/ifb0", "sys/devices/virtual/net/ifb1"}) {
            Files.createDirectories(root.resolve(d));
        }
    }

    private void install(String sample) throws IOException {
        for (String f : FILES) {
            Path to = root.resolve(f);
            Files.createDirectories(to.getParent());
            try (InputStream in = getClass().getResourceAsStream("/collect/" + sample + "/" + f)) {
                assertNotNull(in, "test resource " + sample + "/" + f);
                Files.write(to, in.readAllBytes());
            }
        }
    }

    private String read(String f) throws IOException {
        return Files.readString(root.resolve(f));
    }

    private void edit(String f, String from, String to) throws IOException {
        String s = read(f);
        assertTrue(s.contains(from), f + " has no '" + from + "'");
        Files.writeString(root.resolve(f), s.replace(from, to));
    }

    private static long[] numbers(String line) {
        String[] w = line.trim().split("[\\s:]+");
        long[] v = new long[w.length];
        for (int i = 0; i < w.length; i++) {
            v[i] = w[i].matches("-?\\d+") ? Long.parseLong(w[i]) : 0;
        }
        return v;
    }

    private String line(String f, String firstWord) throws IOException {
        for (String l : read(f).split("\n")) {
            String[] w = l.trim().split("[\\s:]+");
            if (w[0].equals(firstWord)) {
                return l;
            }
        }
        throw new AssertionError(f + " has no line " + firstWord);
    }

    private ProcCollector collector() {
        return new ProcCollector(sink, HOST, root, 1);
    }

    @Test
    void makesNetdatasChartsFromARealMachine() throws IOException {
        try (ProcCollector c = collector()) {
            c.collectOnce(T0);
        }
        for (String id : new String[]{"system.cpu", "cpu.cpu0", "cpu.cpu1", "system.load", "system.active_processes",
                "system.ram", "mem.available", "system.io", "disk.vda", "disk_ops.vda", "disk_ext.vda",
                "disk_ext_ops.vda", "disk_backlog.vda", "disk_busy.vda", "disk_util.vda", "disk_mops.vda",
                "disk_iotime.vda", "system.net", "net.eth0", "net_packets.eth0", "system.processes", "system.forks",
                "system.ctxt", "system.intr", "system.interrupts", "system.uptime", "system.pgpgio", "mem.pgfaults",
                "mem.oom_kill"}) {
            assertTrue(sink.defined.containsKey(id), id + " missing from " + sink.defined.keySet());
        }
        // no swap on this machine; lo is disabled by default; idle virtual interfaces, zram0 with no I/O,
        // and loop devices (excluded) have no charts
        for (String id : new String[]{"system.swap", "system.swapio", "net.lo", "net.ifb0", "net_packets.ifb1",
                "disk.zram0", "disk.loop0", "disk_ops.loop1"}) {
            assertFalse(sink.defined.containsKey(id), id + " should not exist");
        }
        assertEquals(1, sink.passes);
    }

    @Test
    void definesChartsExactlyAsNetdata() throws IOException {
        try (ProcCollector c = collector()) {
            c.collectOnce(T0);
        }
        ChartInfo cpu = sink.defined.get("system.cpu").info();
        assertEquals("system.cpu", cpu.name());
        assertEquals("cpu", cpu.family());
        assertEquals("system.cpu", cpu.context());
        assertEquals("Total CPU utilization", cpu.title());
        assertEquals("percentage", cpu.units());
        assertEquals("stacked", cpu.chartType());
        assertEquals(100, cpu.priority());
        assertEquals("proc.plugin", cpu.plugin());
        assertEquals("/proc/stat", cpu.module());
        List<DimensionInfo> dims = sink.defined.get("system.cpu").dimensions();
        assertEquals(10, dims.size());
        for (DimensionInfo d : dims) {
            assertEquals("percentage-of-incremental-row", d.algorithm());
            assertEquals(d.id().equals("idle") ? DimensionInfo.FLAG_HIDDEN : 0, d.flags(), d.id());
        }

        ChartInfo core1 = sink.defined.get("cpu.cpu1").info();
        assertEquals("utilization", core1.family());
        assertEquals("cpu.cpu", core1.context());
        assertEquals("Core utilization", core1.title());
        assertEquals(1002, core1.priority());

        ChartInfo load = sink.defined.get("system.load").info();
        assertEquals(5, load.updateEvery(), "Netdata keeps the load average at 5 s at least");
        assertEquals(1000, sink.defined.get("system.load").dimensions().get(0).divisor());

        ChartInfo disk = sink.defined.get("disk.vda").info();
        assertEquals("disk.vda", disk.name());
        assertEquals("/", disk.family(), "a mounted disk's family is its mount point");
        assertEquals("disk.io", disk.context());
        assertEquals("Disk I/O Bandwidth", disk.title());
        assertEquals("KiB/s", disk.units());
        assertEquals("area", disk.chartType());
        assertEquals(2000, disk.priority());
        assertEquals(Map.of("_collect_plugin", "proc.plugin", "_collect_module", "/proc/diskstats", "device", "vda",
                "mount_point", "/", "device_type", "physical"), disk.labels());
        DimensionInfo writes = sink.defined.get("disk.vda").dimensions().get(1);
        assertEquals("writes", writes.id());
        assertEquals("incremental", writes.algorithm());
        assertEquals(-512, writes.multiplier());
        assertEquals(1024, writes.divisor());

        ChartInfo net = sink.defined.get("net.eth0").info();
        assertEquals("eth0", net.family());
        assertEquals("net.net", net.context());
        assertEquals("Bandwidth", net.title());
        assertEquals("kilobits/s", net.units());
        assertEquals(7000, net.priority());
        assertEquals("real", net.labels().get("interface_type"));
        DimensionInfo sent = sink.defined.get("net.eth0").dimensions().get(1);
        assertEquals(-8, sent.multiplier());
        assertEquals(1000, sent.divisor());

        DimensionInfo received = sink.defined.get("system.net").dimensions().get(0);
        assertEquals("InOctets", received.id());
        assertEquals("received", received.name());

        DimensionInfo avail = sink.defined.get("mem.available").dimensions().get(0);
        assertEquals("MemAvailable", avail.id());
        assertEquals("avail", avail.name());
        assertEquals(1024, avail.divisor());

        ProcChart intr = sink.defined.get("system.interrupts");
        Map<String, String> names = new java.util.HashMap<>();
        for (DimensionInfo d : intr.dimensions()) {
            names.put(d.id(), d.name());
        }
        assertEquals("Ged_24", names.get("24"));
        assertEquals("virtio1-req.0_36", names.get("36"));
        assertEquals("LOC", names.get("LOC"));
        assertFalse(names.containsKey("28"), "an interrupt that never fired has no dimension");
        assertFalse(names.containsKey("NMI"));
    }

    @Test
    void collectsTheRawCountersNetdataCollects() throws IOException {
        try (ProcCollector c = collector()) {
            c.collectOnce(T0);
        }
        long[] cpu = numbers(line("proc/stat", "cpu"));
        assertEquals(cpu[1] - cpu[9], sink.value("system.cpu", "user"));
        assertEquals(cpu[3], sink.value("system.cpu", "system"));
        assertEquals(cpu[4], sink.value("system.cpu", "idle"));
        assertEquals(cpu[8], sink.value("system.cpu", "steal"));
        long[] cpu1 = numbers(line("proc/stat", "cpu1"));
        assertEquals(cpu1[5], sink.value("cpu.cpu1", "iowait"));
        assertEquals(numbers(line("proc/stat", "ctxt"))[1], sink.value("system.ctxt", "switches"));
        assertEquals(numbers(line("proc/stat", "processes"))[1], sink.value("system.forks", "started"));
        assertEquals(numbers(line("proc/stat", "intr"))[1], sink.value("system.intr", "interrupts"));
        assertEquals(numbers(line("proc/stat", "procs_running"))[1], sink.value("system.processes", "running"));

        long total = numbers(line("proc/meminfo", "MemTotal"))[1];
        long free = numbers(line("proc/meminfo", "MemFree"))[1];
        long buffers = numbers(line("proc/meminfo", "Buffers"))[1];
        long cached = numbers(line("proc/meminfo", "Cached"))[1] + numbers(line("proc/meminfo", "SReclaimable"))[1]
                - numbers(line("proc/meminfo", "Shmem"))[1];
        assertEquals(free, sink.value("system.ram", "free"));
        assertEquals(cached, sink.value("system.ram", "cached"));
        assertEquals(total - free - cached - buffers, sink.value("system.ram", "used"));
        assertEquals(numbers(line("proc/meminfo", "MemAvailable"))[1], sink.value("mem.available", "MemAvailable"));

        String[] loadavg = read("proc/loadavg").trim().split("[ /]");
        assertEquals(Math.round(Double.parseDouble(loadavg[0]) * 1000), sink.value("system.load", "load1"));
        assertEquals(Long.parseLong(loadavg[4]), sink.value("system.active_processes", "active"));
        double uptime = Double.parseDouble(read("proc/uptime").trim().split(" ")[0]);
        assertEquals(Math.round(uptime * 1000), sink.value("system.uptime", "uptime"));

        long[] vda = numbers(line("proc/diskstats", "254"));
        // "254 0 vda reads mreads rsectors rms writes mwrites wsectors wms inflight busy backlog ..."
        assertEquals(vda[5], sink.value("disk.vda", "reads"));
        assertEquals(vda[9], sink.value("disk.vda", "writes"));
        assertEquals(vda[3], sink.value("disk_ops.vda", "reads"));
        assertEquals(vda[5] * 512 / 1024, sink.value("system.io", "in"));
        assertEquals(vda[9] * 512 / 1024, sink.value("system.io", "out"));

        long[] eth0 = numbers(line("proc/net/dev", "eth0"));
        assertEquals(eth0[1], sink.value("net.eth0", "received"));
        assertEquals(eth0[9], sink.value("net.eth0", "sent"));
        assertEquals(eth0[2], sink.value("net_packets.eth0", "received"));
        assertEquals(eth0[1], sink.value("system.net", "InOctets"), "only physical interfaces: lo is not counted");

        assertEquals(numbers(line("proc/vmstat", "pgpgin"))[1], sink.value("system.pgpgio", "in"));
        long[] loc = numbers(line("proc/interrupts", "LOC"));
        assertEquals(loc[1] + loc[2], sink.value("system.interrupts", "LOC"));
    }

    @Test
    void subtractsGuestTimeFromUserAndNice() throws IOException {
        String cpu = line("proc/stat", "cpu");
        Files.writeString(root.resolve("proc/stat"), read("proc/stat").replace(cpu, "cpu  1000 200 30 4000 5 6 7 8 90 10"));
        try (ProcCollector c = collector()) {
            c.collectOnce(T0);
        }
        assertEquals(910, sink.value("system.cpu", "user"));
        assertEquals(190, sink.value("system.cpu", "nice"));
        assertEquals(90, sink.value("system.cpu", "guest"));
        assertEquals(10, sink.value("system.cpu", "guest_nice"));
    }

    @Test
    void swapChartsAppearOnceTheMachineHasSwap() throws IOException {
        try (ProcCollector c = collector()) {
            c.collectOnce(T0);
            assertFalse(sink.defined.containsKey("system.swap"));
            edit("proc/meminfo", line("proc/meminfo", "SwapTotal"), "SwapTotal:       2097148 kB");
            edit("proc/meminfo", line("proc/meminfo", "SwapFree"), "SwapFree:        2000000 kB");
            edit("proc/vmstat", line("proc/vmstat", "pswpin"), "pswpin 12");
            c.collectOnce(T0 + 1_000_000);
        }
        assertEquals(2_000_000, sink.value("system.swap", "free"));
        assertEquals(97_148, sink.value("system.swap", "used"));
        ChartInfo swap = sink.defined.get("system.swap").info();
        assertEquals("swap", swap.family());
        assertEquals("System Swap", swap.title());
        assertEquals(201, swap.priority());
        assertEquals(12, sink.value("system.swapio", "in"));
        assertEquals(-4096, sink.defined.get("system.swapio").dimensions().get(1).multiplier());
    }

    @Test
    void newDevicesAddChartsAndVanishedOnesAreSkipped() throws IOException {
        try (ProcCollector c = collector()) {
            c.collectOnce(T0);
            // a USB disk and a second NIC appear
            Files.createDirectories(root.resolve("sys/block/sdb"));
            Files.writeString(root.resolve("proc/diskstats"), read("proc/diskstats")
                    + "   8      16 sdb 10 0 80 5 2 0 16 1 0 6 6 0 0 0 0 0 0\n");
            Files.writeString(root.resolve("proc/net/dev"), read("proc/net/dev")
                    + "  eth1:    1000      10    0    0    0     0          0         1     2000      20    0    0    0     0       0          0\n");
            sink.newPass();
            c.collectOnce(T0 + 1_000_000);
            assertTrue(sink.defined.containsKey("disk.sdb"));
            assertEquals("/mnt/my data", sink.defined.get("disk.sdb").info().family(), "mountinfo escapes decoded");
            assertTrue(sink.defined.containsKey("net.eth1"));
            assertEquals(1000 + numbers(line("proc/net/dev", "eth0"))[1], sink.value("system.net", "InOctets"));
            assertEquals(80 * 512 / 1024 + numbers(line("proc/diskstats", "254"))[5] * 512 / 1024,
                    sink.value("system.io", "in"));

            // both go away again; the disk of / too
            install("sample2");
            String vda = line("proc/diskstats", "254");
            edit("proc/diskstats", vda + "\n", "");
            sink.newPass();
            c.collectOnce(T0 + 2_000_000);
            assertFalse(sink.collectedThisPass.contains("disk.vda"));
            assertFalse(sink.collectedThisPass.contains("disk.sdb"));
            assertFalse(sink.collectedThisPass.contains("net.eth1"));
            assertTrue(sink.collectedThisPass.contains("net.eth0"));
            assertTrue(sink.collectedThisPass.contains("system.cpu"));

            // vda comes back: its charts go on, nothing is defined twice (the sink would throw)
            install("sample2");
            sink.newPass();
            c.collectOnce(T0 + 3_000_000);
            assertTrue(sink.collectedThisPass.contains("disk.vda"));
        }
    }

    @Test
    void aMissingFileSkipsOnlyItsCharts() throws IOException {
        Files.delete(root.resolve("proc/interrupts"));
        Files.delete(root.resolve("proc/meminfo"));
        try (ProcCollector c = collector()) {
            c.collectOnce(T0);
            assertFalse(sink.defined.containsKey("system.interrupts"));
            assertFalse(sink.defined.containsKey("system.ram"));
            assertTrue(sink.defined.containsKey("system.cpu"));
            install("sample2");
            sink.newPass();
            c.collectOnce(T0 + 1_000_000);
            assertTrue(sink.collectedThisPass.contains("system.ram"), "a file that comes back is read again");
            assertTrue(sink.collectedThisPass.contains("system.interrupts"));
        }
    }

    @Test
    void partitionsAndGarbageLinesGetNoCharts() throws IOException {
        Files.createDirectories(root.resolve("sys/dev/block/254:1"));
        Files.writeString(root.resolve("sys/dev/block/254:1/partition"), "1\n");
        Files.writeString(root.resolve("proc/diskstats"), read("proc/diskstats")
                + " 254       1 vda1 5 0 40 1 5 0 40 1 0 2 2 0 0 0 0 0 0\n"
                + "garbage\n 1 2\n");
        Files.writeString(root.resolve("proc/stat"), "cpu 1 2\nintr\nprocs_running x\n" + read("proc/stat"));
        try (ProcCollector c = collector()) {
            c.collectOnce(T0);
        }
        assertFalse(sink.defined.containsKey("disk.vda1"));
        assertTrue(sink.defined.containsKey("disk.vda"));
        assertTrue(sink.defined.containsKey("system.cpu"));
    }

    @Test
    void loadIsCollectedEveryFiveSeconds() throws IOException {
        try (ProcCollector c = collector()) {
            for (int s = 0; s < 10; s++) {
                c.collectOnce(T0 + s * 1_000_000L);
            }
        }
        // T0 is a multiple of 5 s: the first pass, then s = 5 (the first pass always defines and collects)
        assertEquals(2, sink.collections.get("system.load"));
        assertEquals(10, sink.collections.get("system.uptime"));
    }

    @Test
    void twoSamplesOneSecondApartGiveIncreasingCounters() throws IOException {
        try (ProcCollector c = collector()) {
            c.collectOnce(T0);
            long ctxt = sink.value("system.ctxt", "switches");
            long idle = sink.value("system.cpu", "idle");
            install("sample2");
            c.collectOnce(T0 + 1_000_000);
            assertTrue(sink.value("system.ctxt", "switches") > ctxt);
            assertTrue(sink.value("system.cpu", "idle") > idle);
            assertTrue(new String(Files.readAllBytes(root.resolve("proc/uptime")), StandardCharsets.US_ASCII)
                    .startsWith(sink.value("system.uptime", "uptime") / 1000 + "."));
        }
    }
}
