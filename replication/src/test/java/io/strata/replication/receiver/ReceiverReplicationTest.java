package io.strata.replication.receiver;

import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.HostInfo;
import io.strata.streaming.receiver.ReceiverLimits;
import io.strata.streaming.receiver.ReceiverParser;
import io.strata.streaming.receiver.ReceiverStats;
import io.strata.streaming.wire.StreamProtocolException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** How the receiver continues a chart's replication after the child's answer ({@code REND}). */
class ReceiverReplicationTest {

    @TempDir
    Path dir;

    private final List<String> sent = new ArrayList<>();
    private long nowSeconds = 1_700_000_100L;

    private ReceiverParser parser(StorageEngine engine) {
        HostInfo host = new HostInfo(UUID.randomUUID(), "child", "linux", "UTC", 1, null);
        return new ReceiverParser(engine, host, sent::add, ReplicationPlanner.NETDATA_DEFAULTS, true,
                ReceiverLimits.DEFAULTS, new ReceiverStats(), () -> nowSeconds * 1_000_000L, null);
    }

    private static void feed(ReceiverParser p, String lines) throws StreamProtocolException {
        for (String l : lines.split("\n")) {
            byte[] b = l.getBytes(StandardCharsets.UTF_8);
            p.line(b, 0, b.length);
        }
    }

    @Test
    void aDeclinedStartAtTheChildsLastSecondAsksFromThereSoThatNothingCollectedMeanwhileIsLost() throws Exception {
        try (StorageEngine engine = StorageEngine.open(EngineConfig.defaults(dir))) {
            ReceiverParser p = parser(engine);
            feed(p, "CHART system.cpu '' 'CPU' '%' cpu system.cpu line 100 1 '' '' ''\n"
                    + "DIMENSION user user absolute 1 1 ''\n"
                    + "CHART_DEFINITION_END 1700000000 1700000095 1700000095");
            // from the second before the child's first: (after, before] then includes the first
            assertEquals("REPLAY_CHART \"system.cpu\" \"true\" 1699999999 1700000095\n", sent.get(0));
            // the child answered up to its last second but its clock moved on: it did not start
            feed(p, "RBEGIN '' 1700000094 1700000095 1700000095\n"
                    + "RSET user 5 ''\n"
                    + "REND 1 1700000000 1700000095 false 1700000000 1700000095 1700000096");
            // Netdata 1.37.1 would ask "true" 0 0 and lose the second collected meanwhile
            assertEquals("REPLAY_CHART \"system.cpu\" \"true\" 1700000095 1700000095\n", sent.get(1));
        }
    }

    @Test
    void theFirstLiveCollectionAfterAReplicationThatStartsStreamingIsStored() throws Exception {
        try (StorageEngine engine = StorageEngine.open(EngineConfig.defaults(dir))) {
            ReceiverParser p = parser(engine);
            long t = 1_700_000_000L;
            nowSeconds = t + 13;
            feed(p, "CHART system.ram '' 'RAM' 'MiB' ram system.ram line 100 1 '' '' ''\n"
                    + "DIMENSION used used absolute 1 1000 ''\n"
                    + "CHART_DEFINITION_END " + (t + 10) + " " + (t + 13) + " " + (t + 13));
            feed(p, "RBEGIN '' " + (t + 12) + " " + (t + 13) + " " + (t + 13) + "\n"
                    + "RSET used 5 ''\n"
                    + "RDSTATE used " + ((t + 13) * 1_000_000L + 20_000) + " 5000 5 5\n"
                    + "RSSTATE " + ((t + 13) * 1_000_000L + 20_000) + " " + (t + 13) * 1_000_000L + "\n"
                    + "REND 1 " + (t + 10) + " " + (t + 13) + " true " + (t + 12) + " " + (t + 13) + " " + (t + 13));
            for (int i = 1; i <= 3; i++) {
                nowSeconds = t + 13 + i;
                feed(p, "BEGIN system.ram 1000000\nSET used " + (5000 + i * 1000) + "\nEND");
            }
            int metric = engine.metadata().metrics(engine.metadata().chartId(
                    engine.metadata().host(engine.metadata().hosts().size() - 1).machineGuid(), "system.ram")).get(0);
            List<String> points = new ArrayList<>();
            engine.queryTier0(metric, t + 10, t + 20, (time, sn) -> points.add(time + "=" +
                    io.strata.engine.page.StorageNumber.unpack(sn)));
            assertEquals(List.of((t + 13) + "=5.0", (t + 14) + "=6.0", (t + 15) + "=7.0", (t + 16) + "=8.0"), points);
        }
    }
}
