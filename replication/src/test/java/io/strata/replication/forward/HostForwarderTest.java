package io.strata.replication.forward;

import io.netty.channel.DefaultEventLoop;
import io.netty.channel.EventLoop;
import io.netty.channel.embedded.EmbeddedChannel;
import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.HostInfo;
import io.strata.engine.page.StorageNumber;
import io.strata.replication.child.ChildParentWire;
import io.strata.replication.child.LocalHostStreamer;
import io.strata.replication.child.UnreadableDatafiles;
import io.strata.streaming.auth.HealthSetting;
import io.strata.streaming.auth.StreamAuthorizer;
import io.strata.streaming.auth.StreamConfig;
import io.strata.streaming.collect.StoredPointLog;
import io.strata.streaming.handshake.Capabilities;
import io.strata.streaming.handshake.StreamRequest;
import io.strata.streaming.receiver.ReceivedStreamListener;
import io.strata.streaming.sender.SenderSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A parent forwarding a received host, on an {@link EmbeddedChannel} in place of the connection to
 * its own parent and with a clock the test moves: what it defines on connection, how it answers
 * {@code REPLAY_CHART} and {@code FUNCTION}, and that live data follows an answer that starts it.
 */
class HostForwarderTest {

    private static final UUID HOST = UUID.fromString("0d9f6e3c-5b1a-4f7e-9a51-000000000001");
    private static final long NOW = 1_700_000_100L;
    private static final long FIRST = NOW - 50;

    @TempDir
    Path dir;

    private StorageEngine engine;
    /** This parent's disk: its datafiles become unreadable when a test says so. */
    private final UnreadableDatafiles disk = new UnreadableDatafiles();
    private int chart;
    private final MovableClock clock = new MovableClock(NOW * 1000);
    private final FakeStream stream = new FakeStream();
    private final EventLoop loop = new DefaultEventLoop();
    private final EmbeddedChannel channel = new EmbeddedChannel();
    private Forwarding owner;
    private HostForwarder forwarder;
    private SenderSession session;

    @BeforeEach
    void setUp() throws Exception {
        engine = StorageEngine.open(EngineConfig.defaults(dir).withIo(disk));
        engine.metadata().upsertHost(new HostInfo(HOST, "child", "linux", "UTC", 1, Map.of()));
        chart = engine.metadata().upsertChart(ChartInfo.of(HOST, "test.c", 1));
        for (String d : List.of("a", "b")) {
            engine.metadata().upsertDimension(DimensionInfo.of(HOST, "test.c", d));
        }
        List<Integer> metrics = engine.metadata().metrics(chart);
        for (long t = FIRST; t <= NOW; t++) {
            engine.store(metrics.get(0), t, 1, t % 10, StorageNumber.SN_DEFAULT_FLAGS);
            engine.store(metrics.get(1), t, 1, 100, StorageNumber.SN_DEFAULT_FLAGS);
        }
        stream.chartIds = new int[] {chart};
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        stream.settings = new StreamAuthorizer.EffectiveSettings(1, 3600, "dbengine", HealthSetting.AUTO, 60, true,
                true, 86_400, 600, true, "127.0.0.1:" + closedPort, "proxy-key", "*", "");
        StreamConfig.SenderSettings template = new StreamConfig.SenderSettings(true, "", "", 60, 19999, 1 << 20, 60,
                60, false, "*", "", "", false);
        owner = new Forwarding(engine, template, clock);
        forwarder = new HostForwarder(stream, engine, template, null, owner, clock);
        session = ChildParentWire.session("child", channel, LocalHostStreamer.CHILD_CAPABILITIES);
    }

    @AfterEach
    void tearDown() throws Exception {
        forwarder.stop();
        owner.close();
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        channel.finishAndReleaseAll();
        engine.close();
    }

    private <T> T onLoop(Callable<T> task) throws Exception {
        return loop.submit(task).get(30, TimeUnit.SECONDS);
    }

    /** What the forwarder wrote to its parent since the last call. */
    private String written() {
        return ChildParentWire.written(channel);
    }

    /** One command of the parent, read by the forwarder's connection. */
    private void command(String line) {
        ChildParentWire.command(forwarder, session, line);
    }

    @Test
    void definesCollectedChartsAnswersReplayChartAndThenForwardsLiveData() throws Exception {
        forwarder.onConnected(session, LocalHostStreamer.CHILD_CAPABILITIES & ~Capabilities.INTERPOLATED_IEEE754);
        String defined = written();
        assertTrue(defined.contains("CHART \"test.c\""), defined);
        assertTrue(defined.contains("DIMENSION \"a\""), defined);
        // the chart's retention here (from the start of its oldest point's interval), and the clock's second
        assertTrue(defined.contains("CHART_DEFINITION_END " + (FIRST - 1) + " " + NOW + " " + NOW + "\n"), defined);

        // before the answer starts it, a collection is not forwarded
        onLoop(() -> {
            forwarder.chartCollected(chart);
            forwarder.readComplete();
            return null;
        });
        assertEquals("", written());

        command("REPLAY_CHART \"test.c\" \"true\" " + (NOW - 5) + " " + NOW);
        String answer = written();
        assertTrue(answer.startsWith("RBEGIN \"test.c\"\n"), answer);
        assertEquals(5, answer.split("RBEGIN '' ", -1).length - 1, "one point a second in (after, before]: " + answer);
        assertTrue(answer.contains("RBEGIN '' " + (NOW - 1) + " " + NOW + " " + NOW + "\n"), answer);
        assertTrue(answer.contains("RDSTATE \"a\""), answer);
        // REND: streaming starts, the world clock is the injected one
        assertTrue(answer.endsWith(" true " + (NOW - 5) + " " + NOW + " " + NOW + "\n"), answer);

        onLoop(() -> {
            forwarder.chartCollected(chart);
            forwarder.readComplete();
            return null;
        });
        String live = written();
        assertEquals("BEGIN \"test.c\" 1000000\nSET \"a\" = 7\nSET \"b\" = 8\nEND\n", live);
    }

    /**
     * This parent's engine cannot read the chart's stored points (a disk error): the request is
     * answered all the same, as 1.37.1 answers a window its storage yields nothing for, so that
     * the grand-parent, which waits for the answer, starts the chart's live stream.
     */
    @Test
    void aRequestForPointsTheEngineCannotReadIsAnsweredAndLiveDataFollows() throws Exception {
        forwarder.onConnected(session, LocalHostStreamer.CHILD_CAPABILITIES & ~Capabilities.INTERPOLATED_IEEE754);
        written();
        engine.flush();
        disk.fail();

        command("REPLAY_CHART \"test.c\" \"true\" " + (NOW - 5) + " " + NOW);
        String answer = written();
        assertTrue(disk.failedReads() > 0, "the answer read the datafile: " + answer);
        assertTrue(answer.startsWith("RBEGIN \"test.c\"\n"), "answered, not dropped: [" + answer + "]");
        assertFalse(answer.contains("RBEGIN '' "), "no point could be read: " + answer);
        assertTrue(answer.contains("RDSTATE \"a\""), answer);
        assertTrue(answer.endsWith(" true " + (NOW - 5) + " " + NOW + " " + NOW + "\n"), answer);

        onLoop(() -> {
            forwarder.chartCollected(chart);
            forwarder.readComplete();
            return null;
        });
        assertEquals("BEGIN \"test.c\" 1000000\nSET \"a\" = 7\nSET \"b\" = 8\nEND\n", written());
    }

    /**
     * A collection this parent's engine refused (it holds other values for those seconds: a
     * child's earlier life, its clock ahead) is not forwarded, since a parent lacking those
     * seconds would store it (docs/chaos.md, finding 3); the next one forwarded carries its time,
     * so that the next parent's timeline stays the child's.
     */
    @Test
    void aCollectionRefusedHereIsNotForwardedAndTheNextCarriesItsTime() throws Exception {
        forwarder.onConnected(session, LocalHostStreamer.CHILD_CAPABILITIES & ~Capabilities.INTERPOLATED_IEEE754);
        written();
        command("REPLAY_CHART \"test.c\" \"true\" " + (NOW - 5) + " " + NOW);
        assertTrue(written().startsWith("RBEGIN \"test.c\"\n"));

        stream.chartLastCollectedUt = (NOW + 1) * 1_000_000L;
        stream.refused = true;
        onLoop(() -> {
            forwarder.chartCollected(chart);
            forwarder.readComplete();
            return null;
        });
        assertEquals("", written(), "a refused collection is not forwarded");

        stream.chartLastCollectedUt = (NOW + 2) * 1_000_000L;
        stream.refused = false;
        onLoop(() -> {
            forwarder.chartCollected(chart);
            forwarder.readComplete();
            return null;
        });
        assertEquals("BEGIN \"test.c\" 2000000\nSET \"a\" = 7\nSET \"b\" = 8\nEND\n", written(),
                "the next carries the time since the last one forwarded");
    }

    @Test
    void aCollectionRefusedHereIsNotForwardedInTheInterpolatedFormsEither() throws Exception {
        forwarder.onConnected(session, LocalHostStreamer.CHILD_CAPABILITIES);
        written();
        command("REPLAY_CHART \"test.c\" \"true\" " + (NOW - 5) + " " + NOW);
        written();
        stream.chartLastCollectedUt = (NOW + 1) * 1_000_000L;
        stream.refused = true;
        onLoop(() -> {
            forwarder.chartCollected(chart);
            forwarder.readComplete();
            return null;
        });
        assertEquals("", written(), "a refused collection is not forwarded");
    }

    @Test
    void aNetdata2ParentGetsWhatWasStoredHereInTheInterpolatedForms() throws Exception {
        forwarder.onConnected(session, LocalHostStreamer.CHILD_CAPABILITIES);
        written();
        command("REPLAY_CHART \"test.c\" \"true\" " + (NOW - 5) + " " + NOW);
        String answer = written();
        // NOW - 1 = 1700000099 = #BlU/Fj, NOW = #BlU/Fk; values as IEEE754 base64 doubles: the stored 100
        // unpacks to 100.00000000000001 (@EBZAAAAAAAB), sent exactly where %0.7f printed 100.0000000
        assertTrue(answer.contains("RBEGIN '' #BlU/Fj #BlU/Fk #BlU/Fk\nRSET \"a\" @"), answer);
        assertTrue(answer.contains("RSET \"b\" @EBZAAAAAAAB A\n"), answer);
        assertTrue(answer.endsWith(" true #BlU/Ff #BlU/Fk #BlU/Fk\n"), answer);

        onLoop(() -> {
            forwarder.chartCollected(chart);
            forwarder.readComplete();
            return null;
        });
        // the slot NOW + 1 (#BlU/Fl) as stored here, the wall clock NOW; 2.5 = @EAEAAAAAAAA
        assertEquals("BEGIN2 \"test.c\" #B #BlU/Fl #BlU/Fk\nSET2 \"a\" #H # A\nSET2 \"b\" #I @EAEAAAAAAAA AR\nEND2\n",
                written());
    }

    @Test
    void aFunctionIsAnsweredAsNotFoundAndAnUnknownChartIsIgnored() throws Exception {
        forwarder.onConnected(session, LocalHostStreamer.CHILD_CAPABILITIES & ~Capabilities.INTERPOLATED_IEEE754);
        written();
        command("FUNCTION tx-1 10 \"processes\"");
        String answer = written();
        assertTrue(answer.startsWith("FUNCTION_RESULT_BEGIN \"tx-1\" 404 \"application/json\" 0\n"), answer);
        assertTrue(answer.endsWith("FUNCTION_RESULT_END\n"), answer);

        command("REPLAY_CHART \"no.such\" \"true\" " + (NOW - 5) + " " + NOW);
        command("PING");
        assertEquals("", written());
    }

    @Test
    void aRequestWaitsForThisParentsOwnReplicationOfTheChartUntilTheClockSaysEnough() throws Exception {
        forwarder.onConnected(session, LocalHostStreamer.CHILD_CAPABILITIES & ~Capabilities.INTERPOLATED_IEEE754);
        written();
        stream.replicating = true;
        Thread grandParent = new Thread(() -> command("REPLAY_CHART \"test.c\" \"false\" " + (NOW - 5) + " " + NOW),
                "grand-parent-request");
        grandParent.start();
        // still replicating from the child: the request waits; the clock moves past the ten minutes
        grandParent.join(300);
        assertTrue(grandParent.isAlive(), "the request waits while the chart replicates here");
        clock.advanceMillis(TimeUnit.MINUTES.toMillis(10) + 1);
        grandParent.join(TimeUnit.SECONDS.toMillis(30));
        assertFalse(grandParent.isAlive(), "the request gave up waiting when the clock passed the deadline");
        String answer = onLoop(this::written);
        assertTrue(answer.startsWith("RBEGIN \"test.c\"\n"), answer);
    }

    @Test
    void anAnswerOvertakenByLiveDataIsStillSentSoThatTheChartsReplicationGoesOn() throws Exception {
        forwarder.onConnected(session, LocalHostStreamer.CHILD_CAPABILITIES & ~Capabilities.INTERPOLATED_IEEE754);
        written();
        // a collection lands while every answer is read from the engine (a loaded machine, a long step)
        stream.overtaking = true;

        // a step inside the history: live data cannot change it, so it goes out as read
        command("REPLAY_CHART \"test.c\" \"false\" " + (NOW - 40) + " " + (NOW - 30));
        String step = onLoop(this::written);
        assertEquals(10, step.split("RBEGIN '' ", -1).length - 1, "the step's points: " + step);
        assertTrue(step.contains(" false " + (NOW - 40) + " " + (NOW - 30) + " "), step);

        // the last step, asked to start streaming: the meeting point with live data cannot be placed,
        // so the answer does not start streaming and the parent asks again from where it ended
        command("REPLAY_CHART \"test.c\" \"true\" " + (NOW - 5) + " " + NOW);
        String last = onLoop(this::written);
        assertTrue(last.startsWith("RBEGIN \"test.c\"\n"), "answered, not dropped: " + last);
        assertEquals(5, last.split("RBEGIN '' ", -1).length - 1, last);
        assertFalse(last.contains("RDSTATE"), "no collection state without streaming: " + last);
        assertTrue(last.contains(" false " + (NOW - 5) + " " + NOW + " "), last);

        // once an answer is not overtaken, streaming starts as usual
        stream.overtaking = false;
        command("REPLAY_CHART \"test.c\" \"true\" " + NOW + " " + NOW);
        assertTrue(onLoop(this::written).contains(" true "), "streaming starts");
    }

    /** A clock the test moves. */
    private static final class MovableClock extends Clock {
        private volatile long millis;

        MovableClock(long millis) {
            this.millis = millis;
        }

        void advanceMillis(long ms) {
            millis += ms;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public long millis() {
            return millis;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis);
        }
    }

    /** A received stream as the receiver shows it to its observers, with values the test sets. */
    private final class FakeStream implements ReceivedStreamListener.ReceivedStream {
        volatile int[] chartIds = new int[0];
        volatile boolean replicating;
        volatile StreamAuthorizer.EffectiveSettings settings;
        /** The chart's last collection: when, and whether this parent's engine refused it. */
        volatile long chartLastCollectedUt = NOW * 1_000_000L;
        volatile boolean refused;

        @Override
        public UUID machineGuid() {
            return HOST;
        }

        @Override
        public StreamRequest request() {
            return StreamRequest.builder().key("child-key").hostname("child").machineGuid(HOST.toString())
                    .updateEvery(1).os("linux").hops(0).ver(LocalHostStreamer.CHILD_CAPABILITIES).build();
        }

        @Override
        public StreamAuthorizer.EffectiveSettings settings() {
            return settings;
        }

        @Override
        public long negotiatedCapabilities() {
            return LocalHostStreamer.CHILD_CAPABILITIES;
        }

        @Override
        public EventLoop eventLoop() {
            return loop;
        }

        @Override
        public int[] chartIds() {
            return chartIds.clone();
        }

        @Override
        public boolean replicating(int chartId) {
            return replicating;
        }

        /** A collection lands between any two looks at the chart. */
        volatile boolean overtaking;
        private long collections = 3;

        @Override
        public long collections(int chartId) {
            return overtaking ? ++collections : collections;
        }

        @Override
        public long microsecondsSinceLastCollection(int chartId) {
            return 1_000_000;
        }

        @Override
        public boolean lastCollectionRefused(int chartId) {
            return refused;
        }

        @Override
        public void collectedValues(int chartId, int[] metrics, long[] values, boolean[] updated) {
            for (int i = 0; i < metrics.length; i++) {
                values[i] = 7 + i;
                updated[i] = true;
            }
        }

        /** What the received collection stored here: a at NOW + 1 = 7 (its collected value), b = 2.5. */
        @Override
        public StoredPointLog storedPoints(int chartId) {
            StoredPointLog log = new StoredPointLog((metric, time, updateEvery, value, flags) -> { });
            List<Integer> metrics = engine.metadata().metrics(chartId);
            log.store(metrics.get(0), NOW + 1, 1, 7, StorageNumber.SN_FLAG_NOT_ANOMALOUS);
            log.store(metrics.get(1), NOW + 1, 1, 2.5, StorageNumber.SN_FLAG_NOT_ANOMALOUS | StorageNumber.SN_FLAG_RESET);
            return log;
        }

        @Override
        public long lastCollectedUt(int chartId, int metric) {
            return NOW * 1_000_000L;
        }

        @Override
        public long lastCollectedValue(int chartId, int metric) {
            return 7;
        }

        @Override
        public double lastCalculatedValue(int chartId, int metric) {
            return 7;
        }

        @Override
        public double lastStoredValue(int chartId, int metric) {
            return 7;
        }

        @Override
        public long chartLastCollectedUt(int chartId) {
            return chartLastCollectedUt;
        }

        @Override
        public long chartLastUpdatedUt(int chartId) {
            return NOW * 1_000_000L;
        }
    }
}
