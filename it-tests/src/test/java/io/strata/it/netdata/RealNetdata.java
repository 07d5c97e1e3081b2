package io.strata.it.netdata;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A real Netdata 1.37.1 ({@code /usr/sbin/netdata} of Debian's netdata-core) run on 127.0.0.1 as a
 * child or a parent, the way {@code docs/protocol/netdata-peer.md} describes: own directories and
 * ports, no statsd/registry/health/ML, and a {@code system-info.sh} of ours (the package lacks it
 * and a 1.37.1 sender crashes without it). Always bounded by {@code timeout}.
 */
public final class RealNetdata implements AutoCloseable {

    public static final Path BINARY = Path.of("/usr/sbin/netdata");
    public static final String API_KEY = "11111111-2222-3333-4444-555555555555";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path base;
    private final String hostname;
    private final int webPort;
    private int tiers = 1;
    private String extraConf = "";
    private Process process;

    private RealNetdata(Path base, String hostname, int webPort) {
        this.base = base;
        this.hostname = hostname;
        this.webPort = webPort;
    }

    /** Skips the calling test, saying why, where Netdata is not installed. */
    public static void assumeInstalled() {
        boolean ok = Files.isExecutable(BINARY);
        if (!ok) {
            System.out.println("SKIPPED: " + BINARY + " is not installed (apt-get install -y netdata-core); "
                    + "the tests against the real Netdata 1.37.1 need it");
        }
        Assumptions.assumeTrue(ok, BINARY + " is not installed (apt-get install -y netdata-core)");
    }

    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** A child collecting this machine (proc, diskspace, idlejitter) and streaming to {@code destination}. */
    public static RealNetdata child(Path base, String hostname, int webPort, String destination, boolean compression)
            throws IOException {
        RealNetdata n = new RealNetdata(base, hostname, webPort);
        n.writeNetdataConf("dbengine");
        Files.writeString(base.resolve("etc/stream.conf"), "[stream]\n"
                + "\tenabled = yes\n"
                + "\tdestination = " + destination + "\n"
                + "\tapi key = " + API_KEY + "\n"
                + "\ttimeout seconds = 60\n"
                + "\treconnect delay seconds = 2\n"
                + "\tssl skip certificate verification = yes\n"
                + "\tenable compression = " + (compression ? "yes" : "no") + "\n");
        return n;
    }

    /**
     * A child as {@link #child}, with {@code extraConf} appended to its netdata.conf (e.g. a
     * collector's {@code update every}).
     */
    public static RealNetdata child(Path base, String hostname, int webPort, String destination, boolean compression,
                                    String extraConf) throws IOException {
        RealNetdata n = child(base, hostname, webPort, destination, compression);
        n.extraConf = extraConf;
        n.writeNetdataConf("dbengine");
        return n;
    }

    /**
     * A parent with {@code tiers} storage tiers accepting {@link #API_KEY} and forwarding
     * everything it holds (its own host and its children) to {@code destination}.
     */
    public static RealNetdata forwardingParent(Path base, String hostname, int webPort, int tiers, String destination)
            throws IOException {
        RealNetdata n = new RealNetdata(base, hostname, webPort);
        n.tiers = tiers;
        n.writeNetdataConf("dbengine");
        Files.writeString(base.resolve("etc/stream.conf"), "[stream]\n"
                + "\tenabled = yes\n"
                + "\tdestination = " + destination + "\n"
                + "\tapi key = " + API_KEY + "\n"
                + "\ttimeout seconds = 60\n"
                + "\treconnect delay seconds = 2\n"
                + "\tenable compression = yes\n\n"
                + "[" + API_KEY + "]\n"
                + "\tenabled = yes\n"
                + "\tallow from = *\n"
                + "\tdefault memory mode = dbengine\n"
                + "\thealth enabled by default = no\n"
                + "\tenable compression = yes\n"
                + "\tenable replication = yes\n"
                + "\tseconds to replicate = 86400\n"
                + "\tseconds per replication step = 600\n");
        return n;
    }

    /** A parent accepting {@link #API_KEY} with dbengine and replication. */
    public static RealNetdata parent(Path base, String hostname, int webPort, boolean compression) throws IOException {
        RealNetdata n = new RealNetdata(base, hostname, webPort);
        n.writeNetdataConf("dbengine");
        Files.writeString(base.resolve("etc/stream.conf"), "[stream]\n"
                + "\tenabled = no\n\n"
                + "[" + API_KEY + "]\n"
                + "\tenabled = yes\n"
                + "\tallow from = *\n"
                + "\tdefault memory mode = dbengine\n"
                + "\thealth enabled by default = no\n"
                + "\tenable compression = " + (compression ? "yes" : "no") + "\n"
                + "\tenable replication = yes\n"
                + "\tseconds to replicate = 86400\n"
                + "\tseconds per replication step = 600\n");
        return n;
    }

    private void writeNetdataConf(String mode) throws IOException {
        for (String d : new String[]{"etc", "cache", "lib", "log", "run", "plugins"}) {
            Files.createDirectories(base.resolve(d));
        }
        Files.writeString(base.resolve("etc/.opt-out-from-anonymous-statistics"), "");
        Path plugins = base.resolve("plugins");
        try (var s = Files.list(Path.of("/usr/lib/netdata/plugins.d"))) {
            for (Path p : (Iterable<Path>) s::iterator) {
                Path link = plugins.resolve(p.getFileName());
                if (!Files.exists(link, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    Files.createSymbolicLink(link, p);
                }
            }
        }
        Path sysinfo = plugins.resolve("system-info.sh");
        Files.deleteIfExists(sysinfo);
        Files.writeString(sysinfo, systemInfoScript());
        Files.setPosixFilePermissions(sysinfo, PosixFilePermissions.fromString("rwxr-xr-x"));
        String user = System.getProperty("user.name");
        String conf = "[global]\n"
                + "\trun as user = " + user + "\n"
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
                + "\taccess = " + base.resolve("log/access.log") + "\n"
                + "[db]\n"
                + "\tmode = " + mode + "\n"
                + "\tupdate every = 1\n"
                + "\tstorage tiers = " + tiers + "\n"
                + "[web]\n"
                + "\tbind to = 127.0.0.1:" + webPort + "\n"
                + "[registry]\n\tenabled = no\n"
                + "[health]\n\tenabled = no\n"
                + "[ml]\n\tenabled = no\n"
                + "[statsd]\n\tenabled = no\n"
                + "[plugins]\n"
                + "\tpython.d = no\n\tgo.d = no\n\tcharts.d = no\n\tapps = no\n\tebpf = no\n\tcgroups = no\n"
                + "\ttc = no\n\tslabinfo = no\n\tperf = no\n\tnfacct = no\n\tfping = no\n\tioping = no\n"
                + "\tfreeipmi = no\n\ttimex = no\n\tchecks = no\n\tidlejitter = yes\n\tproc = yes\n"
                + "\tdiskspace = yes\n\tstatsd = no\n"
                + "[host labels]\n\ttestlabel = hello world\n"
                + extraConf;
        Files.writeString(base.resolve("etc/netdata.conf"), conf);
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
        StringBuilder s = new StringBuilder("#!/bin/sh\n# written by Strata's tests: the Debian package lacks it\n");
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

    /** Starts it (foreground, bounded by {@code timeout}); waits until its web port answers. */
    public void start(Duration limit) throws IOException, InterruptedException {
        process = new ProcessBuilder("timeout", String.valueOf(limit.toSeconds()), BINARY.toString(), "-D", "-c",
                base.resolve("etc/netdata.conf").toString())
                .redirectErrorStream(true)
                .redirectOutput(base.resolve("stdout.log").toFile())
                .start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException("netdata " + hostname + " exited with " + process.exitValue() + ": "
                        + tail(base.resolve("stdout.log")) + tail(base.resolve("log/error.log")));
            }
            try {
                get("/api/v1/info");
                return;
            } catch (IOException notYet) {
                Thread.sleep(200);
            }
        }
        throw new IOException("netdata " + hostname + " did not answer on port " + webPort + " within 30 s");
    }

    /** False once the process (or the {@code timeout} around it) has exited. */
    public boolean isAlive() {
        return process != null && process.isAlive() && process.descendants().findAny().isPresent();
    }

    public int webPort() {
        return webPort;
    }

    public String hostname() {
        return hostname;
    }

    public Path base() {
        return base;
    }

    /** The machine GUID it generated on its first start. */
    public String machineGuid() throws IOException {
        return Files.readString(base.resolve("lib/registry/netdata.public.unique.id")).trim();
    }

    public String errorLog() throws IOException {
        Path p = base.resolve("log/error.log");
        return Files.exists(p) ? Files.readString(p) : "";
    }

    /** Waits until its error log (INFO lines go there too) contains {@code needle}. */
    public boolean waitForLog(String needle, Duration limit) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (System.nanoTime() < deadline) {
            if (errorLog().contains(needle)) {
                return true;
            }
            Thread.sleep(250);
        }
        return false;
    }

    public JsonNode get(String pathAndQuery) throws IOException {
        return JSON.readTree(getText(pathAndQuery));
    }

    public String getText(String pathAndQuery) throws IOException {
        HttpURLConnection c = (HttpURLConnection) URI.create("http://127.0.0.1:" + webPort + pathAndQuery).toURL()
                .openConnection();
        c.setConnectTimeout(2000);
        c.setReadTimeout(10_000);
        int status = c.getResponseCode();
        try (InputStream in = status < 400 ? c.getInputStream() : c.getErrorStream()) {
            String body = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
            if (status >= 400) {
                throw new IOException("GET " + pathAndQuery + " -> " + status + ": " + body);
            }
            return body;
        } finally {
            c.disconnect();
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (process == null) {
            return;
        }
        // netdata and the plugins it started must not outlive the test
        java.util.List<ProcessHandle> started = process.descendants().toList();
        process.destroy(); // timeout forwards SIGTERM; netdata stops cleanly in 1-3 s
        if (!process.waitFor(15, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(5, TimeUnit.SECONDS);
        }
        for (ProcessHandle h : started) {
            if (h.isAlive()) {
                h.destroyForcibly();
            }
        }
    }

    private static String tail(Path p) {
        try {
            if (!Files.exists(p)) {
                return "";
            }
            String s = Files.readString(p);
            return s.length() > 2000 ? s.substring(s.length() - 2000) : s;
        } catch (IOException e) {
            return "";
        }
    }
}
