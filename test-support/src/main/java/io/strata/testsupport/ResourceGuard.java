package io.strata.testsupport;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The leak guard every module's tests run under (registered by the JUnit platform's extension
 * auto-detection, switched on in the root pom's surefire configuration). A test fails when, after
 * it, the process holds more than before it of:
 *
 * <ul>
 * <li>off-heap memory that the probes count (by default {@code PageMemory.liveSlabBytes()}: the
 *     engine's hot-page slabs);</li>
 * <li>open file descriptors ({@code /proc/self/fd}; jars and shared libraries the class loader
 *     opened on first use, and the C library's unnamed Unix socket to the name service, are not
 *     counted);</li>
 * <li>live non-daemon threads it started;</li>
 * <li>Netty leak reports (the surefire configuration runs Netty at the paranoid level): every
 *     report that appears during the test, after a garbage collection.</li>
 * </ul>
 *
 * <p>Threads and descriptors are given a bounded time to go (an event loop shut down gracefully
 * ends a moment after its test). Resources made in {@code @BeforeAll} are checked after the class:
 * the baseline of the class is taken before it. A class whose tests hand resources on to each
 * other says so with {@link GuardPerClass}; then only the class is checked.
 *
 * <p>Configuration parameters (junit-platform.properties or surefire's
 * {@code configurationParameters}): {@code strata.guard.enabled} (true),
 * {@code strata.guard.offheap} (comma-separated {@code class#staticMethod} probes returning
 * live bytes), {@code strata.guard.settle.millis} (10000), {@code strata.guard.ignore.fd} (a regular
 * expression of descriptor targets a module's tests may leave open, with its reason beside it).
 */
public final class ResourceGuard implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback,
        AfterEachCallback {

    private static final String OFF_HEAP = "off-heap memory not freed: ";
    static final String DEFAULT_OFFHEAP = "io.strata.engine.page.PageMemory#liveSlabBytes";
    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(ResourceGuard.class);
    private static final boolean NETTY = present("io.netty.util.ResourceLeakDetectorFactory");

    static {
        if (NETTY) {
            NettyLeaks.install();
        }
    }

    /** What the process holds at one moment. */
    record Snapshot(Map<String, Long> offHeap, Map<String, String> fds, Set<Thread> threads) {
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        if (enabled(context)) {
            drainNetty();
            context.getStore(NS).put("class", snapshot(context));
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        Snapshot before = context.getStore(NS).remove("class", Snapshot.class);
        if (before != null) {
            check(context, before, "after the class " + context.getDisplayName());
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        if (enabled(context) && !perClass(context)) {
            context.getStore(NS).put("test", snapshot(context));
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        Snapshot before = context.getStore(NS).remove("test", Snapshot.class);
        if (before != null) {
            check(context, before, "after the test " + context.getDisplayName());
        }
    }

    private static boolean enabled(ExtensionContext context) {
        return context.getConfigurationParameter("strata.guard.enabled").map(Boolean::parseBoolean).orElse(true);
    }

    private static boolean perClass(ExtensionContext context) {
        return context.getTestClass().map(c -> c.isAnnotationPresent(GuardPerClass.class)).orElse(false);
    }

    private static void check(ExtensionContext context, Snapshot before, String when) {
        long settleMillis = context.getConfigurationParameter("strata.guard.settle.millis").map(Long::parseLong)
                .orElse(10_000L);
        long deadline = System.nanoTime() + settleMillis * 1_000_000L;
        List<String> problems = new ArrayList<>(drainNetty());
        List<String> held;
        long nextCollection = System.nanoTime() + 1_000_000_000L;
        while (true) {
            held = held(before, snapshot(context));
            // memory alone, with no thread or descriptor still on its way out, is not going to change
            boolean settling = held.stream().anyMatch(h -> !h.startsWith(OFF_HEAP));
            if (!settling || System.nanoTime() >= deadline) {
                break;
            }
            if (System.nanoTime() >= nextCollection) {
                // what closes when it is garbage (a JDK HttpClient's selector and connections, before
                // Java 21 the only way one ends) goes at a collection
                System.gc();
                nextCollection = System.nanoTime() + 1_000_000_000L;
            }
            try {
                Thread.sleep(20); // a bounded wait for threads and descriptors that are on their way out
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        problems.addAll(held);
        if (!problems.isEmpty()) {
            throw new AssertionError("resource guard, " + when + ":\n  " + String.join("\n  ", problems));
        }
    }

    private static List<String> drainNetty() {
        return NETTY ? NettyLeaks.collect() : List.of();
    }

    /** What {@code after} holds that {@code before} did not: one line each. */
    static List<String> held(Snapshot before, Snapshot after) {
        List<String> out = new ArrayList<>();
        for (Map.Entry<String, Long> e : after.offHeap.entrySet()) {
            long was = before.offHeap.getOrDefault(e.getKey(), 0L);
            if (e.getValue() > was) {
                out.add(OFF_HEAP + (e.getValue() - was) + " bytes more in " + e.getKey()
                        + " (" + was + " before, " + e.getValue() + " after)");
            }
        }
        for (Map.Entry<String, String> e : after.fds.entrySet()) {
            if (!e.getValue().equals(before.fds.get(e.getKey()))) {
                out.add("file descriptor left open: " + e.getKey() + " -> " + e.getValue() + describeSocket(e.getValue()));
            }
        }
        for (Thread t : after.threads) {
            if (!before.threads.contains(t)) {
                StackTraceElement[] stack = t.getStackTrace();
                out.add("non-daemon thread still running: '" + t.getName() + "' (" + t.getState() + ")"
                        + (stack.length > 0 ? " at " + stack[0] : ""));
            }
        }
        return out;
    }

    static Snapshot snapshot(ExtensionContext context) {
        String probes = context.getConfigurationParameter("strata.guard.offheap").orElse(DEFAULT_OFFHEAP);
        Pattern ignoredFds = context.getConfigurationParameter("strata.guard.ignore.fd").map(Pattern::compile)
                .orElse(null);
        return new Snapshot(offHeap(probes), openFiles(ignoredFds), nonDaemonThreads());
    }

    private static final Map<String, Method> PROBES = Collections.synchronizedMap(new HashMap<>());

    static Map<String, Long> offHeap(String probes) {
        Map<String, Long> out = new LinkedHashMap<>();
        for (String probe : probes.split(",")) {
            String p = probe.trim();
            if (p.isEmpty()) {
                continue;
            }
            Method m = PROBES.computeIfAbsent(p, ResourceGuard::resolve);
            if (m == null) {
                continue; // the module under test does not have the class: nothing of it to leak
            }
            try {
                out.put(p, ((Number) m.invoke(null)).longValue());
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("off-heap probe " + p + " failed", e);
            }
        }
        return out;
    }

    private static Method resolve(String probe) {
        int hash = probe.indexOf('#');
        if (hash < 0) {
            throw new IllegalArgumentException("an off-heap probe is class#staticMethod, got " + probe);
        }
        try {
            Class<?> c = Class.forName(probe.substring(0, hash), true, Thread.currentThread().getContextClassLoader());
            Method m = c.getMethod(probe.substring(hash + 1));
            m.setAccessible(true);
            return m;
        } catch (ClassNotFoundException e) {
            return null;
        } catch (NoSuchMethodException e) {
            throw new IllegalArgumentException("off-heap probe " + probe + ": no such public static method", e);
        }
    }

    /** Open descriptors and what they point at, but not the jars and libraries class loading opened. */
    static Map<String, String> openFiles(Pattern ignoredTargets) {
        Path dir = Path.of("/proc/self/fd");
        if (!Files.isDirectory(dir)) {
            return Map.of();
        }
        Map<String, String> out = new HashMap<>();
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(dir)) {
            for (Path fd : fds) {
                String target;
                try {
                    target = Files.readSymbolicLink(fd).toString();
                } catch (IOException e) {
                    continue; // closed meanwhile (the stream's own descriptor, among others)
                }
                if (!ignored(target) && !describeSocket(target).equals(UNNAMED_UNIX)
                        && (ignoredTargets == null || !ignoredTargets.matcher(target).matches())) {
                    out.put(fd.getFileName().toString(), target);
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot list /proc/self/fd", e);
        }
        return out;
    }

    private static boolean ignored(String target) {
        return target.endsWith(".jar") || target.endsWith(".so") || target.contains(".so.")
                || target.endsWith("/lib/modules") || target.startsWith("/proc/") || target.equals("/dev/random")
                || target.equals("/dev/urandom");
    }

    /**
     * An unnamed Unix socket: the C library's connection to the name service (user and host
     * lookups), opened once on first use and kept, like the jars; Strata opens no Unix sockets.
     */
    private static final String UNNAMED_UNIX = " (unix unnamed)";

    /** For {@code socket:[inode]}: the kind and address of the socket, from /proc/self/net. */
    static String describeSocket(String target) {
        if (!target.startsWith("socket:[")) {
            return "";
        }
        String inode = target.substring("socket:[".length(), target.length() - 1);
        for (String table : List.of("tcp", "tcp6", "udp", "udp6", "unix")) {
            try {
                for (String line : Files.readAllLines(Path.of("/proc/self/net/" + table))) {
                    String[] f = line.trim().split("\\s+");
                    if (table.equals("unix") ? f.length > 6 && f[6].equals(inode) : f.length > 9 && f[9].equals(inode)) {
                        return " (" + table + (table.equals("unix") ? (f.length > 7 ? " " + f[7] : " unnamed")
                                : " local " + f[1] + " remote " + f[2] + " " + tcpState(table, f[3])) + ")";
                    }
                }
            } catch (IOException | RuntimeException e) {
                // not there on this kernel: the inode alone is said
            }
        }
        return "";
    }

    /** The state column of /proc/self/net/tcp: which end closed first shows in it (CLOSE_WAIT: the peer did). */
    private static String tcpState(String table, String hex) {
        if (!table.startsWith("tcp")) {
            return "";
        }
        String[] names = {"?", "ESTABLISHED", "SYN_SENT", "SYN_RECV", "FIN_WAIT1", "FIN_WAIT2", "TIME_WAIT", "CLOSE",
            "CLOSE_WAIT", "LAST_ACK", "LISTEN", "CLOSING"};
        try {
            int st = Integer.parseInt(hex, 16);
            return st > 0 && st < names.length ? names[st] : "state " + hex;
        } catch (NumberFormatException e) {
            return "state " + hex;
        }
    }

    static Set<Thread> nonDaemonThreads() {
        // JUnit's own watcher of @Timeout starts with the first such test and stays for the run
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.isAlive() && !t.isDaemon())
                .filter(t -> !t.getName().equals("junit-jupiter-timeout-watcher"))
                .collect(Collectors.toSet());
    }

    private static boolean present(String className) {
        try {
            Class.forName(className, false, ResourceGuard.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
