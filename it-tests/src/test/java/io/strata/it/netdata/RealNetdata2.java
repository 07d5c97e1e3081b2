package io.strata.it.netdata;

import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A real Netdata 2.9.0 (the prebuilt agent {@code .ci/run} unpacks; found through the environment
 * variable {@code STRATA_NETDATA2_HOME} or the system property {@code strata.netdata2.home}) run on
 * 127.0.0.1 as a child or a parent: every directory under its own scratch dir, the web port given,
 * no health/ML/registry/statsd, no cloud, only the internal collectors (proc and friends). Always
 * bounded by {@code timeout}. Its configuration is its own: 2.x renamed many of 1.37.1's keys
 * ({@code timeout = 60s}, {@code db = dbengine}, {@code replication period}).
 */
public final class RealNetdata2 extends NetdataProcess {

    public static final String HOME_ENV = "STRATA_NETDATA2_HOME";
    public static final String HOME_PROPERTY = "strata.netdata2.home";

    private final Path home;

    private RealNetdata2(Path home, Path base, String hostname, int webPort) {
        super(base, hostname, webPort);
        this.home = home;
    }

    /** Where the agent was unpacked ({@code usr/sbin/netdata} under it), or null when not given. */
    static Path home() {
        String h = System.getProperty(HOME_PROPERTY);
        if (h == null || h.isBlank()) {
            h = System.getenv(HOME_ENV);
        }
        return h == null || h.isBlank() ? null : Path.of(h);
    }

    /** Skips the calling test, saying why, where the 2.9.0 agent is not available. */
    public static void assumeAvailable() {
        Path h = home();
        String reason = null;
        if (h == null) {
            reason = HOME_ENV + " (or -D" + HOME_PROPERTY + ") is not set; .ci/run unpacks Netdata 2.9.0 and sets it";
        } else if (!Files.isExecutable(h.resolve("usr/sbin/netdata"))) {
            reason = h.resolve("usr/sbin/netdata") + " is not an executable";
        }
        if (reason != null) {
            System.out.println("SKIPPED: the tests against the real Netdata 2.9.0 need it: " + reason);
        }
        Assumptions.assumeTrue(reason == null, reason);
    }

    /** A child collecting this machine (proc and friends) and streaming to {@code destination}. */
    public static RealNetdata2 child(Path base, String hostname, int webPort, String destination, boolean compression)
            throws IOException {
        RealNetdata2 n = new RealNetdata2(home(), base, hostname, webPort);
        n.writeNetdataConf();
        Files.writeString(base.resolve("etc/stream.conf"), "[stream]\n"
                + "\tenabled = yes\n"
                + "\tdestination = " + destination + "\n"
                + "\tapi key = " + RealNetdata.API_KEY + "\n"
                + "\ttimeout = 60s\n"
                + "\treconnect delay = 2s\n"
                + "\tenable compression = " + (compression ? "yes" : "no") + "\n");
        return n;
    }

    /** A parent accepting {@link RealNetdata#API_KEY} with dbengine and replication. */
    public static RealNetdata2 parent(Path base, String hostname, int webPort, boolean compression) throws IOException {
        return parent(base, hostname, webPort, compression, null);
    }

    /**
     * As {@link #parent(Path, String, int, boolean)}; {@code proxyDestination} non-null: it forwards
     * every host it receives there (with the same API key), as a parent of a cluster does.
     */
    public static RealNetdata2 parent(Path base, String hostname, int webPort, boolean compression,
                                      String proxyDestination) throws IOException {
        RealNetdata2 n = new RealNetdata2(home(), base, hostname, webPort);
        n.writeNetdataConf();
        Files.writeString(base.resolve("etc/stream.conf"), "[stream]\n"
                + "\tenabled = no\n\n"
                + "[" + RealNetdata.API_KEY + "]\n"
                + "\tenabled = yes\n"
                + "\tallow from = *\n"
                + "\tdb = dbengine\n"
                + "\thealth enabled = no\n"
                + "\tenable compression = " + (compression ? "yes" : "no") + "\n"
                + "\tenable replication = yes\n"
                + "\treplication period = 1d\n"
                + "\treplication step = 10m\n"
                + (proxyDestination == null ? "" : "\tproxy enabled = yes\n"
                + "\tproxy destination = " + proxyDestination + "\n"
                + "\tproxy api key = " + RealNetdata.API_KEY + "\n"));
        return n;
    }

    private void writeNetdataConf() throws IOException {
        Path base = base();
        for (String d : new String[]{"etc", "cache", "lib", "log", "run", "lib/registry", "web"}) {
            Files.createDirectories(base.resolve(d));
        }
        Files.writeString(base.resolve("etc/.opt-out-from-anonymous-statistics"), "");
        Files.writeString(base.resolve("etc/cloud.conf"), "[global]\n\tenabled = no\n");
        String conf = "[global]\n"
                + "\trun as user = " + System.getProperty("user.name") + "\n"
                + "\thostname = " + hostname() + "\n"
                + "[directories]\n"
                + "\tconfig = " + base.resolve("etc") + "\n"
                + "\tstock config = " + home.resolve("usr/lib/netdata/conf.d") + "\n"
                + "\tlog = " + base.resolve("log") + "\n"
                + "\tcache = " + base.resolve("cache") + "\n"
                + "\tlib = " + base.resolve("lib") + "\n"
                + "\thome = " + base.resolve("lib") + "\n"
                + "\trun = " + base.resolve("run") + "\n"
                + "\tregistry = " + base.resolve("lib/registry") + "\n"
                + "\tplugins = \"" + home.resolve("usr/libexec/netdata/plugins.d") + "\"\n"
                // built without a dashboard: an empty directory stands for it
                + "\tweb = " + base.resolve("web") + "\n"
                + "[logs]\n"
                + "\tdaemon = " + base.resolve("log/daemon.log") + "\n"
                + "\tcollector = " + base.resolve("log/collector.log") + "\n"
                + "\taccess = off\n"
                + "\thealth = off\n"
                + "\taclk = off\n"
                + "\tlevel = info\n"
                + "[db]\n"
                + "\tmode = dbengine\n"
                + "\tupdate every = 1s\n"
                + "\tstorage tiers = 1\n"
                + "[web]\n"
                + "\tbind to = 127.0.0.1:" + webPort() + "\n"
                + "[registry]\n\tenabled = no\n"
                + "[health]\n\tenabled = no\n"
                + "[ml]\n\tenabled = no\n"
                + "[statsd]\n\tenabled = no\n"
                + "[plugins]\n"
                + "\tenable running new plugins = no\n"
                + "\tproc = yes\n"
                + "\tdiskspace = yes\n"
                + "\tidlejitter = yes\n"
                + "\tstatsd = no\n"
                + "[host labels]\n\ttestlabel = hello world\n";
        Files.writeString(base.resolve("etc/netdata.conf"), conf);
    }

    @Override
    protected Path executable() {
        return home.resolve("usr/sbin/netdata");
    }

    @Override
    protected String label() {
        return "netdata 2.9.0";
    }

    @Override
    protected Duration startupLimit() {
        return Duration.ofSeconds(60);
    }

    @Override
    protected Duration stopLimit() {
        return Duration.ofSeconds(20);
    }

    /** Its daemon log and what it printed. */
    @Override
    protected List<Path> logFiles() {
        return List.of(base().resolve("log/daemon.log"), base().resolve("stdout.log"));
    }
}
