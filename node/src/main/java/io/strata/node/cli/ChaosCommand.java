package io.strata.node.cli;

import io.strata.node.chaos.ChaosOptions;
import io.strata.node.chaos.ChaosReport;
import io.strata.node.chaos.ChaosRunner;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import io.strata.engine.time.Clocks;

/**
 * {@code strata chaos}: a cluster of real node processes under a random schedule of faults drawn
 * from a seed, then a check of every sample on every parent. Exit 0 only when nothing is missing
 * or different.
 */
@Command(name = "chaos", mixinStandardHelpOptions = true,
        description = "Run a cluster (parents forwarding to each other, children listing them in different orders)"
                + " under random faults drawn from a seed, then check every sample of every child on every parent.")
public final class ChaosCommand implements Callable<Integer> {

    @Option(names = "--minutes", required = true, description = "Length of the fault schedule, minutes.")
    double minutes;
    @Option(names = "--seed", description = "Seed of the fault schedule (default: the clock); replays a run exactly.")
    Long seed;
    @Option(names = "--parents", defaultValue = "3", description = "Parents. Default ${DEFAULT-VALUE}.")
    int parents;
    @Option(names = "--children", defaultValue = "8",
            description = "Children, one of them a real Netdata 1.37.1 when /usr/sbin/netdata exists."
                    + " Default ${DEFAULT-VALUE}.")
    int children;
    @Option(names = "--dir", description = "Where the nodes' directories and logs go. Default ./data/chaos-<seed>.")
    Path dir;
    @Option(names = "--no-netns", description = "Nodes on 127.0.0.1 even as root (partitions are then skipped).")
    boolean noNetns;
    @Option(names = "--no-netdata", description = "No real Netdata child.")
    boolean noNetdata;
    @Option(names = "--parent-heap", defaultValue = "256m", description = "-Xmx of a parent. Default ${DEFAULT-VALUE}.")
    String parentHeap;
    @Option(names = "--child-heap", defaultValue = "128m", description = "-Xmx of a child. Default ${DEFAULT-VALUE}.")
    String childHeap;
    @Option(names = "--max-catch-up-seconds", defaultValue = "300",
            description = "Longest wait for the parents to catch up. Default ${DEFAULT-VALUE}.")
    int maxCatchUp;
    @Option(names = "--json", description = "Print one JSON object (progress goes to stderr).")
    boolean json;

    @Override
    public Integer call() throws Exception {
        long s = seed != null ? seed : Clocks.wallMillis() % 1_000_000;
        ChaosOptions o;
        try {
            o = new ChaosOptions(minutes, s, parents, children,
                    dir != null ? dir : Path.of("data", "chaos-" + s), !noNetns, !noNetdata, parentHeap, childHeap,
                    maxCatchUp);
        } catch (IllegalArgumentException e) {
            System.err.println("strata chaos: " + e.getMessage());
            return 2;
        }
        ChaosReport r = new ChaosRunner(o, System.err).run();
        if (json) {
            System.out.println(r.json());
        } else {
            System.out.print(r.table());
        }
        return r.ok() ? 0 : 1;
    }
}
