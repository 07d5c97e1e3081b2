package io.strata.replication.child;

import io.netty.channel.embedded.EmbeddedChannel;
import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.HostInfo;
import io.strata.replication.receiver.ReplicationPlanner;
import io.strata.streaming.auth.StreamConfig;
import io.strata.streaming.child.LocalCharts;
import io.strata.streaming.receiver.ReceiverLimits;
import io.strata.streaming.receiver.ReceiverParser;
import io.strata.streaming.receiver.ReceiverStats;
import io.strata.streaming.sender.Destination;
import io.strata.streaming.sender.SenderSession;
import io.strata.streaming.handshake.Capabilities;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static io.strata.replication.child.ChildParentWire.feed;
import static io.strata.replication.child.ChildParentWire.points;
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

    private volatile long nowMicros;

    private final Clock clock = new Clock() {
        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            long now = nowMicros;
            return Instant.ofEpochSecond(now / 1_000_000L, (now % 1_000_000L) * 1000);
        }
    };

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
            HostInfo host = new HostInfo(HOST, "child-1", "linux", "UTC", 1, Map.of());
            // the earlier life: stamps 30 s ahead, not streamed (its parents are not this one)
            LocalCharts earlier = new LocalCharts(childDb, host);
            LocalCharts.Chart e = earlier.define(ChartInfo.of(HOST, CHART, 1), List.of(DimensionInfo.of(HOST, CHART,
                    "d0")));
            for (long s = T + 31; s <= T + 40; s++) {
                earlier.collect(e, new long[] {1000 + (s - T)}, null, s * 1_000_000L + 5_000);
                earlier.passDone(List.of(e));
            }
            int childMetric = childDb.metadata().metrics(e.chartId()).get(0);
            assertEquals(9, points(childDb, childMetric).size(), "the earlier life's points");

            // the next life, with the right clock, on the same engine
            LocalCharts local = new LocalCharts(childDb, host);
            LocalCharts.Chart chart = local.define(ChartInfo.of(HOST, CHART, 1),
                    List.of(DimensionInfo.of(HOST, CHART, "d0")));
            StreamConfig.SenderSettings settings = new StreamConfig.SenderSettings(true, "127.0.0.1:19999", "key", 60,
                    19999, 1 << 20, 5, 60, false, "*", "", "", false);
            List<String> requests = new ArrayList<>();
            ReceiverParser parent = new ReceiverParser(parentDb, host, requests::add,
                    ReplicationPlanner.NETDATA_DEFAULTS, true, ReceiverLimits.DEFAULTS, new ReceiverStats(),
                    () -> nowMicros, null);
            try (LocalHostStreamer streamer = new LocalHostStreamer(local, settings, 1, null, clock)) {
                long second = T + 11;
                collect(local, chart, second);
                SenderSession session = SenderSession.over("child-1", channel,
                        Destination.parse("127.0.0.1:19999", 19999), caps, 1 << 20);
                streamer.onConnected(session, caps);
                feed(parent, written(channel));
                for (String request : requests) {
                    byte[] r = request.trim().getBytes(StandardCharsets.US_ASCII);
                    streamer.onParentCommand(session, r, r.length);
                }
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
                Map<Long, Double> got = values(parentDb, parentDb.metadata().metrics(
                        parentDb.metadata().chartId(HOST, CHART)).get(0));
                String context = "\nchild: " + points(childDb, childMetric) + "\nparent: "
                        + points(parentDb, parentDb.metadata().metrics(parentDb.metadata().chartId(HOST, CHART)).get(0))
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

    /** One collection pass at {@code second} (5 ms past it), the value 5000 + its second. */
    private void collect(LocalCharts local, LocalCharts.Chart chart, long second) {
        nowMicros = second * 1_000_000L + 5_000;
        local.collect(chart, new long[] {5000 + (second - T)}, null, nowMicros);
        local.passDone(List.of(chart));
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
