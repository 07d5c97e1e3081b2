package io.strata.node.chaos;

import io.strata.node.netdata.NetdataAgentConfig;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.TreeMap;
import java.util.Set;
import java.util.HashSet;
import io.strata.engine.thread.StrataThreads;
import io.strata.engine.time.Clocks;

/**
 * A chaos run: starts the cluster, waits until every parent holds every child, plays the
 * {@link FaultPlan} drawn from the seed, heals everything, waits for the quiet catch-up, runs the
 * {@link ReplicaCheck} and reports. Everything it starts (processes, namespaces, routes) is removed
 * at the end, also on an exception or a JVM shutdown. Progress goes to {@code log}.
 */
public final class ChaosRunner {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
    /** How long the quiet catch-up watches holes no request fills stay the same before it gives up on them. */
    /** Holes left unchanged this long end the quiet wait: five rounds of the parents' hole repair. */
    static final int SETTLED_SECONDS = 5 * ChaosCluster.REPAIR_INTERVAL_SECONDS;
    /** Holes named in the quiet catch-up's failure. */
    static final int QUIET_LAG_LINES = 20;

    private final ChaosOptions o;
    private final PrintStream log;
    private final List<String> events = new ArrayList<>();
    private final Map<String, List<Long>> kills = new ConcurrentHashMap<>();
    private final Map<String, List<long[]>> shifts = new ConcurrentHashMap<>();
    private final List<String> problems = new ArrayList<>();
    private final Map<Integer, Double> catchUps = new ConcurrentHashMap<>();

    public ChaosRunner(ChaosOptions options, PrintStream log) {
        this.o = options;
        this.log = log;
    }

    public ChaosReport run() throws IOException, InterruptedException {
        Path base = o.dir().toAbsolutePath();
        Files.createDirectories(base);
        ChaosNetwork net = ChaosNetwork.create(o.netns());
        ChaosCluster[] holder = new ChaosCluster[1];
        ParentDisks[] disks = new ParentDisks[1];
        Thread cleanup = StrataThreads.newThread(() -> shutdown(holder[0], disks[0], net), "strata-chaos-cleanup");
        Runtime.getRuntime().addShutdownHook(cleanup);
        ExecutorService monitors = StrataThreads.newFixedThreadPool(2, r -> {
            Thread t = StrataThreads.newThread(r, "strata-chaos-catch-up");
            t.setDaemon(true);
            return t;
        });
        try {
            ChaosCluster cluster = ChaosCluster.build(o, net, base);
            holder[0] = cluster;
            disks[0] = ParentDisks.mount(cluster.parents, true);
            return play(cluster, net, disks[0], monitors, base);
        } finally {
            monitors.shutdownNow();
            shutdown(holder[0], disks[0], net);
            try {
                Runtime.getRuntime().removeShutdownHook(cleanup);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs anyway
            }
        }
    }

    private ChaosReport play(ChaosCluster cluster, ChaosNetwork net, ParentDisks disks, ExecutorService monitors,
                             Path base)
            throws IOException, InterruptedException {
        ChaosReport report = new ChaosReport(o, base);
        report.partitions = net.partitionsUnavailable() == null ? "network namespaces (" + net.blackhole() + ")"
                : "skipped: " + net.partitionsUnavailable();
        report.disks = disks.unavailable() == null ? "tmpfs of " + ParentDisks.SIZE + " per parent"
                : "full disks skipped: " + disks.unavailable();
        report.netdataChild = cluster.children.stream().anyMatch(c -> c.kind == ChaosNode.Kind.NETDATA_CHILD)
                ? "a real Netdata 1.37.1 child" : NetdataAgentConfig.installed() ? "off"
                : "none: " + NetdataAgentConfig.BINARY + " is not installed";
        say("seed " + o.seed() + ", " + o.minutes() + " min, " + cluster.parents.size() + " parents, "
                + cluster.children.size() + " children (" + report.netdataChild + "); nodes in " + base
                + "; partitions: " + report.partitions + "; disks: " + report.disks);
        for (ChaosNode p : cluster.parents) {
            p.start(0);
        }
        for (ChaosNode p : cluster.parents) {
            up(p);
        }
        for (ChaosNode c : cluster.children) {
            c.start(0);
        }
        for (ChaosNode c : cluster.children) {
            up(c);
        }
        List<String> names = cluster.children.stream().map(c -> c.name).toList();
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        for (ChaosNode p : cluster.parents) {
            while (!Series.hosts(p).containsAll(names)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(p.name + " does not hold every child after "
                            + START_TIMEOUT.toSeconds() + " s: " + Series.hosts(p) + "\n" + p.tail(30));
                }
                Thread.sleep(500);
            }
        }
        // a Netdata child's collectors start one by one: its first seconds are not part of the promise
        Thread.sleep(cluster.children.stream().anyMatch(c -> c.kind == ChaosNode.Kind.NETDATA_CHILD) ? 10_000 : 3_000);
        long windowStart = nowSeconds();
        say("every parent holds every child; the window starts at " + windowStart);
        for (ChaosNode n : cluster.all()) {
            report.resourcesStart.put(n.name, n.resources());
        }

        List<String> parentNames = cluster.parents.stream().map(n -> n.name).toList();
        List<ChaosNode> strata = cluster.strataChildren();
        List<String> childNames = strata.stream().map(n -> n.name).toList();
        List<FaultPlan.Fault> plan = FaultPlan.draw(o.seed(), o.scheduleSeconds(), cluster.parents.size(), strata.size());
        record Action(int second, boolean begin, FaultPlan.Fault fault) {
        }
        List<Action> actions = new ArrayList<>();
        for (FaultPlan.Fault f : plan) {
            actions.add(new Action(f.startSecond(), true, f));
            actions.add(new Action(f.endSecond(), false, f));
        }
        actions.sort(Comparator.comparingInt(Action::second).thenComparing(a -> a.begin() ? 1 : 0));
        long scheduleStart = System.nanoTime();
        Set<Integer> skippedFaults = new HashSet<>();
        for (Action a : actions) {
            long due = scheduleStart + TimeUnit.SECONDS.toNanos(a.second());
            long wait = due - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            checkAlive(cluster, plan, (System.nanoTime() - scheduleStart) / 1_000_000_000L);
            FaultPlan.Fault f = a.fault();
            ChaosNode node = f.kind().parent ? cluster.parents.get(f.target()) : strata.get(f.target());
            String what = f.describe(parentNames, childNames);
            long late = (System.nanoTime() - due) / 1_000_000;
            try {
                if (a.begin()) {
                    report.faults.merge(f.kind().key, 1, Integer::sum);
                    String skipped = begin(f, node, cluster, net, disks, strata);
                    event((skipped == null ? "begin " : "skipped (" + skipped + ") ") + what
                            + (late > 1000 ? " (" + late + " ms late)" : ""));
                    if (skipped != null) {
                        skippedFaults.add(f.index());
                        report.faults.merge(f.kind().key + "_skipped", 1, Integer::sum);
                        report.faults.computeIfPresent(f.kind().key, (k, n) -> n > 1 ? n - 1 : null);
                    }
                } else if (!skippedFaults.contains(f.index())) {
                    end(f, node, net, disks);
                    event("end   #" + f.index() + " " + f.kind().key + " " + node.name);
                    if (node.isParent()) {
                        long healed = nowSeconds();
                        monitors.submit(() -> measureCatchUp(f, node, cluster, windowStart, healed));
                    }
                }
            } catch (IOException | RuntimeException e) {
                problem("fault " + what + " could not be played: " + e.getMessage());
            }
        }
        long scheduleEnd = nowSeconds();
        say("schedule done (" + plan.size() + " faults); the quiet catch-up begins");
        for (ChaosNode n : cluster.all()) {
            if (!n.alive()) {
                problem(n.name + " is not running at the end of the schedule:\n" + n.tail(20));
                n.start(0);
            }
            if (!up(n)) {
                problem(n.name + " does not accept connections at the end of the schedule");
            }
        }
        // the window ends a few seconds after the last fault; the catch-up waits for every parent
        // to hold as much of every child as the others and the child itself
        long windowEnd = scheduleEnd + 5;
        while (nowSeconds() < windowEnd + 3) {
            Thread.sleep(200);
        }
        long quietStart = System.nanoTime();
        boolean caughtUp = false;
        long quietDeadline = quietStart + TimeUnit.SECONDS.toNanos(o.maxCatchUpSeconds());
        QuietLag lag = null;
        QuietLag settled = null;
        long settledSince = 0;
        while (System.nanoTime() < quietDeadline) {
            lag = quietLag(cluster, windowStart, windowEnd);
            if (lag.lines().isEmpty()) {
                caughtUp = true;
                break;
            }
            // holes behind the newest second their parent holds, unchanged for a while: no request
            // will fill them, and waiting longer cannot end the catch-up
            if (!lag.onlyBehindNewest() || !lag.equals(settled)) {
                settled = lag.onlyBehindNewest() ? lag : null;
                settledSince = System.nanoTime();
            } else if (System.nanoTime() - settledSince >= TimeUnit.SECONDS.toNanos(SETTLED_SECONDS)) {
                break;
            }
            Thread.sleep(1000);
        }
        report.quietCatchUpSeconds = (System.nanoTime() - quietStart) / 1e9;
        if (!caughtUp) {
            problem(quietCatchUpFailure(lag, windowStart, windowEnd, report.quietCatchUpSeconds));
        }
        monitors.shutdown();
        monitors.awaitTermination(o.maxCatchUpSeconds(), TimeUnit.SECONDS);
        say(String.format("quiet catch-up %.1f s; checking (%d, %d]", report.quietCatchUpSeconds, windowStart,
                windowEnd));
        Map<String, ReplicaCheck.ChildHistory> history = new LinkedHashMap<>();
        for (ChaosNode c : cluster.children) {
            history.put(c.name, new ReplicaCheck.ChildHistory(kills.getOrDefault(c.name, List.of()),
                    shifts.getOrDefault(c.name, List.of())));
        }
        ReplicaCheck check = new ReplicaCheck();
        check.run(cluster, windowStart, windowEnd, history);
        for (ChaosNode n : cluster.all()) {
            report.resourcesEnd.put(n.name, n.resources());
            report.starts.put(n.name, n.starts());
        }
        report.windowStart = windowStart;
        report.windowEnd = windowEnd;
        report.plan = plan.stream().map(f -> f.describe(parentNames, childNames)).toList();
        report.events = List.copyOf(events);
        report.catchUps = new LinkedHashMap<>(new TreeMap<>(catchUps));
        report.problems.addAll(problems);
        report.check = check;
        return report;
    }

    /** Starts a fault; returns why it was skipped, or null. */
    private String begin(FaultPlan.Fault f, ChaosNode node, ChaosCluster cluster, ChaosNetwork net,
                         ParentDisks disks, List<ChaosNode> strata) throws IOException, InterruptedException {
        switch (f.kind()) {
            case PARENT_SIGKILL -> node.kill9();
            case CHILD_SIGKILL -> {
                long at = nowSeconds();
                node.kill9();
                kills.computeIfAbsent(node.name, k -> new ArrayList<>()).add(at);
            }
            case PARENT_SIGSTOP -> node.freeze();
            case PARENT_EMPTY_DISK -> {
                node.kill9();
                // a replaced machine: no database, no machine GUID
                ParentDisks.empty(node.dir.resolve("cache"));
                deleteTree(node.dir.resolve("lib"));
            }
            case CHILD_CLOCK_SHIFT -> {
                node.stop();
                shifts.computeIfAbsent(node.name, k -> new ArrayList<>())
                        .add(new long[]{nowSeconds(), Long.MAX_VALUE / 4, f.clockOffset()});
                node.start(f.clockOffset());
            }
            case PARENT_DISK_FULL -> {
                if (disks.unavailable() != null) {
                    return disks.unavailable();
                }
                long bytes = disks.fill(node);
                event("  " + node.name + "'s disk full after " + bytes / 1048576 + " MiB more");
            }
            case PARENT_PARTITION -> {
                String why = net.partitionsUnavailable();
                if (why != null) {
                    return why;
                }
                switch (f.scope()) {
                    case EVERYONE -> net.cutAll(node);
                    case PEERS -> net.cutFrom(node, cluster.parents.stream().filter(p -> p != node).toList());
                    case SOME_CHILDREN -> net.cutFrom(node, f.cutChildren().stream().map(strata::get).toList());
                }
            }
        }
        return null;
    }

    private void end(FaultPlan.Fault f, ChaosNode node, ChaosNetwork net, ParentDisks disks)
            throws IOException, InterruptedException {
        switch (f.kind()) {
            case PARENT_SIGKILL, CHILD_SIGKILL, PARENT_EMPTY_DISK -> node.start(0);
            case PARENT_SIGSTOP -> node.thaw();
            case CHILD_CLOCK_SHIFT -> {
                node.stop();
                List<long[]> s = shifts.get(node.name);
                s.get(s.size() - 1)[1] = nowSeconds();
                node.start(0);
            }
            case PARENT_PARTITION -> {
                if (net.partitionsUnavailable() == null) {
                    net.heal(node);
                }
            }
            case PARENT_DISK_FULL -> {
                if (disks.unavailable() == null) {
                    disks.free(node);
                }
            }
        }
    }

    /**
     * After a parent's fault ended: the seconds until it holds, of every child's first chart over
     * the window so far, at least as many seconds as every other parent that answers.
     */
    private void measureCatchUp(FaultPlan.Fault f, ChaosNode parent, ChaosCluster cluster, long from, long healed) {
        long started = System.nanoTime();
        long deadline = started + TimeUnit.SECONDS.toNanos(o.maxCatchUpSeconds());
        try {
            Thread.sleep(2_000);
            while (System.nanoTime() < deadline) {
                if (caughtUp(parent, cluster, from, healed - 1)) {
                    catchUps.put(f.index(), (System.nanoTime() - started) / 1e9);
                    return;
                }
                Thread.sleep(1_000);
            }
            catchUps.put(f.index(), -1.0);
        } catch (InterruptedException e) {
            catchUps.putIfAbsent(f.index(), -1.0);
        } catch (RuntimeException e) {
            catchUps.put(f.index(), -1.0);
        }
    }

    private static boolean caughtUp(ChaosNode parent, ChaosCluster cluster, long from, long to) {
        for (ChaosNode child : cluster.children) {
            try {
                String chart = Series.charts(child, child.kind == ChaosNode.Kind.NETDATA_CHILD ? null : child.name)
                        .get(0);
                int mine = Series.fetch(parent, child.name, chart, from, to).valued();
                for (ChaosNode other : cluster.parents) {
                    if (other == parent) {
                        continue;
                    }
                    try {
                        if (Series.fetch(other, child.name, chart, from, to).valued() > mine) {
                            return false;
                        }
                    } catch (IOException e) {
                        // that peer is faulted now: not the measure
                    }
                }
            } catch (IOException | InterruptedException | RuntimeException e) {
                return false;
            }
        }
        return true;
    }

    /**
     * What the quiet catch-up found at one look, per child's first chart: the parents' holes
     * ({@link QuietCatchUp}) and what could not be read; empty when every parent holds every second
     * of it that the child or another parent holds. {@code onlyBehindNewest}: every line is a hole
     * behind the newest second its parent holds, which no request fills.
     */
    record QuietLag(List<String> lines, boolean onlyBehindNewest) {
    }

    private static QuietLag quietLag(ChaosCluster cluster, long from, long to) throws InterruptedException {
        List<String> lines = new ArrayList<>();
        boolean onlyBehind = true;
        List<String> parentNames = cluster.parents.stream().map(p -> p.name).toList();
        for (ChaosNode child : cluster.children) {
            String host = child.kind == ChaosNode.Kind.NETDATA_CHILD ? null : child.name;
            String chart = "(its chart list)";
            ChaosNode reading = child;
            try {
                chart = Series.charts(child, host).get(0);
                Series own = Series.fetch(child, host, chart, from, to);
                List<Series> onParents = new ArrayList<>();
                for (ChaosNode p : cluster.parents) {
                    reading = p;
                    onParents.add(Series.fetch(p, child.name, chart, from, to));
                }
                for (QuietCatchUp.Hole h : QuietCatchUp.holes(own, parentNames, onParents)) {
                    lines.add(child.name + " " + chart + ": " + h.describe());
                    onlyBehind &= h.behindNewest();
                }
            } catch (IOException | RuntimeException e) {
                lines.add(child.name + " " + chart + ": " + reading.name + " did not answer: " + e.getMessage());
                onlyBehind = false;
            }
        }
        return new QuietLag(List.copyOf(lines), onlyBehind && !lines.isEmpty());
    }

    /** The quiet catch-up's failure: what it waited for, what it found last, and whether waiting could end it. */
    static String quietCatchUpFailure(QuietLag lag, long from, long to, double waited) {
        StringBuilder b = new StringBuilder(String.format("the parents did not catch up in %.0f s of quiet: the wait"
                + " was for every parent to hold every second in (%d, %d] of each child's first chart that the child"
                + " or another parent holds", waited, from, to));
        if (lag == null) {
            return b.append("; nothing was read").toString();
        }
        b.append(lag.onlyBehindNewest()
                ? "; the wait ended early: every hole left lies behind the newest second its parent holds, unchanged for "
                + SETTLED_SECONDS + " s, through the parents' hole repair from their peers, and no replication request"
                + " fills such a hole (a parent asks streams from its newest second; docs/chaos.md, finding 6). Left:"
                : "; left at the end:");
        int shown = 0;
        for (String l : lag.lines()) {
            if (shown++ == QUIET_LAG_LINES) {
                b.append("\n  ... and ").append(lag.lines().size() - QUIET_LAG_LINES).append(" more");
                break;
            }
            b.append("\n  ").append(l);
        }
        return b.toString();
    }

    /** A node that died without a fault is a finding: recorded, and started again so that the run goes on. */
    private void checkAlive(ChaosCluster cluster, List<FaultPlan.Fault> plan, long second) throws IOException {
        List<ChaosNode> strata = cluster.strataChildren();
        for (ChaosNode n : cluster.all()) {
            if (n.alive()) {
                continue;
            }
            boolean expected = false;
            for (FaultPlan.Fault f : plan) {
                ChaosNode target = f.kind().parent ? cluster.parents.get(f.target()) : strata.get(f.target());
                if (target == n && second >= f.startSecond() && second <= f.endSecond() + 1) {
                    expected = true;
                }
            }
            if (!expected && n.starts() > 0) {
                problem(n.name + " exited without a fault at +" + second + " s:\n" + n.tail(30));
                n.start(0);
            }
        }
    }

    private boolean up(ChaosNode n) throws InterruptedException {
        if (n.awaitUp(START_TIMEOUT)) {
            return true;
        }
        throw new IllegalStateException(n.name + " did not open " + n.endpoint() + " in " + START_TIMEOUT.toSeconds()
                + " s:\n" + n.tail(40));
    }

    private void shutdown(ChaosCluster cluster, ParentDisks disks, ChaosNetwork net) {
        if (cluster != null) {
            // children first, then parents: the parents keep every second the children sent
            List<ChaosNode> order = new ArrayList<>(cluster.children);
            order.addAll(cluster.parents);
            for (ChaosNode n : order) {
                try {
                    n.stop();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    try {
                        n.kill9();
                    } catch (InterruptedException again) {
                        // going down anyway
                    }
                }
            }
        }
        if (disks != null) {
            disks.close();
        }
        net.close();
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            Iterator<Path> it = s.sorted(Comparator.reverseOrder()).iterator();
            while (it.hasNext()) {
                Files.deleteIfExists(it.next());
            }
        }
    }

    private synchronized void event(String s) {
        String line = String.format("[%d] %s", nowSeconds(), s);
        events.add(line);
        say(line);
    }

    private synchronized void problem(String s) {
        problems.add(s);
        say("PROBLEM: " + s);
    }

    private void say(String s) {
        log.println("[chaos] " + s);
        log.flush();
    }

    private static long nowSeconds() {
        return Clocks.wallMillis() / 1000;
    }
}
