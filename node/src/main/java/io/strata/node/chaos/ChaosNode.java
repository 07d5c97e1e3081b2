package io.strata.node.chaos;

import io.strata.node.netdata.NetdataAgentConfig;

import io.strata.node.runtime.CollectionClock;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * One node of the chaos cluster in a process of its own: a Strata node ({@code strata node --config
 * DIR}, with the JVM command line of the process running the chaos), the Micrometer application
 * ({@link MicrometerChaosChild}, the same JVM command line) or a real Netdata 1.37.1 child. On 127.0.0.1, or inside a network namespace of a {@link ChaosNetwork}. Its output goes to
 * {@code DIR/node.log}.
 */
final class ChaosNode {

    enum Kind { PARENT, CHILD, MICROMETER_CHILD, NETDATA_CHILD }

    /** Made at the first request (its selector thread and descriptors), not when a node is described. */
    private static final class Http {
        static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    }

    final String name;
    final Kind kind;
    final Path dir;
    /** The address the node binds and the others reach it at. */
    final String address;
    final int port;
    /** The network namespace the node runs in, or null (127.0.0.1). */
    final String namespace;
    private final List<String> javaCommand;
    private final Duration netdataLimit;
    private Process process;
    private int starts;
    private long clockOffsetSeconds;
    private boolean frozen;

    ChaosNode(String name, Kind kind, Path dir, String address, int port, String namespace, List<String> javaCommand,
              Duration netdataLimit) {
        this.name = name;
        this.kind = kind;
        this.dir = dir;
        this.address = address;
        this.port = port;
        this.namespace = namespace;
        this.javaCommand = javaCommand;
        this.netdataLimit = netdataLimit;
    }

    boolean isParent() {
        return kind == Kind.PARENT;
    }

    int starts() {
        return starts;
    }

    long clockOffsetSeconds() {
        return clockOffsetSeconds;
    }

    /**
     * Starts the process (without waiting for its port: {@link #awaitUp}); {@code clockOffsetSeconds}
     * shifts a Strata node's collection clock ({@link CollectionClock}).
     */
    synchronized void start(long clockOffsetSeconds) throws IOException {
        if (alive()) {
            throw new IllegalStateException(name + " is already running");
        }
        List<String> cmd = new ArrayList<>();
        if (namespace != null) {
            cmd.addAll(List.of("ip", "netns", "exec", namespace));
        }
        if (kind == Kind.NETDATA_CHILD) {
            // bounded like every process of the run: timeout ends netdata if the runner dies
            cmd.addAll(List.of("timeout", String.valueOf(netdataLimit.toSeconds()), NetdataAgentConfig.BINARY.toString(),
                    "-D", "-c", dir.resolve("etc/netdata.conf").toString()));
        } else {
            cmd.addAll(javaCommand.subList(0, 1));
            if (clockOffsetSeconds != 0) {
                cmd.add("-D" + CollectionClock.OFFSET_PROPERTY + "=" + clockOffsetSeconds);
            }
            if (kind == Kind.MICROMETER_CHILD) {
                // the same JVM and class path, the application's main class instead of StrataMain
                cmd.addAll(javaCommand.subList(1, javaCommand.size() - 1));
                cmd.addAll(List.of(MicrometerChaosChild.class.getName(), dir.toString(), name, address,
                        String.valueOf(port)));
            } else {
                cmd.addAll(javaCommand.subList(1, javaCommand.size()));
                cmd.addAll(List.of("node", "--config", dir.toString()));
            }
        }
        this.clockOffsetSeconds = clockOffsetSeconds;
        starts++;
        frozen = false;
        Path log = log();
        Files.writeString(log, "---- chaos: start " + starts + (clockOffsetSeconds != 0 ? " with the clock shifted by "
                        + clockOffsetSeconds + " s" : "") + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        process = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    }

    /** Until the node's port accepts connections (true), it exits, or the time is up (false). */
    boolean awaitUp(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            Process p = process;
            if (p == null || !p.isAlive()) {
                return false;
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(address, port), 500);
                return true;
            } catch (IOException notYet) {
                Thread.sleep(200);
            }
        }
        return false;
    }

    /**
     * How long {@link #kill9} waits for the killed processes to be gone. A SIGKILL is final, but
     * the kernel frees a process's memory before it ends, and on a machine at load 130 that took
     * more than 30 s: a restart must not find the old process still there.
     */
    static final Duration KILL_WAIT = Duration.ofSeconds(180);

    /**
     * SIGKILL: nothing flushed, nothing closed. A frozen process dies as well. Returns once the
     * process and its descendants are gone (reaped), so that a {@link #start} may follow.
     *
     * @throws IllegalStateException when one of them is still there {@link #KILL_WAIT} after the signal
     */
    synchronized void kill9() throws InterruptedException {
        if (process != null && process.isAlive()) {
            // the process tree: netdata runs under timeout, a Strata node is the process itself
            List<ProcessHandle> tree = process.descendants().toList();
            process.destroyForcibly();
            for (ProcessHandle h : tree) {
                h.destroyForcibly();
            }
            awaitGone(name, process, tree, KILL_WAIT);
        }
        frozen = false;
    }

    /**
     * Waits until the node's own process has ended (reaped: {@link Process#isAlive} says so) and
     * each of its {@code descendants} has ended (an orphan by then: a zombie counts as ended, its
     * memory and sockets are gone and its reaping is init's), at most {@code bound} in all.
     *
     * @throws IllegalStateException naming the processes still there (and their state) when the bound is over
     */
    static void awaitGone(String name, Process own, List<ProcessHandle> descendants, Duration bound)
            throws InterruptedException {
        long deadline = System.nanoTime() + bound.toNanos();
        List<String> left = new ArrayList<>();
        while (own.isAlive()) {
            long rest = deadline - System.nanoTime();
            if (rest <= 0) {
                left.add(own.pid() + " (" + procState(own.pid()) + ")");
                break;
            }
            own.waitFor(rest, TimeUnit.NANOSECONDS);
        }
        for (ProcessHandle h : descendants) {
            while (h.isAlive() && !procState(h.pid()).startsWith("Z")) {
                long rest = deadline - System.nanoTime();
                if (rest <= 0) {
                    left.add(h.pid() + " (" + procState(h.pid()) + ")");
                    break;
                }
                try {
                    // a second at a time: a descendant's onExit never completes while it is a zombie
                    h.onExit().get(Math.min(rest, TimeUnit.SECONDS.toNanos(1)), TimeUnit.NANOSECONDS);
                } catch (TimeoutException stillThere) {
                    // look again
                } catch (ExecutionException e) {
                    throw new IllegalStateException(name + ": cannot wait for process " + h.pid(), e.getCause());
                }
            }
        }
        if (!left.isEmpty()) {
            throw new IllegalStateException(name + ": process " + String.join(", ", left) + " still there "
                    + bound.toSeconds() + " s after it was signalled to end");
        }
    }

    /** The {@code State:} line of /proc/PID/status (R, S, D, Z, T...), or why it cannot be read. */
    static String procState(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid), "status"))) {
                if (line.startsWith("State:")) {
                    return line.substring("State:".length()).trim();
                }
            }
            return "no State line";
        } catch (IOException e) {
            return "no /proc entry: " + e.getMessage();
        }
    }

    /** SIGTERM (a clean stop), SIGKILL after 30 s; returns once it is gone, as {@link #kill9}. A frozen node is thawed first. */
    synchronized void stop() throws InterruptedException {
        if (process != null && process.isAlive()) {
            if (frozen) {
                try {
                    thaw();
                } catch (IOException e) {
                    // SIGKILL below reaches a stopped process too
                }
            }
            List<ProcessHandle> tree = process.descendants().toList();
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
            for (ProcessHandle h : tree) {
                if (h.isAlive()) {
                    h.destroyForcibly();
                }
            }
            awaitGone(name, process, tree, KILL_WAIT);
        }
        frozen = false;
    }

    /** SIGSTOP: the process stays, its sockets open, and answers nothing. */
    synchronized void freeze() throws IOException {
        signal("STOP");
        frozen = true;
    }

    /** SIGCONT. */
    synchronized void thaw() throws IOException {
        signal("CONT");
        frozen = false;
    }

    private void signal(String sig) throws IOException {
        if (process == null || !process.isAlive()) {
            throw new IOException(name + " is not running: cannot send SIG" + sig);
        }
        Cmd.run("kill", "-" + sig, String.valueOf(mainPid()));
    }

    boolean alive() {
        return process != null && process.isAlive();
    }

    /** The process whose memory and descriptors are the node's: netdata itself under timeout. */
    long mainPid() {
        if (process == null) {
            return -1;
        }
        if (kind == Kind.NETDATA_CHILD) {
            return process.children().findFirst().map(ProcessHandle::pid).orElse(process.pid());
        }
        return process.pid();
    }

    /** RSS in bytes and open file descriptors of the node's process, from /proc; -1 when it is not running. */
    long[] resources() {
        long pid = mainPid();
        if (pid < 0 || !alive()) {
            return new long[]{-1, -1};
        }
        long rss = -1;
        long fds = -1;
        try {
            for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    rss = Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
            try (Stream<Path> s = Files.list(Path.of("/proc", String.valueOf(pid), "fd"))) {
                fds = s.count();
            }
        } catch (IOException | RuntimeException e) {
            // the process ended meanwhile
        }
        return new long[]{rss, fds};
    }

    /** GET of a path of the node's API; the body of a 200, else an IOException. */
    String fetch(String path) throws IOException, InterruptedException {
        HttpResponse<String> r = Http.CLIENT.send(HttpRequest.newBuilder(URI.create("http://" + address + ":" + port + path))
                .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException(name + " answered " + path + " with " + r.statusCode() + ": " + r.body());
        }
        return r.body();
    }

    Path log() {
        return kind == Kind.NETDATA_CHILD ? dir.resolve("stdout.log") : dir.resolve("node.log");
    }

    /** The last lines of the node's log. */
    String tail(int lines) {
        try {
            List<String> all = Files.readAllLines(log(), StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    String endpoint() {
        return address + ":" + port;
    }

    @Override
    public String toString() {
        return name + "@" + endpoint();
    }
}
