package io.strata.replication.receiver;

import io.strata.streaming.receiver.ReceiverReplication;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The REPLAY_CHART a 1.37.1 parent sends (docs/protocol/netdata-stream.md §6.2, and what a real parent sent). */
class ReplicationPlannerTest {

    final ReplicationPlanner p = ReplicationPlanner.NETDATA_DEFAULTS;

    @Test
    void freshChartOfAFreshChildAsksForItsOnlySecond() {
        // a real parent asks REPLAY_CHART "system.cpu" "true" 1795263062 1795263062, and since the
        // window is (after, before] it never gets that second; Strata asks from the second before
        long t = 1795263062L;
        assertEquals(new ReceiverReplication.Request(true, t - 1, t), p.next(0, 0, t, t, 4, t));
    }

    @Test
    void gapAfterAParentRestartIsAskedFromTheLastStoredSecond() {
        // seen from a real parent: REPLAY_CHART "<id>" "true" 1795263100 1795263130
        assertEquals(new ReceiverReplication.Request(true, 1795263100L, 1795263130L),
                p.next(1795263100L, 0, 1795263063L, 1795263130L, 3, 1795263130L));
    }

    @Test
    void longGapIsCutInStepsAndOnlyTheLastStartsStreaming() {
        long now = 1_800_000_000L;
        ReceiverReplication.Request first = p.next(now - 3600, 0, now - 7200, now, 2, now);
        assertEquals(new ReceiverReplication.Request(false, now - 3600, now - 3000), first);
        ReceiverReplication.Request last = p.next(now - 3600, now - 600, now - 7200, now, 2, now);
        assertEquals(new ReceiverReplication.Request(true, now - 600, now), last);
    }

    @Test
    void nothingToAskStartsStreamingAtOnce() {
        long now = 1_800_000_000L;
        ReceiverReplication.Request zero = new ReceiverReplication.Request(true, 0, 0);
        assertEquals(zero, p.next(0, 0, 0, 0, 2, now), "child without data");
        assertEquals(zero, p.next(0, 0, now - 10, now, 0, now), "chart without dimensions");
        assertEquals(zero, p.next(now + 5, 0, now - 10, now, 2, now), "parent newer than the child");
        assertEquals(zero, new ReplicationPlanner(false, 86400, 600).next(0, 0, now - 10, now, 2, now), "disabled");
    }

    @Test
    void requestLineIsNetdatas() {
        assertEquals("REPLAY_CHART \"system.cpu\" \"true\" 0 0\n",
                new ReceiverReplication.Request(true, 0, 0).line("system.cpu"));
    }

    @Test
    void aChartsStepsContinueFromTheOutstandingRequestAndADefinitionStartsThemOver() {
        long now = 1_800_000_000L;
        ReceiverReplication.ChartReplication chart = p.chart();
        ReceiverReplication.Request first = chart.definitionEnded(now - 3600, now - 7200, now, 2, now);
        assertEquals(new ReceiverReplication.Request(false, now - 3600, now - 3000), first);
        // the child answered less than asked: the next step starts where the request ended
        assertEquals(new ReceiverReplication.Request(false, now - 3000, now - 2400),
                chart.stepEnded(now - 3100, now - 3100, now - 7200, now, 2, now));
        // an answer that reached the child's last second without starting: ask from there, starting
        assertEquals(new ReceiverReplication.Request(true, now, now),
                chart.stepEnded(now, now, now - 7200, now, 2, now));
        // redefined: the steps start over from what is stored
        assertEquals(first, chart.definitionEnded(now - 3600, now - 7200, now, 2, now));
        // nothing asked and nothing answered: start streaming
        assertEquals(ReceiverReplication.Request.START_STREAMING,
                p.chart().stepEnded(0, 0, now - 7200, now, 2, now));
    }

    @Test
    void withoutReplicationEveryChartStartsStreamingAtOnce() {
        ReceiverReplication.ChartReplication chart = ReceiverReplication.NONE.chart();
        assertEquals(ReceiverReplication.Request.START_STREAMING, chart.definitionEnded(0, 100, 200, 2, 300));
        assertEquals(ReceiverReplication.Request.START_STREAMING, chart.stepEnded(150, 0, 100, 200, 2, 300));
    }
}
