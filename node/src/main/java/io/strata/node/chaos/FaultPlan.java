package io.strata.node.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The faults of a run, drawn from the seed before the run starts (the same seed and sizes give the
 * same plan, whatever the machine): what, on which node, when (seconds after the schedule's start)
 * and for how long. Several overlap; a node has one fault at a time; at most all parents but one
 * are faulted at any second; every fault ends before the schedule does.
 */
final class FaultPlan {

    enum Kind {
        PARENT_SIGKILL("parent_sigkill", true),
        CHILD_SIGKILL("child_sigkill", false),
        PARENT_SIGSTOP("parent_sigstop", true),
        PARENT_EMPTY_DISK("parent_empty_disk", true),
        CHILD_CLOCK_SHIFT("child_clock_shift", false),
        PARENT_PARTITION("parent_partition", true),
        PARENT_DISK_FULL("parent_disk_full", true);

        final String key;
        final boolean parent;

        Kind(String key, boolean parent) {
            this.key = key;
            this.parent = parent;
        }
    }

    /** Who a partition cuts the parent off from. */
    enum Scope { EVERYONE, PEERS, SOME_CHILDREN }

    /**
     * One fault. {@code target}: the index of a parent, or of a Strata child; {@code clockOffset}: a
     * clock shift's seconds; {@code scope} and {@code cutChildren}: a partition's.
     */
    record Fault(int index, Kind kind, int target, int startSecond, int seconds, long clockOffset, Scope scope,
                 List<Integer> cutChildren) {

        int endSecond() {
            return startSecond + seconds;
        }

        String describe(List<String> parents, List<String> children) {
            String who = kind.parent ? parents.get(target) : children.get(target);
            String what = switch (kind) {
                case PARENT_SIGKILL, CHILD_SIGKILL -> "SIGKILL, restarted after " + seconds + " s";
                case PARENT_SIGSTOP -> "SIGSTOP for " + seconds + " s, then SIGCONT";
                case PARENT_EMPTY_DISK -> "SIGKILL, its disk emptied, restarted after " + seconds + " s";
                case CHILD_CLOCK_SHIFT -> "restarted with its clock " + Math.abs(clockOffset) + " s "
                        + (clockOffset > 0 ? "ahead" : "behind") + " for " + seconds + " s, then set right";
                case PARENT_PARTITION -> "cut off from " + switch (scope) {
                    case EVERYONE -> "everyone";
                    case PEERS -> "its peers";
                    case SOME_CHILDREN -> cutChildren.stream().map(children::get).toList().toString();
                } + " for " + seconds + " s";
                case PARENT_DISK_FULL -> "its disk (a tmpfs) filled for " + seconds + " s, then freed";
            };
            return String.format("#%d at +%ds %s %s: %s", index, startSecond, kind.key, who, what);
        }
    }

    /** The faults are drawn in this many seconds, from {@link #FIRST_SECOND}. */
    static final int FIRST_SECOND = 5;
    /** Seconds a node stays unfaulted after a fault of it ended (it reconnects and catches up). */
    static final int SETTLE_SECONDS = 5;

    private FaultPlan() {
    }

    /**
     * {@code strataChildren}: the children that can be faulted (a real Netdata child is not: its own
     * engine loses far more than a second at a SIGKILL, and its clock is the machine's).
     */
    static List<Fault> draw(long seed, int scheduleSeconds, int parents, int strataChildren) {
        SplittableRandom rnd = new SplittableRandom(seed);
        List<Fault> faults = new ArrayList<>();
        int[] parentFreeAt = new int[parents];
        int[] childFreeAt = new int[strataChildren];
        // weights: kill parent, kill child, freeze, empty disk, clock shift, partition, disk full
        int[] weights = {3, 3, 2, 1, 1, 2, 1};
        int t = FIRST_SECOND;
        int last = scheduleSeconds - 10;
        for (int attempt = 0; attempt < 100_000 && t < last; attempt++) {
            int w = rnd.nextInt(13);
            Kind kind = null;
            for (int k = 0; k < weights.length; k++) {
                if (w < weights[k]) {
                    kind = Kind.values()[k];
                    break;
                }
                w -= weights[k];
            }
            int seconds = switch (kind) {
                case PARENT_SIGKILL -> 3 + rnd.nextInt(28);
                case CHILD_SIGKILL -> 2 + rnd.nextInt(14);
                case PARENT_SIGSTOP -> 5 + rnd.nextInt(56);
                case PARENT_EMPTY_DISK -> 3 + rnd.nextInt(13);
                case CHILD_CLOCK_SHIFT -> 20 + rnd.nextInt(41);
                case PARENT_PARTITION -> 10 + rnd.nextInt(111);
                case PARENT_DISK_FULL -> 10 + rnd.nextInt(51);
            };
            long offset = kind == Kind.CHILD_CLOCK_SHIFT ? (rnd.nextBoolean() ? 30 : -30) : 0;
            Scope scope = kind == Kind.PARENT_PARTITION ? Scope.values()[rnd.nextInt(strataChildren > 0 ? 3 : 2)]
                    : null;
            int gap = 4 + rnd.nextInt(17);
            seconds = Math.min(seconds, last - t);
            int target = -1;
            if (kind.parent) {
                int busy = 0;
                for (int p = 0; p < parents; p++) {
                    busy += parentFreeAt[p] > t ? 1 : 0;
                }
                if (busy < parents - 1) {
                    int first = rnd.nextInt(parents);
                    for (int i = 0; i < parents && target < 0; i++) {
                        if (parentFreeAt[(first + i) % parents] <= t) {
                            target = (first + i) % parents;
                        }
                    }
                }
            } else if (strataChildren > 0) {
                int first = rnd.nextInt(strataChildren);
                for (int i = 0; i < strataChildren && target < 0; i++) {
                    if (childFreeAt[(first + i) % strataChildren] <= t) {
                        target = (first + i) % strataChildren;
                    }
                }
            }
            List<Integer> cut = List.of();
            if (scope == Scope.SOME_CHILDREN) {
                List<Integer> some = new ArrayList<>();
                for (int c = 0; c < strataChildren; c++) {
                    if (rnd.nextBoolean()) {
                        some.add(c);
                    }
                }
                if (some.isEmpty()) {
                    some.add(rnd.nextInt(strataChildren));
                }
                cut = List.copyOf(some);
            }
            if (target >= 0 && seconds >= 2) {
                // the parents' "never all at once" holds for the fault's whole length: a later fault
                // starts only where fewer than parents - 1 are still busy
                if (kind.parent) {
                    parentFreeAt[target] = t + seconds + SETTLE_SECONDS;
                } else {
                    childFreeAt[target] = t + seconds + SETTLE_SECONDS;
                }
                faults.add(new Fault(faults.size() + 1, kind, target, t, seconds, offset, scope, cut));
            }
            t += gap;
        }
        return faults;
    }
}
