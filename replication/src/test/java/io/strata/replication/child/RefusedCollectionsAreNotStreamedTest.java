package io.strata.replication.child;

import io.netty.channel.embedded.EmbeddedChannel;
import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.HostInfo;
import io.strata.streaming.child.LocalCharts;
import io.strata.streaming.handshake.Capabilities;
import io.strata.streaming.receiver.ReceiverParser;
import io.strata.streaming.sender.SenderSession;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static io.strata.replication.child.ChildParentWire.collectOnePass;
import static io.strata.replication.child.ChildParentWire.commands;
import static io.strata.replication.child.ChildParentWire.feed;
import static io.strata.replication.child.ChildParentWire.firstMetric;
import static io.strata.replication.child.ChildParentWire.host;
import static io.strata.replication.child.ChildParentWire.oneDimensionChart;
import static io.strata.replication.child.ChildParentWire.parent;
import static io.strata.replication.child.ChildParentWire.points;
import static io.strata.replication.child.ChildParentWire.senderSettings;
import static io.strata.replication.child.ChildParentWire.session;
import static io.strata.replication.child.ChildParentWire.written;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A child's earlier life ran with its clock 30 s ahead and stored seconds T+32..T+40 while the
 * real clock was at T+1..T+10; its next life, with the right clock, collects T+11..T+50 again. Its
 * own engine refuses the collections up to T+40 (a metric's points are stored in time order). A
 * parent that lacks the earlier life's seconds (one restarted with an empty disk) must not store
 * the later life's values there: they are not the child's (its engine holds the earlier life's, or
 * nothing), and the parents holding the earlier life would answer differently
 * (docs/chaos.md, finding 3). So the child does not stream a collection its engine refused, and
 * the next one it streams carries the refused ones' time, so that the parent's timeline stays the
 * child's: the parent stores gaps over the refused seconds (the last one before the child streams
 * again is interpolated by the parent, as 1.37.1 interpolates a collection spanning two slots), and
 * from the next second on exactly what the child stores.
 */
class RefusedCollectionsAreNotStreamedTest {

    private static final UUID HOST = UUID.fromString("0d9f6e3c-5b1a-4f7e-9a51-00000000000c");
    private static final long T = ChildParentWire.T;
    private static final String CHART = "strata.synthetic_0";

    @TempDir
    Path dir;

    private final ChildParentWire.TestClock clock = new ChildParentWire.TestClock();

    /**
     * {@code interpolated}: the link of two Strata nodes ({@code BEGIN2}/{@code SET2}, the stored
     * points with their times); else 1.37.1's ({@code BEGIN} with the time since the last
     * collection, {@code SET} the raw values).
     */
    @ParameterizedTest(name = "interpolated={0}")
    @ValueSource(booleans = {true, false})
    void aParentLackingTheEarlierLifeGetsNoneOfTheRefusedCollections(boolean interpolated) throws Exception {
        long caps = interpolated ? LocalHostStreamer.CHILD_CAPABILITIES
                : LocalHostStreamer.CHILD_CAPABILITIES & ~(Capabilities.INTERPOLATED | Capabilities.IEEE754);
        EmbeddedChannel channel = new EmbeddedChannel();
        try (StorageEngine childDb = StorageEngine.open(EngineConfig.defaults(dir.resolve("child")));
             StorageEngine parentDb = StorageEngine.open(EngineConfig.defaults(dir.resolve("parent")))) {
            HostInfo host = host(HOST, "child-1");
            // the earlier life: stamps 30 s ahead, not streamed (its parents are not this one)
            LocalCharts earlier = new LocalCharts(childDb, host);
            LocalCharts.Chart e = oneDimensionChart(earlier, HOST, CHART);
            for (long s = T + 31; s <= T + 40; s++) {
                earlier.collect(e, new long[] {1000 + (s - T)}, null, s * 1_000_000L + 5_000);
                earlier.passDone(List.of(e));
            }
            int childMetric = childDb.metadata().metrics(e.chartId()).get(0);
            assertEquals(9, points(childDb, childMetric).size(), "the earlier life's points");

            // the next life, with the right clock, on the same engine
            LocalCharts local = new LocalCharts(childDb, host);
            LocalCharts.Chart chart = oneDimensionChart(local, HOST, CHART);
            List<String> requests = new ArrayList<>();
            ReceiverParser parent = parent(parentDb, host, requests, clock);
            try (LocalHostStreamer streamer = new LocalHostStreamer(local, senderSettings(), 1, null, clock)) {
                long second = T + 11;
                collect(local, chart, second);
                SenderSession session = session("child-1", channel, caps);
                streamer.onConnected(session, caps);
                feed(parent, written(channel));
                commands(streamer, session, requests);
                String answer = written(channel);
                feed(parent, answer);
                StringBuilder live = new StringBuilder();
                while (second < T + 50) {
                    collect(local, chart, ++second);
                    String w = written(channel);
                    live.append(w);
                    feed(parent, w);
                }

                Map<Long, Double> held = values(childDb, childMetric);
                Map<Long, Double> got = values(parentDb, firstMetric(parentDb, HOST, CHART));
                String context = "\nchild: " + points(childDb, childMetric) + "\nparent: "
                        + points(parentDb, firstMetric(parentDb, HOST, CHART))
                        + "\nrequests: " + requests + "\nanswer:\n" + answer + "\nlive:\n" + live;
                // the refused seconds: nothing on the parent but what the child itself holds
                for (long s = T + 12; s <= T + 39; s++) {
                    Double p = got.get(s);
                    if (p != null && !p.isNaN()) {
                        assertEquals(held.get(s), p, "second T+" + (s - T) + ": the parent holds a value the child's "
                                + "engine refused" + context);
                    }
                }
                // from the first second the child stored again, the parent holds what the child does
                for (long s = T + 41; s <= T + 50; s++) {
                    assertTrue(held.containsKey(s), "the child stored T+" + (s - T) + context);
                    assertEquals(held.get(s), got.get(s), "second T+" + (s - T) + context);
                }
            }
        } finally {
            channel.finishAndReleaseAll();
        }
    }

    private void collect(LocalCharts local, LocalCharts.Chart chart, long second) {
        collectOnePass(clock, local, chart, second, 5000 + (second - T));
    }

    private static Map<Long, Double> values(StorageEngine db, int metric) throws Exception {
        Map<Long, Double> out = new HashMap<>();
        for (String p : points(db, metric)) {
            String[] kv = p.split("=");
            out.put(T + Long.parseLong(kv[0]), Double.parseDouble(kv[1]));
        }
        return out;
    }
}
