package io.strata.replication.receiver;

import io.strata.streaming.receiver.ReceiverReplication;

/**
 * What a 1.37.1 parent asks in {@code REPLAY_CHART} (docs/protocol/netdata-stream.md §6.2): the stretch the
 * parent lacks against what the child holds, bounded by {@code seconds to replicate} and cut in
 * steps of {@code seconds per replication step}. One per received stream; {@link #chart()} keeps
 * where each chart's steps are. Its {@code secondsToReplicate} also bounds how old a hole the
 * receiver asks the stream for again may be ({@link ReceiverReplication#secondsToReplicate()}).
 */
public record ReplicationPlanner(boolean enabled, long secondsToReplicate, long secondsPerStep)
        implements ReceiverReplication {

    public static final ReplicationPlanner NETDATA_DEFAULTS = new ReplicationPlanner(true, 86_400, 600);

    /** The planner of each accepted stream, from its host's stream.conf settings. */
    public static final ReceiverReplication.Factory FROM_SETTINGS = s -> new ReplicationPlanner(s.replication(),
            s.secondsToReplicate(), s.secondsPerReplicationStep());

    public ReplicationPlanner {
        if (secondsPerStep <= 0) {
            secondsPerStep = 600;
        }
        if (secondsToReplicate < 0) {
            secondsToReplicate = 0;
        }
    }

    @Override
    public ChartReplication chart() {
        return new ChartSteps(this);
    }

    /** One chart's replication: the {@code before} of the outstanding request, where the next step continues. */
    static final class ChartSteps implements ChartReplication {
        private final ReplicationPlanner planner;
        private long requestedBefore;

        ChartSteps(ReplicationPlanner planner) {
            this.planner = planner;
        }

        @Override
        public Request definitionEnded(long parentLast, long childFirst, long childLast, int dimensions,
                                       long nowSeconds) {
            requestedBefore = 0;
            return ask(planner.next(parentLast, 0, childFirst, childLast, dimensions, nowSeconds));
        }

        @Override
        public Request stepEnded(long answeredBefore, long parentLast, long childFirst, long childLast,
                                 int dimensions, long nowSeconds) {
            // the child did not start streaming: ask for the next step, from where this one ended
            long from = Math.max(answeredBefore, requestedBefore);
            if (from <= 0) {
                return Request.START_STREAMING;
            }
            if (from >= childLast) {
                // Netdata 1.37.1 asks "true 0 0" here, and loses what the child collected between its
                // answer and this request (the child declined to start because its clock moved on while
                // answering). Asking from where the answer ended makes the child send those points first.
                return new Request(true, from, from);
            }
            return ask(planner.next(parentLast, from, childFirst, childLast, dimensions, nowSeconds));
        }

        private Request ask(Request r) {
            requestedBefore = r.before();
            return r;
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
