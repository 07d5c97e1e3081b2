package io.strata.node.compare;

import io.strata.engine.EngineConfig;
import io.strata.engine.io.FileChannelIo;
import io.strata.engine.verify.DbVerifier;
import io.strata.node.config.NodeConfig;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A Strata parent in a JVM of its own ({@code StrataMain node --config DIR}), started with this
 * JVM's launcher options (module flags, GC settings of {@code ./strata}) and class path, with the
 * same netdata.conf [db] section and stream.conf as the Netdata parent.
 */
final class StrataParent implements ParentUnderTest {

    private final Path dir;
    private final int port;
    private final boolean compression;
    private final int fleet;
    private Process process;

    StrataParent(Path dir, int port, boolean compression, int fleet) {
        this.dir = dir;
        this.fleet = fleet;
        this.port = port;
        this.compression = compression;
    }

    @Override
    public String name() {
        return "strata";
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public long pid() {
        return process == null ? -1 : process.pid();
    }

    private EngineConfig engineConfig() throws IOException {
        try {
            return NodeConfig.load(dir).engineConfig();
        } catch (NodeConfig.ConfigException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    @Override
    public Path tier0Dir() {
        try {
            return engineConfig().tierDir(0);
        } catch (IOException e) {
            throw new IllegalStateException("the configuration written before the start no longer reads: " + e, e);
        }
    }

    @Override
    public void start() throws IOException, InterruptedException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("netdata.conf"), "[global]\n"
                + "\thostname = compare-strata-parent\n"
                + ParentUnderTest.dbSection()
                + "[web]\n\tbind to = 127.0.0.1:" + port + "\n"
                // the whole fleet connects from 127.0.0.1 at once: lift Strata's per-address guards,
                // which Netdata 1.37.1 does not have, to the fleet's size
                + "\tmax connections per client address = " + (fleet + 64) + "\n"
                + "\tmax handshakes in progress = " + Math.max(1024, fleet + 64) + "\n"
                + "\tmax handshakes in progress per client address = " + (fleet + 64) + "\n"
                + "[directories]\n\tcache = " + dir.resolve("cache") + "\n\tlib = " + dir.resolve("lib") + "\n"
                + "[plugins]\n\tproc = no\n");
        Files.writeString(dir.resolve("stream.conf"), ParentUnderTest.streamConf(compression));
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            // the launcher's module flags and memory settings; not agents, debuggers or test harness properties
            if (a.startsWith("--add-") || a.startsWith("--enable-native-access") || a.startsWith("--sun-misc-unsafe")
                    || a.startsWith("-Dchronicle.") || a.startsWith("-XX:") || a.startsWith("-Xmx")
                    || a.startsWith("-Xms") || a.startsWith("-Xss")) {
                cmd.add(a);
            }
        }
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add("io.strata.node.cli.StrataMain");
        cmd.add("node");
        cmd.add("--config");
        cmd.add(dir.toString());
        process = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(dir.resolve("node.log").toFile()).start();
        ParentUnderTest.awaitApi(new ParentHttp(port), process, "strata node", 60, this);
    }

    /** {@code db verify} of its database after the stop: tier 0's points and bytes as Strata counts them. */
    DbVerifier.TierSummary verifyTier0() throws IOException {
        EngineConfig ec = engineConfig();
        Path[] tierDirs = new Path[ec.tiers()];
        for (int t = 0; t < ec.tiers(); t++) {
            tierDirs[t] = ec.tierDir(t);
        }
        DbVerifier.Result r = DbVerifier.verify(FileChannelIo.INSTANCE, ec.dir(), tierDirs);
        return r.tiers().isEmpty() ? null : r.tiers().get(0);
    }

    @Override
    public String logTail() {
        return ParentUnderTest.tail(dir.resolve("node.log"), 2000);
    }

    @Override
    public void close() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroy(); // SIGTERM: the node flushes its hot pages and closes its files
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
