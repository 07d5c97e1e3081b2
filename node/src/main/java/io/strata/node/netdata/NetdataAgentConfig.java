package io.strata.node.netdata;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

/**
 * The directories and configuration of a real Netdata 1.37.1 agent ({@code /usr/sbin/netdata} of
 * Debian's netdata-core) run beside Strata, as {@code docs/protocol/netdata-peer.md} describes:
 * every directory under its own base, its own web port, no statsd/registry/health/ML, collecting
 * this machine (proc, diskspace, idlejitter). It streams to parents ({@link #sendTo}), accepts
 * children ({@link #accept}), or both. The package lacks {@code system-info.sh}, without which a
 * 1.37.1 sender crashes when it connects: one of ours is written into a plugins directory of links
 * to the packaged plugins.
 *
 * <p>The one writer of this configuration: the chaos command's Netdata child and the integration
 * tests' Netdata peers use it.
 */
public final class NetdataAgentConfig {

    /** Where Debian's netdata-core installs the agent. */
    public static final Path BINARY = Path.of("/usr/sbin/netdata");
    private static final Path PACKAGED_PLUGINS = Path.of("/usr/lib/netdata/plugins.d");

    private final Path base;
    private final String hostname;
    private final String bind;
    private final int port;
    private int tiers = 1;
    private final StringBuilder extraNetdataConf = new StringBuilder();
    private String sender;
    private String receiver;

    /**
     * @param base     its directories (etc, cache, lib, log, run, plugins) go under it
     * @param hostname {@code [global] hostname}
     * @param bind     the address of its web port
     * @param port     its web port (and where children connect)
     */
    public NetdataAgentConfig(Path base, String hostname, String bind, int port) {
        this.base = base;
        this.hostname = hostname;
        this.bind = bind;
        this.port = port;
    }

    /** Whether the agent is installed here. */
    public static boolean installed() {
        return Files.isExecutable(BINARY);
    }

    /** {@code [db] storage tiers} (1 unless said). */
    public NetdataAgentConfig tiers(int storageTiers) {
        this.tiers = storageTiers;
        return this;
    }

    /** Sections or lines appended to netdata.conf as given (host labels, a collector's settings). */
    public NetdataAgentConfig appendNetdataConf(String text) {
        extraNetdataConf.append(text);
        return this;
    }

    /**
     * Streams to {@code destinations}, tried in their order, with {@code apiKey}.
     *
     * @param timeoutSeconds         {@code timeout seconds}: a parent silent this long is left
     * @param skipCertificateCheck   {@code ssl skip certificate verification} (loopback tests with
     *                               a self-signed parent)
     */
    public NetdataAgentConfig sendTo(List<String> destinations, String apiKey, int timeoutSeconds, boolean compression,
                                     boolean skipCertificateCheck) {
        sender = "\tenabled = yes\n"
                + "\tdestination = " + String.join(" ", destinations) + "\n"
                + "\tapi key = " + apiKey + "\n"
                + "\ttimeout seconds = " + timeoutSeconds + "\n"
                + "\treconnect delay seconds = 2\n"
                + (skipCertificateCheck ? "\tssl skip certificate verification = yes\n" : "")
                + "\tenable compression = " + yesNo(compression) + "\n";
        return this;
    }

    /**
     * Accepts children that stream with {@code apiKey} from anywhere, stores them in dbengine and
     * fills their gaps by replication (a day back, 10 minutes a step); health off for them.
     */
    public NetdataAgentConfig accept(String apiKey, boolean compression) {
        receiver = "[" + apiKey + "]\n"
                + "\tenabled = yes\n"
                + "\tallow from = *\n"
                + "\tdefault memory mode = dbengine\n"
                + "\thealth enabled by default = no\n"
                + "\tenable compression = " + yesNo(compression) + "\n"
                + "\tenable replication = yes\n"
                + "\tseconds to replicate = 86400\n"
                + "\tseconds per replication step = 600\n";
        return this;
    }

    /** Its netdata.conf, once written. */
    public Path netdataConf() {
        return base.resolve("etc/netdata.conf");
    }

    /** Writes the directories, the plugins directory, netdata.conf and stream.conf. */
    public void write() throws IOException {
        Path plugins = prepareDirectories(base);
        Files.writeString(netdataConf(), globalDirectoriesAndLogs(base, plugins, hostname,
                base.resolve("log/access.log").toString())
                + "[db]\n"
                + "\tmode = dbengine\n"
                + "\tupdate every = 1\n"
                + "\tstorage tiers = " + tiers + "\n"
                + "[web]\n"
                + "\tbind to = " + bind + ":" + port + "\n"
                + "[registry]\n\tenabled = no\n"
                + "[health]\n\tenabled = no\n"
                + "[ml]\n\tenabled = no\n"
                + "[statsd]\n\tenabled = no\n"
                + "[plugins]\n"
                + "\tpython.d = no\n\tgo.d = no\n\tcharts.d = no\n\tapps = no\n\tebpf = no\n\tcgroups = no\n"
                + "\ttc = no\n\tslabinfo = no\n\tperf = no\n\tnfacct = no\n\tfping = no\n\tioping = no\n"
                + "\tfreeipmi = no\n\ttimex = no\n\tchecks = no\n\tidlejitter = yes\n\tproc = yes\n"
                + "\tdiskspace = yes\n\tstatsd = no\n"
                + extraNetdataConf);
        Files.writeString(base.resolve("etc/stream.conf"), "[stream]\n"
                + (sender != null ? sender : "\tenabled = no\n")
                + (receiver != null ? "\n" + receiver : ""));
    }

    /**
     * The directories of an agent under {@code base} (etc, cache, lib, log, run, plugins), the
     * packaged plugins linked into its own plugins directory, and the system-info script Debian's
     * package lacks; returns the plugins directory.
     */
    public static Path prepareDirectories(Path base) throws IOException {
        for (String d : new String[]{"etc", "cache", "lib", "log", "run", "plugins"}) {
            Files.createDirectories(base.resolve(d));
        }
        Files.writeString(base.resolve("etc/.opt-out-from-anonymous-statistics"), "");
        Path plugins = base.resolve("plugins");
        if (Files.isDirectory(PACKAGED_PLUGINS)) {
            try (var s = Files.list(PACKAGED_PLUGINS)) {
                for (Path p : (Iterable<Path>) s::iterator) {
                    Path link = plugins.resolve(p.getFileName());
                    if (!Files.exists(link, LinkOption.NOFOLLOW_LINKS)) {
                        Files.createSymbolicLink(link, p);
                    }
                }
            }
        }
        Path sysinfo = plugins.resolve("system-info.sh");
        Files.deleteIfExists(sysinfo);
        Files.writeString(sysinfo, systemInfoScript());
        Files.setPosixFilePermissions(sysinfo, PosixFilePermissions.fromString("rwxr-xr-x"));
        return plugins;
    }

    /** netdata.conf's [global], [directories] and [logs] of an agent under {@code base}. */
    public static String globalDirectoriesAndLogs(Path base, Path plugins, String hostname, String accessLog) {
        return "[global]\n"
                + "\trun as user = " + System.getProperty("user.name") + "\n"
                + "\thostname = " + hostname + "\n"
                + "[directories]\n"
                + "\tconfig = " + base.resolve("etc") + "\n"
                + "\tstock config = /usr/lib/netdata/conf.d\n"
                + "\tlog = " + base.resolve("log") + "\n"
                + "\tcache = " + base.resolve("cache") + "\n"
                + "\tlib = " + base.resolve("lib") + "\n"
                + "\thome = " + base.resolve("lib") + "\n"
                + "\tregistry = " + base.resolve("lib/registry") + "\n"
                + "\tplugins = \"" + plugins + "\"\n"
                + "\tweb = /usr/share/netdata/web\n"
                + "[logs]\n"
                + "\tdebug = " + base.resolve("log/debug.log") + "\n"
                + "\terror = " + base.resolve("log/error.log") + "\n"
                + "\taccess = " + accessLog + "\n";
    }

    private static String yesNo(boolean b) {
        return b ? "yes" : "no";
    }

    private static String systemInfoScript() {
        String[] keys = {"NETDATA_CONTAINER_OS_NAME", "NETDATA_CONTAINER_OS_ID", "NETDATA_CONTAINER_OS_ID_LIKE",
                "NETDATA_CONTAINER_OS_VERSION", "NETDATA_CONTAINER_OS_VERSION_ID", "NETDATA_CONTAINER_OS_DETECTION",
                "NETDATA_CONTAINER_IS_OFFICIAL_IMAGE", "NETDATA_HOST_OS_ID_LIKE", "NETDATA_HOST_OS_DETECTION",
                "NETDATA_HOST_IS_K8S_NODE", "NETDATA_SYSTEM_VIRTUALIZATION", "NETDATA_SYSTEM_VIRT_DETECTION",
                "NETDATA_SYSTEM_CONTAINER", "NETDATA_SYSTEM_CONTAINER_DETECTION", "NETDATA_SYSTEM_CPU_VENDOR",
                "NETDATA_SYSTEM_CPU_MODEL", "NETDATA_SYSTEM_CPU_FREQ", "NETDATA_SYSTEM_CPU_DETECTION",
                "NETDATA_SYSTEM_RAM_DETECTION", "NETDATA_SYSTEM_TOTAL_DISK_SIZE", "NETDATA_SYSTEM_DISK_DETECTION",
                "NETDATA_INSTANCE_CLOUD_TYPE", "NETDATA_INSTANCE_CLOUD_INSTANCE_TYPE",
                "NETDATA_INSTANCE_CLOUD_INSTANCE_REGION"};
        StringBuilder s = new StringBuilder("#!/bin/sh\n# written by Strata: the Debian package lacks it\n");
        s.append(". /etc/os-release 2>/dev/null\n");
        s.append("echo \"NETDATA_HOST_OS_NAME=${NAME}\"\n");
        s.append("echo \"NETDATA_HOST_OS_ID=${ID}\"\n");
        s.append("echo \"NETDATA_HOST_OS_VERSION=${VERSION}\"\n");
        s.append("echo \"NETDATA_HOST_OS_VERSION_ID=${VERSION_ID}\"\n");
        s.append("echo \"NETDATA_SYSTEM_KERNEL_NAME=$(uname -s)\"\n");
        s.append("echo \"NETDATA_SYSTEM_KERNEL_VERSION=$(uname -r)\"\n");
        s.append("echo \"NETDATA_SYSTEM_ARCHITECTURE=$(uname -m)\"\n");
        s.append("echo \"NETDATA_SYSTEM_CPU_LOGICAL_CPU_COUNT=$(nproc)\"\n");
        s.append("echo \"NETDATA_SYSTEM_TOTAL_RAM=$(awk '/MemTotal/ {print $2*1024}' /proc/meminfo)\"\n");
        for (String k : keys) {
            s.append("echo \"").append(k).append("=\"\n");
        }
        return s.toString();
    }
}
