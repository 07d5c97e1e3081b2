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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static io.strata.replication.child.ChildParentWire.feed;
import static io.strata.replication.child.ChildParentWire.points;
import static io.strata.replication.child.ChildParentWire.written;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * A child whose collectors stamp their samples 30 s ahead of the clock its stream and its parent
 * keep (a machine with a wrong clock; {@code strata chaos}' clock shift) connects right after it
 * started, before its charts' first collection. The parent must store the child's samples at the
 * child's seconds, as the child's own engine has them, whether it receives them live or in a
 * replay: a parent that placed the live samples by its own clock held other seconds than a parent
 * that replayed them (docs/chaos.md, finding 3). A 1.37.1 child defines a chart at its first
 * collection, so its answer always hands over a collection state ({@code RSSTATE}) in the child's
 * times; a Strata child defines its charts at start, and its answer waits for that first collection.
 */
class ChildWithAShiftedClockTest {

    private static final UUID HOST = UUID.fromString("0d9f6e3c-5b1a-4f7e-9a51-00000000000b");
    private static final long T = ChildParentWire.T;
    private static final long SHIFT_MICROS = 30_000_000L;

    @TempDir
    Path dir;

    /** The clock of the child's stream and of the parent, in µs; the child's collectors add the shift. */
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

    @Test
    void aParentReceivingLiveStoresTheSamplesAtTheChildsSeconds() throws Exception {
        EmbeddedChannel channel = new EmbeddedChannel();
        try (StorageEngine childDb = StorageEngine.open(EngineConfig.defaults(dir.resolve("child")));
             StorageEngine parentDb = StorageEngine.open(EngineConfig.defaults(dir.resolve("parent")))) {
            HostInfo host = new HostInfo(HOST, "child-1", "linux", "UTC", 1, Map.of());
            LocalCharts local = new LocalCharts(childDb, host);
            LocalCharts.Chart chart = local.define(ChartInfo.of(HOST, "strata.synthetic_0", 1),
                    List.of(DimensionInfo.of(HOST, "strata.synthetic_0", "d0")));
            StreamConfig.SenderSettings settings = new StreamConfig.SenderSettings(true, "127.0.0.1:19999", "key", 60,
                    19999, 1 << 20, 5, 60, false, "*", "", "", false);
            List<String> requests = new ArrayList<>();
            ReceiverParser parent = new ReceiverParser(parentDb, host, requests::add,
                    ReplicationPlanner.NETDATA_DEFAULTS, true, ReceiverLimits.DEFAULTS, new ReceiverStats(),
                    () -> nowMicros, null);
            try (LocalHostStreamer streamer = new LocalHostStreamer(local, settings, 1, null, clock)) {
                SenderSession session = SenderSession.over("child-1", channel,
                        Destination.parse("127.0.0.1:19999", 19999), LocalHostStreamer.CHILD_CAPABILITIES, 1 << 20);
                // the child has just started: connected before its first collection
                long second = T;
                nowMicros = second * 1_000_000L + 400_000;
                streamer.onConnected(session, LocalHostStreamer.CHILD_CAPABILITIES);
                feed(parent, written(channel));
                assertEquals(1, requests.size(), "one REPLAY_CHART: " + requests);
                byte[] request = requests.get(0).trim().getBytes(StandardCharsets.US_ASCII);
                Throwable[] failed = new Throwable[1];
                Thread answering = new Thread(() -> {
                    try {
                        streamer.onParentCommand(session, request, request.length);
                    } catch (Throwable e) {
                        failed[0] = e;
                    }
                }, "replay-answer");
                answering.start();
                // the first collection comes while the request is answered (or after the answer)
                long deadline = System.nanoTime() + 30_000_000_000L;
                while (answering.isAlive() && answering.getState() != Thread.State.TIMED_WAITING
                        && System.nanoTime() - deadline < 0) {
                    Thread.onSpinWait();
                }
                collect(local, chart, ++second);
                answering.join(60_000);
                assertFalse(answering.isAlive(), "the answer ended");
                assertNull(failed[0], () -> "the answer failed: " + failed[0]);
                String answer = written(channel);
                feed(parent, answer);
                for (int i = 0; i < 5; i++) {
                    collect(local, chart, ++second);
                    feed(parent, written(channel));
                }

                List<String> held = points(childDb, childDb.metadata().metrics(chart.chartId()).get(0));
                List<String> got = points(parentDb, parentDb.metadata().metrics(
                        parentDb.metadata().chartId(HOST, "strata.synthetic_0")).get(0));
                assertEquals(5, held.size(), "the child's own points: " + held);
                assertEquals(held, got, "the parent holds the child's samples at the child's seconds\nrequest: "
                        + requests + "\nanswer:\n" + answer);
            }
        } finally {
            channel.finishAndReleaseAll();
        }
    }

    /** One collection pass at {@code second} (5 ms past it) of the stream's clock, stamped 30 s ahead. */
    private void collect(LocalCharts local, LocalCharts.Chart chart, long second) {
        nowMicros = second * 1_000_000L + 5_000;
        local.collect(chart, new long[] {(second - T) * 1000 + 7}, null, nowMicros + SHIFT_MICROS);
        local.passDone(List.of(chart));
    }
}
