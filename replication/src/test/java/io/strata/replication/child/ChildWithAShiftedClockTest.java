package io.strata.replication.child;

import io.netty.channel.embedded.EmbeddedChannel;
import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.HostInfo;
import io.strata.streaming.child.LocalCharts;
import io.strata.streaming.receiver.ReceiverParser;
import io.strata.streaming.sender.SenderSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

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

    /** The clock of the child's stream and of the parent; the child's collectors add the shift. */
    private final ChildParentWire.TestClock clock = new ChildParentWire.TestClock();

    @Test
    void aParentReceivingLiveStoresTheSamplesAtTheChildsSeconds() throws Exception {
        EmbeddedChannel channel = new EmbeddedChannel();
        try (StorageEngine childDb = StorageEngine.open(EngineConfig.defaults(dir.resolve("child")));
             StorageEngine parentDb = StorageEngine.open(EngineConfig.defaults(dir.resolve("parent")))) {
            HostInfo host = host(HOST, "child-1");
            LocalCharts local = new LocalCharts(childDb, host);
            LocalCharts.Chart chart = oneDimensionChart(local, HOST, "strata.synthetic_0");
            List<String> requests = new ArrayList<>();
            ReceiverParser parent = parent(parentDb, host, requests, clock);
            try (LocalHostStreamer streamer = new LocalHostStreamer(local, senderSettings(), 1, null, clock)) {
                SenderSession session = session("child-1", channel, LocalHostStreamer.CHILD_CAPABILITIES);
                // the child has just started: connected before its first collection
                long second = T;
                clock.setMicros(second * 1_000_000L + 400_000);
                streamer.onConnected(session, LocalHostStreamer.CHILD_CAPABILITIES);
                feed(parent, written(channel));
                assertEquals(1, requests.size(), "one REPLAY_CHART: " + requests);
                ChildParentWire.AnswerThread answering = ChildParentWire.AnswerThread.start(streamer, session,
                        requests.get(0));
                // the first collection comes while the request is answered (or after the answer)
                collect(local, chart, ++second);
                answering.awaitEnd();
                String answer = written(channel);
                feed(parent, answer);
                for (int i = 0; i < 5; i++) {
                    collect(local, chart, ++second);
                    feed(parent, written(channel));
                }

                List<String> held = points(childDb, childDb.metadata().metrics(chart.chartId()).get(0));
                List<String> got = points(parentDb, firstMetric(parentDb, HOST, "strata.synthetic_0"));
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
        clock.setMicros(second * 1_000_000L + 5_000);
        local.collect(chart, new long[] {(second - T) * 1000 + 7}, null, clock.micros() + SHIFT_MICROS);
        local.passDone(List.of(chart));
    }
}
