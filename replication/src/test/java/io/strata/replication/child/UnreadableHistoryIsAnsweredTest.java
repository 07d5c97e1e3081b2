package io.strata.replication.child;

import io.netty.channel.embedded.EmbeddedChannel;
import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.HostInfo;
import io.strata.streaming.child.LocalCharts;
import io.strata.streaming.handshake.Capabilities;
import io.strata.streaming.receiver.ReceiverParser;
import io.strata.streaming.sender.SenderSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static io.strata.replication.child.ChildParentWire.collectOnePass;
import static io.strata.replication.child.ChildParentWire.command;
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
 * A child whose engine cannot read its history (the disk returns an error for a datafile's
 * extents) still answers the parent's {@code REPLAY_CHART}: a 1.37.1 parent that asked waits for
 * the answer and does not take the chart's live data before it, so a request left unanswered
 * stops the chart on the parent for the whole connection. 1.37.1's sender answers a window its
 * storage yields nothing for with {@code RBEGIN}, the collection state and {@code REND} (its
 * {@code replicate_chart_response}); this child does the same, with the points it could read,
 * and the parent then stores the chart's live collections.
 */
class UnreadableHistoryIsAnsweredTest {

    private static final UUID HOST = UUID.fromString("0d9f6e3c-5b1a-4f7e-9a51-00000000000d");
    private static final long T = ChildParentWire.T;
    private static final String CHART = "strata.synthetic_0";
    /** What a 1.37.1 parent negotiates: decimal numbers, no interpolated forms. */
    private static final long CAPS = LocalHostStreamer.CHILD_CAPABILITIES
            & ~(Capabilities.INTERPOLATED | Capabilities.IEEE754);

    @TempDir
    Path dir;

    private final ChildParentWire.TestClock clock = new ChildParentWire.TestClock();

    @Test
    void aRequestForHistoryTheEngineCannotReadIsAnsweredAndTheChartStreamsLive() throws Exception {
        HostInfo host = host(HOST, "child-1");
        // the child's earlier run: ten seconds stored, then on disk when its engine closed. One tier: more
        // would read the datafile when the engine opens (to fill them) and keep its pages in the cache
        EngineConfig childConfig = EngineConfig.defaults(dir.resolve("child")).withTiers(1);
        try (StorageEngine earlierDb = StorageEngine.open(childConfig)) {
            LocalCharts earlier = new LocalCharts(earlierDb, host);
            LocalCharts.Chart c = oneDimensionChart(earlier, HOST, CHART);
            for (long s = T; s < T + 10; s++) {
                collect(earlier, c, s);
            }
        }

        UnreadableDatafiles io = new UnreadableDatafiles();
        EmbeddedChannel channel = new EmbeddedChannel();
        try (StorageEngine childDb = StorageEngine.open(childConfig.withIo(io));
             StorageEngine parentDb = StorageEngine.open(EngineConfig.defaults(dir.resolve("parent")))) {
            // from here on, every read of a datafile fails: the earlier run's points cannot be read
            io.fail();
            LocalCharts local = new LocalCharts(childDb, host);
            LocalCharts.Chart chart = oneDimensionChart(local, HOST, CHART);
            List<String> requests = new ArrayList<>();
            ReceiverParser parent = parent(parentDb, host, requests, clock);
            try (LocalHostStreamer streamer = new LocalHostStreamer(local, senderSettings(), 1, null, clock)) {
                long second = T + 20;
                collect(local, chart, second);
                SenderSession session = session("child-1", channel, CAPS);
                clock.setMicros(second * 1_000_000L + 400_000);
                streamer.onConnected(session, CAPS);
                feed(parent, written(channel));
                assertEquals(1, requests.size(), "one REPLAY_CHART: " + requests);
                assertTrue(requests.get(0).contains("\"true\""), "the parent asks for all it lacks: " + requests);

                String request = requests.remove(0);
                command(streamer, session, request);
                String answer = written(channel);
                assertTrue(io.failedReads() > 0, "the answer tried to read the history from the datafile: " + answer);
                assertTrue(answer.startsWith("RBEGIN \"" + CHART + "\"\n"), "the request is answered: [" + answer
                        + "]");
                // REND <update every> <first> <last> <start streaming> <after> <before> <wall clock>
                String[] end = answer.substring(answer.lastIndexOf("REND ")).trim().split(" ");
                assertEquals(8, end.length, answer);
                assertEquals("true", end[4], "the answer starts the chart's live stream: " + answer);
                assertEquals(T + 20, Long.parseLong(end[6]), "it answers up to the chart's last collection: " + answer);
                assertEquals(T + 20, Long.parseLong(end[7]), "at this clock's second: " + answer);
                feed(parent, answer);
                assertEquals(List.of(), requests, "the parent asks nothing more");

                for (int i = 0; i < 3; i++) {
                    collect(local, chart, ++second);
                    feed(parent, written(channel));
                }
                List<String> got = points(parentDb, firstMetric(parentDb, HOST, CHART));
                for (long s = T + 21; s <= T + 23; s++) {
                    assertTrue(got.contains((s - T) + "=" + (double) (5000 + (s - T))),
                            "the parent stores the live second T+" + (s - T) + ": " + got + "\nanswer:\n" + answer);
                }
            }
        } finally {
            channel.finishAndReleaseAll();
        }
    }

    private void collect(LocalCharts local, LocalCharts.Chart chart, long second) {
        collectOnePass(clock, local, chart, second, 5000 + (second - T));
    }
}
