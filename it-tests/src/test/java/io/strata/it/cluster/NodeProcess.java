package io.strata.it.cluster;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A Strata node in its own JVM ({@code StrataMain node --config DIR}), as a user runs it: killable
 * with SIGKILL at any moment, its log in {@code DIR/node.log}.
 */
final class NodeProcess implements AutoCloseable, ClusterApi.Fetcher {

    final String name;
    final Path dir;
    final int port;
    private Process process;
    private int starts;
    private String heap = "-Xmx256m";
    /** Set when the node runs inside a network namespace of a {@link NetnsLab}. */
    private NetnsLab lab;
    private String namespace;
    private String address = "127.0.0.1";
    private String clientNamespace;
    /** Words run before the JVM's (e.g. {@code unshare -m ...}), which end by exec-ing it. */
    private List<String> wrapper = List.of();

    NodeProcess(String name, Path dir, int port) {
        this.name = name;
        this.dir = dir;
        this.port = port;
    }

    /** The maximum heap of the JVM, e.g. {@code -Xmx1g}. */
    NodeProcess heap(String xmx) {
        this.heap = xmx;
        return this;
    }

    /**
     * Runs the node inside {@code ns} (its address {@code address}); the test reaches its API from
     * inside {@code clientNs}.
     */
    NodeProcess inNamespace(NetnsLab lab, String ns, String address, String clientNs) {
        this.lab = lab;
        this.namespace = ns;
        this.address = address;
        this.clientNamespace = clientNs;
        return this;
    }

    /**
     * Runs the JVM through {@code command}, which must exec the words that follow it (so that the
     * process is the JVM's, for {@link #pid()} and SIGKILL).
     */
    NodeProcess wrappedIn(List<String> command) {
        this.wrapper = List.copyOf(command);
        return this;
    }

    /** The running process's id; -1 before the start. */
    long pid() {
        return process == null ? -1 : process.pid();
    }

    @Override
    public String fetch(String path) throws IOException, InterruptedException {
        if (lab != null) {
            return lab.get(clientNamespace, url() + path);
        }
        return ClusterApi.http(url()).fetch(path);
    }

    /** Starts the JVM and waits until its port accepts connections. */
    NodeProcess start() throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        if (namespace != null) {
            cmd.addAll(List.of("ip", "netns", "exec", namespace));
        }
        cmd.addAll(wrapper);
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            // the module flags Chronicle needs, as the test JVM got them from the build
            if (a.startsWith("--add-") || a.startsWith("--enable-native-access") || a.startsWith("-Dchronicle.")
                    || a.startsWith("--sun-misc-unsafe")) {
                cmd.add(a);
            }
        }
        cmd.add(heap);
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add("io.strata.node.cli.StrataMain");
        cmd.add("node");
        cmd.add("--config");
        cmd.add(dir.toString());
        starts++;
        Path log = dir.resolve("node.log");
        Files.writeString(log, "---- start " + starts + "\n", StandardCharsets.UTF_8,
                java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
        process = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited with " + process.exitValue() + ": " + tail(40));
            }
            if (namespace != null) {
                // the root namespace cannot (and must not) reach the test network: read the log
                if (log().lastIndexOf("listening on") > log().lastIndexOf("---- start")) {
                    return this;
                }
                Thread.sleep(100);
                continue;
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return this;
            } catch (IOException notYet) {
                Thread.sleep(100);
            }
        }
        throw new IllegalStateException(name + " did not open port " + port + " in 60 s: " + tail(40));
    }

    /** SIGKILL: no shutdown hook, no flush, nothing closed. */
    void kill9() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }

    /** SIGTERM, then SIGKILL after 30 s. */
    void stop() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    boolean alive() {
        return process != null && process.isAlive();
    }

    String log() throws IOException {
        Path log = dir.resolve("node.log");
        return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
    }

    String tail(int lines) {
        try {
            List<String> all = Files.readAllLines(dir.resolve("node.log"), StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** Waits until the log (after {@code fromChar}) contains {@code text}; returns the index of the match or -1. */
    int waitForLog(String text, int fromChar, Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            String l = log();
            int i = l.indexOf(text, Math.min(fromChar, l.length()));
            if (i >= 0) {
                return i;
            }
            Thread.sleep(50);
        }
        return -1;
    }

    String url() {
        return "http://" + address + ":" + port;
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }

    @Override
    public String toString() {
        return name + "@" + port;
    }
}
