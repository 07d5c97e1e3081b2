package io.strata.it.netdata;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

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
 * A real Netdata agent run by a test on 127.0.0.1 from a configuration written under its base
 * directory: started in the foreground under {@code timeout} (so that it never outlives the run),
 * waited for until its web port answers, asked over HTTP, its logs read, and stopped with every
 * plugin it started. What differs between agent versions (the executable, the configuration, the
 * log files, how long it takes to start) is said by the subclass.
 */
public abstract class NetdataProcess implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path base;
    private final String hostname;
    private final int webPort;
    private Process process;

    protected NetdataProcess(Path base, String hostname, int webPort) {
        this.base = base;
        this.hostname = hostname;
        this.webPort = webPort;
    }

    /** The agent's executable. */
    protected abstract Path executable();

    /** Its netdata.conf (written by the subclass before {@link #start}). */
    protected Path netdataConf() {
        return base.resolve("etc/netdata.conf");
    }

    /** How it is named in failures ("netdata", "netdata 2.9.0"). */
    protected abstract String label();

    /** Longest it may take from its start until its web port answers. */
    protected abstract Duration startupLimit();

    /** Longest it may take to stop after SIGTERM before it is killed. */
    protected abstract Duration stopLimit();

    /** The files whose text is its log ({@link #log}), in that order. */
    protected abstract List<Path> logFiles();

    /** Starts it (foreground, bounded by {@code timeout}); waits until its web port answers. */
    public void start(Duration limit) throws IOException, InterruptedException {
        process = new ProcessBuilder("timeout", String.valueOf(limit.toSeconds()), executable().toString(), "-D", "-c",
                netdataConf().toString())
                .redirectErrorStream(true)
                .redirectOutput(base.resolve("stdout.log").toFile())
                .start();
        long deadline = System.nanoTime() + startupLimit().toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException(label() + " " + hostname + " exited with " + process.exitValue() + ": "
                        + logTails());
            }
            try {
                get("/api/v1/info");
                return;
            } catch (IOException notYet) {
                Thread.sleep(200);
            }
        }
        throw new IOException(label() + " " + hostname + " did not answer on port " + webPort + " within "
                + startupLimit().toSeconds() + " s: " + logTails());
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

    /** Everything it logged so far. */
    public String log() throws IOException {
        StringBuilder s = new StringBuilder();
        for (Path p : logFiles()) {
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
        process.destroy(); // timeout forwards SIGTERM; netdata stops cleanly in a few seconds
        if (!process.waitFor(stopLimit().toSeconds(), TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(5, TimeUnit.SECONDS);
        }
        for (ProcessHandle h : started) {
            if (h.isAlive()) {
                h.destroyForcibly();
            }
        }
    }

    /** The ends of what it printed and of its log, for a failure's message. */
    private String logTails() {
        StringBuilder s = new StringBuilder(tail(base.resolve("stdout.log")));
        for (Path p : logFiles()) {
            if (!p.getFileName().toString().equals("stdout.log")) {
                s.append(tail(p));
            }
        }
        return s.toString();
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
