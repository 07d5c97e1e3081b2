package io.strata.node.compare;

import io.strata.node.netdata.NetdataAgentConfig;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real Netdata 1.37.1 parent ({@code /usr/sbin/netdata -D} of Debian's netdata-core) under
 * {@code timeout}, every directory under its scratch directory, as {@code docs/protocol/netdata-peer.md}
 * describes: dbengine with 3 tiers, health, ML, registry, statsd and every data collection plugin
 * off, the load's API key in stream.conf.
 */
final class NetdataParent implements ParentUnderTest {

    static final Path BINARY = Path.of("/usr/sbin/netdata");

    private final Path base;
    private final int port;
    private final int limitSeconds;
    private final boolean compression;
    private Process timeout;
    private long pid = -1;

    NetdataParent(Path base, int port, int limitSeconds, boolean compression) {
        this.base = base;
        this.compression = compression;
        this.port = port;
        this.limitSeconds = limitSeconds;
    }

    /** Why Netdata cannot be compared here, or null when it can. */
    static String unavailable() {
        if (!Files.isExecutable(BINARY)) {
            return BINARY + " is not installed (Debian: apt-get install netdata-core)";
        }
        if (!Files.isDirectory(Path.of("/proc/self/task"))) {
            return "no /proc: the parents' CPU and memory are read from Linux's /proc";
        }
        return null;
    }

    @Override
    public String name() {
        return "netdata";
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public long pid() {
        return pid;
    }

    @Override
    public Path tier0Dir() {
        return base.resolve("cache/dbengine"); // Netdata keeps dbengine files under [directories] cache
    }

    @Override
    public void start() throws IOException, InterruptedException {
        writeConfiguration();
        timeout = new ProcessBuilder("timeout", String.valueOf(limitSeconds), BINARY.toString(), "-D", "-c",
                base.resolve("etc/netdata.conf").toString())
                .redirectErrorStream(true)
                .redirectOutput(base.resolve("stdout.log").toFile())
                .start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (pid < 0 && System.nanoTime() < deadline && timeout.isAlive()) {
            pid = timeout.children().filter(h -> h.info().command().map(c -> c.endsWith("netdata")).orElse(false))
                    .mapToLong(ProcessHandle::pid).findFirst().orElse(-1);
            if (pid < 0) {
                Thread.sleep(50);
            }
        }
        if (pid < 0) {
            throw new IOException("netdata did not start: " + logTail());
        }
        ParentUnderTest.awaitApi(new ParentHttp(port), timeout, "netdata", 60, this);
    }

    private void writeConfiguration() throws IOException {
        Path plugins = NetdataAgentConfig.prepareDirectories(base);
        String conf = NetdataAgentConfig.globalDirectoriesAndLogs(base, plugins, "compare-netdata-parent", "none")
                + ParentUnderTest.dbSection()
                + "[web]\n"
                + "\tbind to = 127.0.0.1:" + port + "\n"
                + "[registry]\n\tenabled = no\n"
                + "[health]\n\tenabled = no\n"
                + "[ml]\n\tenabled = no\n"
                + "[statsd]\n\tenabled = no\n"
                + "[plugins]\n"
                + "\tenable running new plugins = no\n"
                + "\tpython.d = no\n\tgo.d = no\n\tcharts.d = no\n\tapps = no\n\tebpf = no\n\tcgroups = no\n"
                + "\ttc = no\n\tslabinfo = no\n\tperf = no\n\tnfacct = no\n\tfping = no\n\tioping = no\n"
                + "\tfreeipmi = no\n\ttimex = no\n\tchecks = no\n\tidlejitter = no\n\tproc = no\n"
                + "\tdiskspace = no\n\tstatsd = no\n";
        Files.writeString(base.resolve("etc/netdata.conf"), conf);
        Files.writeString(base.resolve("etc/stream.conf"), ParentUnderTest.streamConf(compression));
    }

    @Override
    public String logTail() {
        return ParentUnderTest.tail(base.resolve("stdout.log"), 1000) + ParentUnderTest.tail(base.resolve("log/error.log"), 2000);
    }

    @Override
    public void close() throws InterruptedException {
        if (timeout == null) {
            return;
        }
        // netdata and what it spawned must not outlive the comparison
        List<ProcessHandle> started = timeout.descendants().toList();
        timeout.destroy(); // timeout forwards SIGTERM; netdata writes its hot pages and stops
        if (!timeout.waitFor(60, TimeUnit.SECONDS)) {
            timeout.destroyForcibly();
            timeout.waitFor(5, TimeUnit.SECONDS);
        }
        for (ProcessHandle h : started) {
            if (h.isAlive()) {
                h.destroyForcibly();
            }
        }
    }
}
