package io.strata.streaming.receiver;

/**
 * What a 1.37.1 parent asks in {@code REPLAY_CHART} (docs/protocol/netdata-stream.md §6.2): the stretch the
 * parent lacks against what the child holds, bounded by {@code seconds to replicate} and cut in
 * steps of {@code seconds per replication step}.
 */
public record ReplicationPlanner(boolean enabled, long secondsToReplicate, long secondsPerStep) {

    public static final ReplicationPlanner NETDATA_DEFAULTS = new ReplicationPlanner(true, 86_400, 600);

    public ReplicationPlanner {
        if (secondsPerStep <= 0) {
            secondsPerStep = 600;
        }
        if (secondsToReplicate < 0) {
            secondsToReplicate = 0;
        }
    }

    /** A request: the chart starts streaming after it when {@code startStreaming}. */
    public record Request(boolean startStreaming, long after, long before) {
        public String line(String chartId) {
            return "REPLAY_CHART \"" + chartId + "\" \"" + (startStreaming ? "true" : "false") + "\" " + after + " "
                    + before + "\n";
        }
    }

    /**
     * The request for a chart: {@code parentLast} is the parent's newest stored second of the
     * chart (0 = none), {@code gapFrom} on a follow-up step the previous {@code before} (0 on the
     * first), {@code childFirst}/{@code childLast} what the child reported.
     */
    public Request next(long parentLast, long followUpFrom, long childFirst, long childLast, int dimensions,
                        long now) {
        if (!enabled || childLast == 0 || dimensions == 0 || childFirst <= 0 || childFirst > childLast
                || parentLast > childLast) {
            return new Request(true, 0, 0);
        }
        long gapFrom;
        if (followUpFrom > 0) {
            gapFrom = followUpFrom;
        } else if (parentLast > 0) {
            gapFrom = parentLast;
        } else {
            gapFrom = now - secondsToReplicate;
        }
        long gapTo = now;
        // REPLAY_CHART's window is (after, before]: asking from the child's first second itself
        // (as 1.37.1 does) leaves out that first point, so a parent that has nothing of the chart
        // asks from the second before it (a Strata sender then includes it; 1.37.1 clamps it back)
        long after = Math.max(gapFrom, parentLast > 0 || followUpFrom > 0 ? childFirst : childFirst - 1);
        long before = Math.min(Math.min(after + secondsPerStep, gapTo), childLast);
        if (after > before) {
            after = before;
        }
        boolean start = now - after <= secondsPerStep || before == childLast;
        return new Request(start, after, before);
    }
}
