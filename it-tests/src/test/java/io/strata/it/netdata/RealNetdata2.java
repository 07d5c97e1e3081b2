package io.strata.it.netdata;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real Netdata 2.9.0 (the prebuilt agent {@code .ci/run} unpacks; found through the environment
 * variable {@code STRATA_NETDATA2_HOME} or the system property {@code strata.netdata2.home}) run on
 * 127.0.0.1 as a child or a parent: every directory under its own scratch dir, the web port given,
 * no health/ML/registry/statsd, no cloud, only the internal collectors (proc and friends). Always
 * bounded by {@code timeout}.
 */
public final class RealNetdata2 implements AutoCloseable {

    public static final String HOME_ENV = "STRATA_NETDATA2_HOME";
    public static final String HOME_PROPERTY = "strata.netdata2.home";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path home;
    private final Path base;
    private final String hostname;
    private final int webPort;
    private Process process;

    private RealNetdata2(Path home, Path base, String hostname, int webPort) {
        this.home = home;
        this.base = base;
        this.hostname = hostname;
        this.webPort = webPort;
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
                + "\treplication step = 10m\n");
        return n;
    }

    private void writeNetdataConf() throws IOException {
        for (String d : new String[]{"etc", "cache", "lib", "log", "run", "lib/registry", "web"}) {
            Files.createDirectories(base.resolve(d));
        }
        Files.writeString(base.resolve("etc/.opt-out-from-anonymous-statistics"), "");
        Files.writeString(base.resolve("etc/cloud.conf"), "[global]\n\tenabled = no\n");
        String conf = "[global]\n"
                + "\trun as user = " + System.getProperty("user.name") + "\n"
                + "\thostname = " + hostname + "\n"
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
                + "\tbind to = 127.0.0.1:" + webPort + "\n"
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

    /** Starts it (foreground, bounded by {@code timeout}); waits until its web port answers. */
    public void start(Duration limit) throws IOException, InterruptedException {
        process = new ProcessBuilder("timeout", String.valueOf(limit.toSeconds()),
                home.resolve("usr/sbin/netdata").toString(), "-D", "-c", base.resolve("etc/netdata.conf").toString())
                .redirectErrorStream(true)
                .redirectOutput(base.resolve("stdout.log").toFile())
                .start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException("netdata 2.9.0 " + hostname + " exited with " + process.exitValue() + ": "
                        + tail(base.resolve("stdout.log")) + tail(base.resolve("log/daemon.log")));
            }
            try {
                get("/api/v1/info");
                return;
            } catch (IOException notYet) {
                Thread.sleep(250);
            }
        }
        throw new IOException("netdata 2.9.0 " + hostname + " did not answer on port " + webPort + " within 60 s: "
                + tail(base.resolve("stdout.log")) + tail(base.resolve("log/daemon.log")));
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

    /** Everything it logged: its daemon log and what it printed. */
    public String log() throws IOException {
        StringBuilder s = new StringBuilder();
        for (Path p : List.of(base.resolve("log/daemon.log"), base.resolve("stdout.log"))) {
            if (Files.exists(p)) {
                s.append(Files.readString(p));
            }
        }
        return s.toString();
    }

    /** Waits until its log contains {@code needle}. */
    public boolean waitForLog(String needle, Duration limit) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (System.nanoTime() < deadline) {
            if (log().contains(needle)) {
                return true;
            }
            Thread.sleep(250);
        }
        return false;
    }

    /** The lines of its log that contain {@code needle}. */
    public List<String> logLines(String needle) throws IOException {
        try (Stream<String> lines = log().lines()) {
            return lines.filter(l -> l.contains(needle)).toList();
        }
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
        List<ProcessHandle> started = process.descendants().toList();
        process.destroy(); // timeout forwards SIGTERM
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
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
