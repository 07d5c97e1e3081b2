package io.strata.node.chaos;

import java.nio.file.Path;

/**
 * What a chaos run is: its length, seed and sizes, where it keeps its nodes' directories, whether
 * it may use network namespaces and a real Netdata child, and the nodes' heaps.
 */
public record ChaosOptions(double minutes, long seed, int parents, int children, Path dir, boolean netns,
                           boolean netdataChild, String parentHeap, String childHeap, int maxCatchUpSeconds) {

    public ChaosOptions {
        if (!(minutes > 0) || minutes > 7 * 24 * 60) {
            throw new IllegalArgumentException("--minutes must be > 0 and at most a week, got " + minutes);
        }
        if (parents < 2 || parents > 9) {
            throw new IllegalArgumentException("--parents must be 2..9 (never all parents faulted at once), got "
                    + parents);
        }
        if (children < 1 || children > 64) {
            throw new IllegalArgumentException("--children must be 1..64, got " + children);
        }
        if (maxCatchUpSeconds < 10) {
            throw new IllegalArgumentException("the catch-up bound must be at least 10 s, got " + maxCatchUpSeconds);
        }
    }

    int scheduleSeconds() {
        return (int) Math.max(30, Math.round(minutes * 60));
    }
}
