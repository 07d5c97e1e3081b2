package io.strata.streaming.receiver;

import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.HostInfo;
import io.strata.streaming.wire.StreamProtocolException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** What the node's meters read of a stream's replication: charts still replicating and how far behind their data is. */
class ReplicationLagTest {

    @TempDir
    Path dir;

    private final List<String> sent = new ArrayList<>();
    private long nowSeconds;

    private static void feed(ReceiverParser p, String lines) throws StreamProtocolException {
        for (String l : lines.split("\n")) {
            byte[] b = l.getBytes(StandardCharsets.UTF_8);
            p.line(b, 0, b.length);
        }
    }

    @Test
    void lagIsTheMostBehindReplicatingChartAndZeroOnceCaughtUp() throws Exception {
        try (StorageEngine engine = StorageEngine.open(EngineConfig.defaults(dir))) {
            long t = 1_700_000_000L;
            nowSeconds = t + 100;
            ReceiverParser p = new ReceiverParser(engine, new HostInfo(UUID.randomUUID(), "child", "linux", "UTC", 1,
                    null), sent::add, ReceiverReplication.NONE, true, ReceiverLimits.DEFAULTS,
                    new ReceiverStats(), () -> nowSeconds * 1_000_000L, null);
            ReceiverRegistry.Active active = new ReceiverRegistry.Active(null, "child", 1, 0);
            assertEquals(0, active.chartsReplicating(), "no parser yet");
            active.parser = p;
            assertEquals(0, active.replicationLagSeconds(nowSeconds));

            feed(p, "CHART a.a '' 'A' 'x' a a.a line 100 1 '' '' ''\n"
                    + "DIMENSION d d absolute 1 1 ''\n"
                    + "CHART_DEFINITION_END " + t + " " + (t + 99) + " " + (t + 100) + "\n"
                    + "CHART b.b '' 'B' 'x' b b.b line 100 1 '' '' ''\n"
                    + "DIMENSION d d absolute 1 1 ''\n"
                    + "CHART_DEFINITION_END " + t + " " + (t + 99) + " " + (t + 100));
            assertEquals(2, active.chartsReplicating());
            // nothing stored yet: no time to measure from
            assertEquals(0, active.replicationLagSeconds(nowSeconds));

            // a.a got its first 20 seconds, b.b its first 60: a.a is 80 s behind
            feed(p, replayed("a.a", t + 1, t + 20, false, t));
            feed(p, replayed("b.b", t + 1, t + 60, false, t));
            assertEquals(2, active.chartsReplicating());
            assertEquals(80, active.replicationLagSeconds(nowSeconds));
            assertEquals(2, p.chartsReplicating());

            // a.a catches up and starts streaming: b.b (40 s behind) is the lag
            feed(p, replayed("a.a", t + 21, t + 99, true, t));
            assertEquals(1, active.chartsReplicating());
            assertEquals(40, active.replicationLagSeconds(nowSeconds));

            feed(p, replayed("b.b", t + 61, t + 99, true, t));
            assertEquals(0, active.chartsReplicating());
            assertEquals(0, active.replicationLagSeconds(nowSeconds));
        }
    }

    /** The child's answer for seconds {@code from..to} of {@code chart}, one point a second. */
    private static String replayed(String chart, long from, long to, boolean startStreaming, long childFirst) {
        StringBuilder sb = new StringBuilder();
        for (long s = from; s <= to; s++) {
            sb.append("RBEGIN '").append(chart).append("' ").append(s - 1).append(' ').append(s).append(' ').append(to + 1)
                    .append("\nRSET d ").append(s).append(" ''\n");
        }
        sb.append("REND 1 ").append(childFirst).append(' ').append(to).append(' ').append(startStreaming)
                .append(' ').append(from - 1).append(' ').append(to).append(' ').append(to + 1);
        return sb.toString();
    }
}
