package io.strata.node.collect;

import io.strata.streaming.child.ProcChart;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * {@code /proc/diskstats}: system.io (physical disks) and per disk disk.X, disk_ext.X,
 * disk_ops.X, disk_ext_ops.X, disk_backlog.X, disk_busy.X, disk_util.X, disk_mops.X,
 * disk_ext_mops.X, disk_iotime.X and disk_ext_iotime.X, as Netdata's {@code do_proc_diskstats}
 * with its default settings: loop and ram devices and partitions get no charts, and each chart
 * appears once its counters are non-zero ("auto"), then stays.
 */
public final class ProcDiskstatsModule extends ProcModule {

    private static final Logger LOG = LoggerFactory.getLogger(ProcDiskstatsModule.class);

    static final int TYPE_UNKNOWN = 0;
    static final int TYPE_PHYSICAL = 1;
    static final int TYPE_PARTITION = 2;
    static final int TYPE_VIRTUAL = 3;

    /** The kernel counts diskstats sectors in 512 bytes whatever the hardware sector. */
    static final int SECTOR_SIZE = 512;

    private final ProcFile file;
    private final ProcText text = new ProcText(" \t");
    private final List<Disk> disks = new ArrayList<>();
    private ProcChart systemIo;

    /** One block device of /proc/diskstats and its charts. */
    static final class Disk {
        final long major;
        final long minor;
        final byte[] device;
        final String deviceName;
        final String name;
        final int type;
        final String mountPoint;
        final boolean performance;
        boolean seen;
        boolean missing;
        long lastBusyMs;
        ProcChart io;
        ProcChart ext;
        ProcChart ops;
        ProcChart extOps;
        ProcChart backlog;
        ProcChart busy;
        ProcChart util;
        ProcChart mops;
        ProcChart extMops;
        ProcChart iotime;
        ProcChart extIotime;

        Disk(long major, long minor, byte[] device, String name, int type, String mountPoint, boolean performance) {
            this.major = major;
            this.minor = minor;
            this.device = device;
            this.deviceName = new String(device, StandardCharsets.UTF_8);
            this.name = name;
            this.type = type;
            this.mountPoint = mountPoint;
            this.performance = performance;
        }

        String typeLabel() {
            return switch (type) {
                case TYPE_PHYSICAL -> "physical";
                case TYPE_PARTITION -> "partition";
                case TYPE_VIRTUAL -> "virtual";
                default -> "unknown";
            };
        }
    }

    public ProcDiskstatsModule(Context ctx) {
        super(ctx);
        this.file = new ProcFile(ctx.path("/proc/diskstats"), 8 * 1024);
    }

    @Override
    public String name() {
        return "/proc/diskstats";
    }

    List<Disk> disks() {
        return disks;
    }

    @Override
    public void collect(long nowMicros) {
        if (!file.read()) {
            return;
        }
        text.parse(file);
        for (Disk d : disks) {
            d.seen = false;
        }
        long systemReadKb = 0;
        long systemWriteKb = 0;
        for (int l = 0; l < text.lines(); l++) {
            int words = text.words(l);
            if (words < 14) {
                continue;
            }
            Disk d = disk(l);
            d.seen = true;
            if (d.missing) {
                d.missing = false;
                LOG.info("disk {} is back in {}", d.deviceName, file.path());
            }
            long reads = text.longAt(l, 3);
            long mreads = text.longAt(l, 4);
            long readSectors = text.longAt(l, 5);
            long readMs = text.longAt(l, 6);
            long writes = text.longAt(l, 7);
            long mwrites = text.longAt(l, 8);
            long writeSectors = text.longAt(l, 9);
            long writeMs = text.longAt(l, 10);
            long busyMs = text.longAt(l, 12);
            long backlogMs = text.longAt(l, 13);
            // discard fields since Linux 4.18, flush fields since 5.5; absent ones read as 0
            long discards = text.longAt(l, 14);
            long mdiscards = text.longAt(l, 15);
            long discardSectors = text.longAt(l, 16);
            long discardMs = text.longAt(l, 17);
            boolean flushStats = words > 17;
            long flushes = text.longAt(l, 18);
            long flushMs = text.longAt(l, 19);

            if (d.type == TYPE_PHYSICAL) {
                systemReadKb += readSectors * SECTOR_SIZE / 1024;
                systemWriteKb += writeSectors * SECTOR_SIZE / 1024;
            }
            if (!d.performance) {
                continue;
            }
            String family = d.mountPoint != null ? d.mountPoint : d.name;

            if (d.io != null || readSectors != 0 || writeSectors != 0 || discardSectors != 0) {
                if (d.io == null) {
                    d.io = diskChart(d, "disk", "disk.io", "Disk I/O Bandwidth", "KiB/s", 2000, "area", family)
                            .dim("reads", null, ProcChart.INCREMENTAL, SECTOR_SIZE, 1024)
                            .dim("writes", null, ProcChart.INCREMENTAL, -SECTOR_SIZE, 1024).build();
                    define(d.io);
                }
                set(d.io, nowMicros, readSectors, writeSectors);
                if (d.ext == null) {
                    d.ext = diskChart(d, "disk_ext", "disk_ext.io", "Amount of Discarded Data", "KiB/s", 2001, "area",
                            family).dim("discards", null, ProcChart.INCREMENTAL, SECTOR_SIZE, 1024).build();
                    define(d.ext);
                }
                set(d.ext, nowMicros, discardSectors);
            }
            if (d.ops != null || reads != 0 || writes != 0 || discards != 0 || flushes != 0) {
                if (d.ops == null) {
                    d.ops = diskChart(d, "disk_ops", "disk.ops", "Disk Completed I/O Operations", "operations/s",
                            2010, "line", family)
                            .dim("reads", null, ProcChart.INCREMENTAL, 1, 1)
                            .dim("writes", null, ProcChart.INCREMENTAL, -1, 1).build();
                    define(d.ops);
                }
                set(d.ops, nowMicros, reads, writes);
                if (d.extOps == null) {
                    ProcChart.Builder b = diskChart(d, "disk_ext_ops", "disk_ext.ops",
                            "Disk Completed Extended I/O Operations", "operations/s", 2011, "line", family)
                            .dim("discards", null, ProcChart.INCREMENTAL, 1, 1);
                    if (flushStats) {
                        b.dim("flushes", null, ProcChart.INCREMENTAL, 1, 1);
                    }
                    d.extOps = b.build();
                    define(d.extOps);
                }
                set(d.extOps, nowMicros, discards, flushes);
            }
            if (d.backlog != null || backlogMs != 0) {
                if (d.backlog == null) {
                    d.backlog = diskChart(d, "disk_backlog", "disk.backlog", "Disk Backlog", "milliseconds", 2020,
                            "area", family).dim("backlog", null, ProcChart.INCREMENTAL, 1, 1).build();
                    define(d.backlog);
                }
                set(d.backlog, nowMicros, backlogMs);
            }
            if (d.busy != null || busyMs != 0) {
                if (d.busy == null) {
                    d.busy = diskChart(d, "disk_busy", "disk.busy", "Disk Busy Time", "milliseconds", 2030, "area",
                            family).dim("busy", null, ProcChart.INCREMENTAL, 1, 1).build();
                    define(d.busy);
                    d.util = diskChart(d, "disk_util", "disk.util", "Disk Utilization Time", "% of time working", 2040,
                            "area", family).dim("utilization", null, ProcChart.ABSOLUTE, 1, 1).build();
                    define(d.util);
                }
                set(d.busy, nowMicros, busyMs);
                // busy milliseconds per update_every seconds, as a percentage
                long utilization = (busyMs - d.lastBusyMs) / (10L * ctx.updateEvery());
                d.lastBusyMs = busyMs;
                set(d.util, nowMicros, Math.min(100, utilization));
            }
            if (d.mops != null || mreads != 0 || mwrites != 0 || mdiscards != 0) {
                if (d.mops == null) {
                    d.mops = diskChart(d, "disk_mops", "disk.mops", "Disk Merged Operations", "merged operations/s",
                            2080, "line", family)
                            .dim("reads", null, ProcChart.INCREMENTAL, 1, 1)
                            .dim("writes", null, ProcChart.INCREMENTAL, -1, 1).build();
                    define(d.mops);
                    d.extMops = diskChart(d, "disk_ext_mops", "disk_ext.mops", "Disk Merged Discard Operations",
                            "merged operations/s", 2081, "line", family)
                            .dim("discards", null, ProcChart.INCREMENTAL, 1, 1).build();
                    define(d.extMops);
                }
                set(d.mops, nowMicros, mreads, mwrites);
                set(d.extMops, nowMicros, mdiscards);
            }
            if (d.iotime != null || readMs != 0 || writeMs != 0 || discardMs != 0 || flushMs != 0) {
                if (d.iotime == null) {
                    d.iotime = diskChart(d, "disk_iotime", "disk.iotime", "Disk Total I/O Time", "milliseconds/s",
                            2090, "line", family)
                            .dim("reads", null, ProcChart.INCREMENTAL, 1, 1)
                            .dim("writes", null, ProcChart.INCREMENTAL, -1, 1).build();
                    define(d.iotime);
                    ProcChart.Builder b = diskChart(d, "disk_ext_iotime", "disk_ext.iotime",
                            "Disk Total I/O Time for Extended Operations", "milliseconds/s", 2091, "line", family)
                            .dim("discards", null, ProcChart.INCREMENTAL, 1, 1);
                    if (flushStats) {
                        b.dim("flushes", null, ProcChart.INCREMENTAL, 1, 1);
                    }
                    d.extIotime = b.build();
                    define(d.extIotime);
                }
                set(d.iotime, nowMicros, readMs, writeMs);
                set(d.extIotime, nowMicros, discardMs, flushMs);
            }
        }
        for (Disk d : disks) {
            if (!d.seen && !d.missing) {
                d.missing = true;
                LOG.warn("disk {} is no longer in {}; its charts are not collected while it is away", d.deviceName,
                        file.path());
            }
        }
        if (systemIo != null || systemReadKb != 0 || systemWriteKb != 0) {
            if (systemIo == null) {
                systemIo = chart("system", "io").family("disk").title("Disk I/O").units("KiB/s").priority(150)
                        .type("area")
                        .dim("in", null, ProcChart.INCREMENTAL, 1, 1)
                        .dim("out", null, ProcChart.INCREMENTAL, -1, 1).build();
                define(systemIo);
            }
            set(systemIo, nowMicros, systemReadKb, systemWriteKb);
        }
    }

    private void set(ProcChart c, long nowMicros, long v0) {
        c.values[0] = v0;
        done(c, nowMicros);
    }

    private void set(ProcChart c, long nowMicros, long v0, long v1) {
        c.values[0] = v0;
        if (c.values.length > 1) {
            c.values[1] = v1;
        }
        done(c, nowMicros);
    }

    private ProcChart.Builder diskChart(Disk d, String type, String context, String title, String units,
                                        long priority, String chartType, String family) {
        return chart(type, d.deviceName).name(d.name).family(family).context(context).title(title).units(units)
                .priority(priority).type(chartType)
                .label("device", d.name).label("mount_point", d.mountPoint).label("device_type", d.typeLabel());
    }

    /** The disk of line {@code l}: found by major, minor and name without allocating, or made on first sight. */
    private Disk disk(int l) {
        long major = text.longAt(l, 0);
        long minor = text.longAt(l, 1);
        byte[] b = text.bytes();
        int s = text.start(l, 2);
        int e = text.end(l, 2);
        for (Disk d : disks) {
            if (d.major == major && d.minor == minor && Arrays.equals(d.device, 0, d.device.length, b, s, e)) {
                return d;
            }
        }
        byte[] device = Arrays.copyOfRange(b, s, e);
        String dev = new String(device, StandardCharsets.UTF_8);
        int type = detectType(dev, major, minor);
        boolean excluded = dev.startsWith("loop") || dev.startsWith("ram");
        String name = fixChartName(diskName(dev));
        String mount = Mountinfo.mountPointOf(ctx.path("/proc/self/mountinfo"), major, minor);
        Disk d = new Disk(major, minor, device, name, type, mount, !excluded && type != TYPE_PARTITION);
        disks.add(d);
        return d;
    }

    /** Netdata's test order: /sys/block/X (physical), then .../partition, then virtual block devices or slaves. */
    int detectType(String dev, long major, long minor) {
        int type = TYPE_UNKNOWN;
        if (Files.exists(ctx.path("/sys/block/" + dev))) {
            type = TYPE_PHYSICAL;
        }
        Path majorMinor = ctx.path("/sys/dev/block/" + major + ":" + minor);
        if (Files.exists(majorMinor.resolve("partition"))) {
            return TYPE_PARTITION;
        }
        if (Files.exists(ctx.path("/sys/devices/virtual/block/" + dev))) {
            return TYPE_VIRTUAL;
        }
        Path slaves = majorMinor.resolve("slaves");
        if (Files.isDirectory(slaves)) {
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(slaves)) {
                if (ds.iterator().hasNext()) {
                    return TYPE_VIRTUAL;
                }
            } catch (IOException ignored) {
                // unreadable: keep what /sys/block said
            }
        }
        return type;
    }

    /** A device-mapper or labelled device is named as /dev/mapper or /dev/disk/by-label name it. */
    private String diskName(String dev) {
        for (String dir : new String[]{"/dev/mapper", "/dev/disk/by-label"}) {
            Path p = ctx.path(dir);
            if (!Files.isDirectory(p)) {
                continue;
            }
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(p)) {
                for (Path link : ds) {
                    if (Files.isSymbolicLink(link)) {
                        Path target = Files.readSymbolicLink(link).getFileName();
                        if (target != null && target.toString().equals(dev)) {
                            return link.getFileName().toString();
                        }
                    }
                }
            } catch (IOException ignored) {
                // no names there: the kernel's device name stays
            }
        }
        return dev;
    }

    /** Netdata's netdata_fix_chart_name: characters outside [A-Za-z0-9_.-] become '_'. */
    static String fixChartName(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            b.append(Character.isLetterOrDigit(c) && c < 128 || c == '_' || c == '.' || c == '-' ? c : '_');
        }
        return b.toString();
    }

    @Override
    public void close() {
        file.close();
    }
}
