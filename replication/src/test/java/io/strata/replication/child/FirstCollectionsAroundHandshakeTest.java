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
import java.util.concurrent.atomic.AtomicReference;

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
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A child whose first collections happen around the handshake (a loaded machine: the connection
 * took seconds to establish): {@link LocalHostStreamer} defines the chart on the connection and
 * withholds its live data until the parent's {@code REPLAY_CHART} is answered (§6.1), so whatever
 * the child collected between the definition and its answer must reach the parent in the answer.
 * A real {@link ReceiverParser} plays the parent; both share one settable clock. The parent must
 * end up with every point the child holds, from the child's first.
 */
class FirstCollectionsAroundHandshakeTest {

    private static final UUID HOST = UUID.fromString("0d9f6e3c-5b1a-4f7e-9a51-000000000007");
    private static final long T = ChildParentWire.T;

    @TempDir
    Path dir;

    /** The one clock of both sides. */
    private final ChildParentWire.TestClock clock = new ChildParentWire.TestClock();

    /**
     * The chart exists but has stored nothing when the connection comes up ({@code
     * CHART_DEFINITION_END 0 0 now}); the parent answers {@code "true" 0 0}; two points are
     * collected before the child reads that request (ParentKilledIT on a loaded machine lost them).
     */
    @Test
    void pointsCollectedWhileTheDefinitionOfAnEmptyChartWaitsForItsAnswerReachTheParent() throws Exception {
        run(0, 2);
    }

    /** The chart's first point was stored before the definition; more follow while the request travels. */
    @Test
    void pointsCollectedBeforeAndAfterTheDefinitionReachTheParent() throws Exception {
        run(1, 2);
    }

    /** Nothing is collected while the request travels: the answer starts streaming at once. */
    @Test
    void anEmptyChartWhoseAnswerComesBeforeItsFirstPointStreamsItFromTheFirst() throws Exception {
        run(0, 0);
    }

    /**
     * The answer is computed just before a second ends, and the collector stores and hands over
     * that second's point right after the answer read the clock a second time (it found it
     * unchanged, so the answer starts streaming), before the streamer marks the chart as
     * streaming: that point is in neither the answer nor the stream unless the streamer notices.
     */
    @Test
    void aPointCollectedWhileTheAnswerThatStartsStreamingIsCommittedReachesTheParent() throws Exception {
        run(1, 1, true);
    }

    /**
     * A child with history meets a parent that has nothing of the chart and asks as a 1.37.1 parent
     * does (§6.2): from the first second the child reported, {@code after = max(now − seconds to
     * replicate, child_first)}, for the window {@code (after, before]}. The child's first point
     * must be in the answer.
     */
    @Test
    void aParentAskingFromTheReportedFirstSecondGetsTheChildsFirstPoint() throws Exception {
        EmbeddedChannel channel = new EmbeddedChannel();
        try (StorageEngine childDb = StorageEngine.open(EngineConfig.defaults(dir.resolve("child")));
             StorageEngine parentDb = StorageEngine.open(EngineConfig.defaults(dir.resolve("parent")))) {
            HostInfo host = host(HOST, "child-1");
            LocalCharts local = new LocalCharts(childDb, host);
            LocalCharts.Chart chart = oneDimensionChart(local, HOST, "strata.synthetic_0");
            List<String> ignored = new ArrayList<>();
            ReceiverParser parent = parent(parentDb, host, ignored, clock);
            try (LocalHostStreamer streamer = new LocalHostStreamer(local, senderSettings(), 1, null, clock)) {
                SenderSession session = session("child-1", channel, LocalHostStreamer.CHILD_CAPABILITIES);
                long second = T;
                for (int i = 0; i <= 6; i++) {
                    collect(local, chart, second++);
                }
                clock.setMicros(second * 1_000_000L);
                streamer.onConnected(session, LocalHostStreamer.CHILD_CAPABILITIES);
                String definition = written(channel);
                feed(parent, definition);
                String[] end = null;
                for (String l : definition.split("\n")) {
                    if (l.startsWith("CHART_DEFINITION_END ")) {
                        end = l.split(" ");
                    }
                }
                assertTrue(end != null, definition);
                long childFirst = Long.parseLong(end[1]);
                long childLast = Long.parseLong(end[2]);
                long after = Math.max(second - 86_400, childFirst);
                command(streamer, session, "REPLAY_CHART \"strata.synthetic_0\" \"true\" " + after + " " + childLast);
                String answer = written(channel);
                feed(parent, answer);

                List<String> held = points(childDb, childDb.metadata().metrics(chart.chartId()).get(0));
                List<String> got = points(parentDb, firstMetric(parentDb, HOST, "strata.synthetic_0"));
                assertEquals(6, held.size(), "the child's own points: " + held);
                assertEquals(held, got, "the parent holds every point of the child\ndefinition:\n" + definition
                        + "answer:\n" + answer);
            }
        } finally {
            channel.finishAndReleaseAll();
        }
    }

    /**
     * The parent's {@code REPLAY_CHART} is answered on another thread while the collector is in the
     * middle of the chart's first stored collection: its last collected time has moved, its point
     * and last stored time not yet. An answer computed from that half state told the parent (in
     * {@code RSSTATE}) a last collected time a second past its last stored one and skipped the
     * collection as answered: the parent then interpolated the child's first second with a
     * negative (unsigned) time and stored 1.8e14 where the child had 795 (ParentKilledIT on a
     * loaded machine). The answer must describe the chart between two collections.
     */
    @Test
    void anAnswerComputedWhileACollectionIsHalfStoredHandsTheParentEveryPointAsTheChildHasIt() throws Exception {
        EmbeddedChannel channel = new EmbeddedChannel();
        AtomicReference<Runnable> midCollection = new AtomicReference<>();
        try (StorageEngine childDb = StorageEngine.open(EngineConfig.defaults(dir.resolve("child")));
             StorageEngine parentDb = StorageEngine.open(EngineConfig.defaults(dir.resolve("parent")))) {
            HostInfo host = host(HOST, "child-1");
            // the collector stores through this sink: the action set in midCollection runs before the
            // first point of a collection is stored, that is after its last collected time moved
            LocalCharts local = new LocalCharts(childDb, host, sink -> (metric, time, updateEvery, value, flags) -> {
                Runnable r = midCollection.getAndSet(null);
                if (r != null) {
                    r.run();
                }
                sink.store(metric, time, updateEvery, value, flags);
            });
            LocalCharts.Chart chart = oneDimensionChart(local, HOST, "strata.synthetic_0");
            List<String> commands = new ArrayList<>();
            ReceiverParser parent = parent(parentDb, host, commands, clock);
            try (LocalHostStreamer streamer = new LocalHostStreamer(local, senderSettings(), 1, null, clock)) {
                SenderSession session = session("child-1", channel, LocalHostStreamer.CHILD_CAPABILITIES);
                long second = T;
                collect(local, chart, second);
                clock.setMicros(second * 1_000_000L + 840_000);
                streamer.onConnected(session, LocalHostStreamer.CHILD_CAPABILITIES);
                String definition = written(channel);
                feed(parent, definition);
                assertEquals(1, commands.size(), "one REPLAY_CHART: " + commands);
                AtomicReference<ChildParentWire.AnswerThread> answering = new AtomicReference<>();
                // the collection stays half done until the answer is written, or waits for it
                midCollection.set(() -> answering.set(ChildParentWire.AnswerThread.start(streamer, session,
                        commands.get(0))));
                collect(local, chart, ++second);
                assertTrue(answering.get() != null, "the answer ran during the collection");
                answering.get().awaitEnd();
                String answer = written(channel);
                feed(parent, answer);
                assertEquals(1, streamer.chartsStreaming(), "the answer starts streaming: " + answer);
                for (int i = 0; i < 3; i++) {
                    collect(local, chart, ++second);
                    feed(parent, written(channel));
                }

                List<String> held = points(childDb, childDb.metadata().metrics(chart.chartId()).get(0));
                List<String> got = points(parentDb, firstMetric(parentDb, HOST, "strata.synthetic_0"));
                assertEquals(4, held.size(), "the child's own points: " + held);
                assertEquals(held, got, "the parent holds every point of the child as the child has it\ndefinition:\n"
                        + definition + "request: " + commands + "\nanswer:\n" + answer);
            }
        } finally {
            channel.finishAndReleaseAll();
        }
    }

    private void run(int storedBefore, int storedDuring) throws Exception {
        run(storedBefore, storedDuring, false);
    }

    /**
     * @param storedBefore   points the child stores before the connection defines the chart
     * @param storedDuring   points it stores between the definition and its answer to REPLAY_CHART
     * @param collectInAnswer a collection lands between the answer's second reading of the clock
     *                       (the one that decides whether streaming starts) and its commit
     */
    private void run(int storedBefore, int storedDuring, boolean collectInAnswer) throws Exception {
        EmbeddedChannel channel = new EmbeddedChannel();
        try (StorageEngine childDb = StorageEngine.open(EngineConfig.defaults(dir.resolve("child")));
             StorageEngine parentDb = StorageEngine.open(EngineConfig.defaults(dir.resolve("parent")))) {
            HostInfo host = host(HOST, "child-1");
            LocalCharts local = new LocalCharts(childDb, host);
            LocalCharts.Chart chart = oneDimensionChart(local, HOST, "strata.synthetic_0");
            List<String> commands = new ArrayList<>();
            ReceiverParser parent = parent(parentDb, host, commands, clock);
            try (LocalHostStreamer streamer = new LocalHostStreamer(local, senderSettings(), 1, null, clock)) {
                SenderSession session = session("child-1", channel, LocalHostStreamer.CHILD_CAPABILITIES);

                // the collector's first collection initialises the chart and stores nothing (Netdata's rule)
                long second = T;
                collect(local, chart, second);
                for (int i = 0; i < storedBefore; i++) {
                    collect(local, chart, ++second);
                }
                // the connection is established: the host and the chart's definition
                clock.setMicros(second * 1_000_000L + 840_000);
                streamer.onConnected(session, LocalHostStreamer.CHILD_CAPABILITIES);
                String definition = written(channel);
                feed(parent, definition);
                assertEquals(1, commands.size(), "one REPLAY_CHART: " + commands);
                // collections while the request travels: stored, their live data withheld
                for (int i = 0; i < storedDuring; i++) {
                    collect(local, chart, ++second);
                }
                assertEquals("", written(channel), "no live data before the chart's REPLAY_CHART is answered");
                clock.setMicros(second * 1_000_000L + (collectInAnswer ? 999_000 : 300_000));
                if (collectInAnswer) {
                    long next = ++second;
                    // the first reading is the answer's "now", the second the one after the engine was read
                    clock.atRead(2, () -> collect(local, chart, next));
                }
                command(streamer, session, commands.get(0));
                String answer = written(channel);
                feed(parent, answer);
                assertFalse(clock.actionPending(), "the collection during the answer happened");
                assertEquals(1, streamer.chartsStreaming(), "the answer starts streaming: " + answer);
                for (int i = 0; i < 3; i++) {
                    collect(local, chart, ++second);
                    feed(parent, written(channel));
                }

                List<String> held = points(childDb, childDb.metadata().metrics(chart.chartId()).get(0));
                List<String> got = points(parentDb, firstMetric(parentDb, HOST, "strata.synthetic_0"));
                assertEquals(storedBefore + storedDuring + (collectInAnswer ? 1 : 0) + 3, held.size(),
                        "the child's own points: " + held);
                assertEquals(held, got, "the parent holds every point of the child\ndefinition:\n" + definition
                        + "request: " + commands + "\nanswer:\n" + answer);
            }
        } finally {
            channel.finishAndReleaseAll();
        }
    }

    private void collect(LocalCharts local, LocalCharts.Chart chart, long second) {
        collectOnePass(clock, local, chart, second, (second - T) * 1000 + 7);
    }
}
