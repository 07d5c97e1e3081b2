package io.strata.it.netdata;

import io.strata.node.netdata.NetdataAgentConfig;
import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A real Netdata 1.37.1 ({@code /usr/sbin/netdata} of Debian's netdata-core) run on 127.0.0.1 as a
 * child or a parent, the way {@code docs/protocol/netdata-peer.md} describes: its configuration is
 * the node's {@link NetdataAgentConfig} (own directories and ports, no statsd/registry/health/ML, a
 * {@code system-info.sh} of ours), with a host label the tests look for. Always bounded by
 * {@code timeout}.
 */
public final class RealNetdata extends NetdataProcess {

    public static final Path BINARY = NetdataAgentConfig.BINARY;
    public static final String API_KEY = "11111111-2222-3333-4444-555555555555";
    /** Seconds a sender waits on a silent parent before it leaves it. */
    private static final int TIMEOUT_SECONDS = 60;
    private static final String HOST_LABELS = "[host labels]\n\ttestlabel = hello world\n";

    private RealNetdata(Path base, String hostname, int webPort) {
        super(base, hostname, webPort);
    }

    private static NetdataAgentConfig config(Path base, String hostname, int webPort) {
        return new NetdataAgentConfig(base, hostname, "127.0.0.1", webPort);
    }

    /** Skips the calling test, saying why, where Netdata is not installed. */
    public static void assumeInstalled() {
        boolean ok = NetdataAgentConfig.installed();
        if (!ok) {
            System.out.println("SKIPPED: " + BINARY + " is not installed (apt-get install -y netdata-core); "
                    + "the tests against the real Netdata 1.37.1 need it");
        }
        Assumptions.assumeTrue(ok, BINARY + " is not installed (apt-get install -y netdata-core)");
    }

    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** A child collecting this machine (proc, diskspace, idlejitter) and streaming to {@code destination}. */
    public static RealNetdata child(Path base, String hostname, int webPort, String destination, boolean compression)
            throws IOException {
        return child(base, hostname, webPort, destination, compression, "");
    }

    /**
     * A child as {@link #child}, with {@code extraConf} appended to its netdata.conf (e.g. a
     * collector's {@code update every}).
     */
    public static RealNetdata child(Path base, String hostname, int webPort, String destination, boolean compression,
                                    String extraConf) throws IOException {
        NetdataAgentConfig c = config(base, hostname, webPort)
                .sendTo(List.of(destination), API_KEY, TIMEOUT_SECONDS, compression, true);
        return written(c, base, hostname, webPort, extraConf);
    }

    /**
     * A parent with {@code tiers} storage tiers accepting {@link #API_KEY} and forwarding
     * everything it holds (its own host and its children) to {@code destination}.
     */
    public static RealNetdata forwardingParent(Path base, String hostname, int webPort, int tiers, String destination)
            throws IOException {
        NetdataAgentConfig c = config(base, hostname, webPort).tiers(tiers)
                .sendTo(List.of(destination), API_KEY, TIMEOUT_SECONDS, true, false)
                .accept(API_KEY, true);
        return written(c, base, hostname, webPort, "");
    }

    /** A parent accepting {@link #API_KEY} with dbengine and replication. */
    public static RealNetdata parent(Path base, String hostname, int webPort, boolean compression) throws IOException {
        return written(config(base, hostname, webPort).accept(API_KEY, compression), base, hostname, webPort, "");
    }

    private static RealNetdata written(NetdataAgentConfig c, Path base, String hostname, int webPort, String extraConf)
            throws IOException {
        c.appendNetdataConf(HOST_LABELS).appendNetdataConf(extraConf).write();
        return new RealNetdata(base, hostname, webPort);
    }

    @Override
    protected Path executable() {
        return BINARY;
    }

    @Override
    protected String label() {
        return "netdata";
    }

    @Override
    protected Duration startupLimit() {
        return Duration.ofSeconds(30);
    }

    @Override
    protected Duration stopLimit() {
        return Duration.ofSeconds(15); // netdata stops cleanly in 1-3 s
    }

    /** A 1.37.1 agent logs everything, INFO lines too, to its error log. */
    @Override
    protected List<Path> logFiles() {
        return List.of(base().resolve("log/error.log"));
    }

    /** Its error log (INFO lines go there too). */
    public String errorLog() throws IOException {
        return log();
    }
}
