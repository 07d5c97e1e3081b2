package io.strata.node.collect;

import io.strata.streaming.child.ProcChart;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * {@code /proc/net/dev}: system.net (physical interfaces together) and per interface net.X and
 * net_packets.X, as Netdata's {@code do_proc_net_dev} with its defaults: interfaces matching
 * {@code lo fireqos* *-ifb fwpr* fwbr* fwln*} get no charts, and a chart appears once its counters
 * are non-zero, then stays.
 */
public final class ProcNetDevModule extends ProcModule {

    private static final Logger LOG = LoggerFactory.getLogger(ProcNetDevModule.class);

    /** Netdata's BITS_IN_A_KILOBIT: bytes * 8 / 1000 = kilobits. */
    static final int BITS_IN_A_KILOBIT = 1000;

    private final ProcFile file;
    private final ProcText text = new ProcText(" \t:");
    private final List<Iface> ifaces = new ArrayList<>();
    private ProcChart systemNet;

    /** One interface of /proc/net/dev and its charts. */
    static final class Iface {
        final byte[] nameBytes;
        final String name;
        final boolean virtual;
        final boolean enabled;
        boolean seen;
        boolean missing;
        ProcChart net;
        ProcChart packets;

        Iface(byte[] nameBytes, boolean virtual, boolean enabled) {
            this.nameBytes = nameBytes;
            this.name = new String(nameBytes, StandardCharsets.UTF_8);
            this.virtual = virtual;
            this.enabled = enabled;
        }
    }

    public ProcNetDevModule(Context ctx) {
        super(ctx);
        this.file = new ProcFile(ctx.path("/proc/net/dev"), 4096);
    }

    @Override
    public String name() {
        return "/proc/net/dev";
    }

    List<Iface> interfaces() {
        return ifaces;
    }

    @Override
    public void collect(long nowMicros) {
        if (!file.read()) {
            return;
        }
        text.parse(file);
        for (Iface i : ifaces) {
            i.seen = false;
        }
        long systemReceived = 0;
        long systemSent = 0;
        // the first two lines are the column headers
        for (int l = 2; l < text.lines(); l++) {
            // "  eth0: rbytes rpackets rerrs rdrop rfifo rframe rcompressed rmulticast tbytes tpackets ..."
            if (text.words(l) < 17) {
                continue; // a line the kernel cut short
            }
            Iface f = iface(l);
            f.seen = true;
            if (f.missing) {
                f.missing = false;
                LOG.info("interface {} is back in {}", f.name, file.path());
            }
            if (!f.enabled) {
                continue;
            }
            long rbytes = text.longAt(l, 1);
            long rpackets = text.longAt(l, 2);
            long rmulticast = text.longAt(l, 8);
            long tbytes = text.longAt(l, 9);
            long tpackets = text.longAt(l, 10);
            if (!f.virtual) {
                systemReceived += rbytes;
                systemSent += tbytes;
            }
            if (f.net != null || rbytes != 0 || tbytes != 0) {
                if (f.net == null) {
                    f.net = ifaceChart(f, "net", "net.net", "Bandwidth", "kilobits/s", 7000, "area")
                            .dim("received", null, ProcChart.INCREMENTAL, 8, BITS_IN_A_KILOBIT)
                            .dim("sent", null, ProcChart.INCREMENTAL, -8, BITS_IN_A_KILOBIT).build();
                    define(f.net);
                }
                f.net.values[0] = rbytes;
                f.net.values[1] = tbytes;
                done(f.net, nowMicros);
            }
            if (f.packets != null || rpackets != 0 || tpackets != 0 || rmulticast != 0) {
                if (f.packets == null) {
                    f.packets = ifaceChart(f, "net_packets", "net.packets", "Packets", "packets/s", 7001, "line")
                            .dim("received", null, ProcChart.INCREMENTAL, 1, 1)
                            .dim("sent", null, ProcChart.INCREMENTAL, -1, 1)
                            .dim("multicast", null, ProcChart.INCREMENTAL, 1, 1).build();
                    define(f.packets);
                }
                f.packets.values[0] = rpackets;
                f.packets.values[1] = tpackets;
                f.packets.values[2] = rmulticast;
                done(f.packets, nowMicros);
            }
        }
        for (Iface f : ifaces) {
            if (!f.seen && !f.missing) {
                f.missing = true;
                LOG.warn("interface {} is no longer in {}; its charts are not collected while it is away", f.name,
                        file.path());
            }
        }
        if (systemNet != null || systemReceived != 0 || systemSent != 0) {
            if (systemNet == null) {
                systemNet = chart("system", "net").family("network")
                        .title("Physical Network Interfaces Aggregated Bandwidth").units("kilobits/s").priority(500)
                        .type("area")
                        .dim("InOctets", "received", ProcChart.INCREMENTAL, 8, BITS_IN_A_KILOBIT)
                        .dim("OutOctets", "sent", ProcChart.INCREMENTAL, -8, BITS_IN_A_KILOBIT).build();
                define(systemNet);
            }
            systemNet.values[0] = systemReceived;
            systemNet.values[1] = systemSent;
            done(systemNet, nowMicros);
        }
    }

    private ProcChart.Builder ifaceChart(Iface f, String type, String context, String title, String units,
                                         long priority, String chartType) {
        return chart(type, f.name).family(f.name).context(context).title(title).units(units).priority(priority)
                .type(chartType).label("interface_type", f.virtual ? "virtual" : "real").label("device", f.name);
    }

    private Iface iface(int l) {
        byte[] b = text.bytes();
        int s = text.start(l, 0);
        int e = text.end(l, 0);
        for (Iface f : ifaces) {
            if (Arrays.equals(f.nameBytes, 0, f.nameBytes.length, b, s, e)) {
                return f;
            }
        }
        byte[] name = Arrays.copyOfRange(b, s, e);
        String n = new String(name, StandardCharsets.UTF_8);
        boolean virtual = Files.exists(ctx.path("/sys/devices/virtual/net/" + n));
        Iface f = new Iface(name, virtual, !disabledByDefault(n));
        ifaces.add(f);
        return f;
    }

    /** Netdata's "disable by default interfaces matching = lo fireqos* *-ifb fwpr* fwbr* fwln*". */
    static boolean disabledByDefault(String n) {
        return n.equals("lo") || n.startsWith("fireqos") || n.endsWith("-ifb") || n.startsWith("fwpr")
                || n.startsWith("fwbr") || n.startsWith("fwln");
    }

    @Override
    public void close() {
        file.close();
    }
}
