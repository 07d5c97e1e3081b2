package io.strata.replication.child;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.HostInfo;
import io.strata.engine.page.StorageNumber;
import io.strata.replication.receiver.ReplicationPlanner;
import io.strata.streaming.auth.StreamConfig;
import io.strata.streaming.child.LocalCharts;
import io.strata.streaming.receiver.ReceiverLimits;
import io.strata.streaming.receiver.ReceiverParser;
import io.strata.streaming.receiver.ReceiverStats;
import io.strata.streaming.sender.Destination;
import io.strata.streaming.sender.SenderListener;
import io.strata.streaming.sender.SenderSession;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * What the tests of a child (or a forwarding parent) streaming to a parent over an {@link
 * EmbeddedChannel} share: one settable clock for both sides, the sender's side of the connection,
 * the parent's parser, the child's written text fed to that parser line by line, the parent's
 * commands handed back to the sender, and the points a metric holds, as {@code second - origin =
 * value}.
 */
public final class ChildParentWire {

    /** The seconds of these tests' clocks: every point is printed relative to it. */
    public static final long T = 1_795_733_190L;

    private ChildParentWire() {
    }

    /** A host as a child describes itself, collecting every second. */
    public static HostInfo host(UUID guid, String hostname) {
        return new HostInfo(guid, hostname, "linux", "UTC", 1, Map.of());
    }

    /** Defines the chart {@code id} (every second) with the one dimension {@code d0}. */
    public static LocalCharts.Chart oneDimensionChart(LocalCharts local, UUID host, String id) {
        return local.define(ChartInfo.of(host, id, 1), List.of(DimensionInfo.of(host, id, "d0")));
    }

    /** The sender settings of these tests: a parent at 127.0.0.1:19999, nothing ever dialled. */
    public static StreamConfig.SenderSettings senderSettings() {
        return new StreamConfig.SenderSettings(true, "127.0.0.1:19999", "key", 60, 19999, 1 << 20, 5, 60, false, "*",
                "", "", false);
    }

    /** The child's side of a connection over {@code channel}, negotiated with {@code capabilities}. */
    public static SenderSession session(String name, EmbeddedChannel channel, long capabilities) {
        return SenderSession.over(name, channel, Destination.parse("127.0.0.1:19999", 19999), capabilities, 1 << 20);
    }

    /**
     * The parent's parser for {@code host}, storing in {@code db}, as a 1.37.1 parent asks for
     * replication; the commands it sends to the child ({@code REPLAY_CHART}) go to {@code commands}.
     */
    public static ReceiverParser parent(StorageEngine db, HostInfo host, List<String> commands, TestClock clock) {
        return new ReceiverParser(db, host, commands::add, ReplicationPlanner.NETDATA_DEFAULTS, true,
                ReceiverLimits.DEFAULTS, new ReceiverStats(), clock::micros, null);
    }

    /** The first metric of chart {@code id} of {@code host} in {@code db}. */
    public static int firstMetric(StorageEngine db, UUID host, String id) {
        return db.metadata().metrics(db.metadata().chartId(host, id)).get(0);
    }

    /** The points of {@code metric} from {@code T - 10} to {@code T + 100}, as {@code second - T = value}. */
    public static List<String> points(StorageEngine db, int metric) throws Exception {
        List<String> out = new ArrayList<>();
        db.queryTier0(metric, T - 10, T + 100, (time, sn) -> out.add((time - T) + "=" + StorageNumber.unpack(sn)));
        return out;
    }

    /** Everything the child wrote on {@code channel} since the last call. */
    public static String written(EmbeddedChannel channel) {
        StringBuilder sb = new StringBuilder();
        ByteBuf b;
        while ((b = channel.readOutbound()) != null) {
            sb.append(b.toString(StandardCharsets.UTF_8));
            b.release();
        }
        return sb.toString();
    }

    /** Feeds {@code text} to the parent's parser, a line at a time. */
    public static void feed(ReceiverParser p, String text) throws Exception {
        for (String l : text.split("\n")) {
            if (l.isEmpty()) {
                continue;
            }
            byte[] b = l.getBytes(StandardCharsets.UTF_8);
            p.line(b, 0, b.length);
        }
    }

    /** Hands one command line of the parent ({@code REPLAY_CHART ...}) to the sender, as its connection reads it. */
    public static void command(SenderListener sender, SenderSession s, String line) {
        byte[] b = line.trim().getBytes(StandardCharsets.US_ASCII);
        sender.onParentCommand(s, b, b.length);
    }

    /** {@link #command} for each of {@code lines}, in order. */
    public static void commands(SenderListener sender, SenderSession s, List<String> lines) {
        for (String l : lines) {
            command(sender, s, l);
        }
    }

    /** One collection pass of a one-dimension chart at {@code second} (5 ms past it), storing {@code value}. */
    public static void collectOnePass(TestClock clock, LocalCharts local, LocalCharts.Chart chart, long second,
            long value) {
        clock.setMicros(second * 1_000_000L + 5_000);
        local.collect(chart, new long[] {value}, null, clock.micros());
        local.passDone(List.of(chart));
    }

    /**
     * The clock of both sides, in µs: a {@link Clock} for the sender, {@link #micros} for the
     * parser. An action may be set to run at a chosen reading of the clock (after it was read),
     * to land a collection between two readings of an answer.
     */
    public static final class TestClock extends Clock {
        private volatile long micros;
        private Runnable action;
        private int readsUntilAction;

        public long micros() {
            return micros;
        }

        public void setMicros(long micros) {
            this.micros = micros;
        }

        /** Moves the clock {@code micros} on. */
        public void advance(long micros) {
            this.micros += micros;
        }

        /** Runs {@code a} once, at the {@code reads}-th reading of the clock from now on. */
        public void atRead(int reads, Runnable a) {
            readsUntilAction = reads;
            action = a;
        }

        /** Whether the action set by {@link #atRead} has not run yet. */
        public boolean actionPending() {
            return action != null;
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
        public Instant instant() {
            long now = micros;
            Instant read = Instant.ofEpochSecond(now / 1_000_000L, (now % 1_000_000L) * 1000);
            if (action != null && --readsUntilAction == 0) {
                Runnable a = action;
                action = null;
                a.run();
            }
            return read;
        }
    }

    /**
     * A parent's command answered on a thread of its own, as the sender's thread answers while the
     * collector goes on: {@link #start} returns once the answer waits (for a collection) or ended.
     */
    public static final class AnswerThread {
        private final Thread thread;
        private volatile Throwable failed;

        private AnswerThread(SenderListener sender, SenderSession s, String request) {
            thread = new Thread(() -> {
                try {
                    command(sender, s, request);
                } catch (Throwable e) {
                    failed = e;
                }
            }, "replay-answer");
        }

        public static AnswerThread start(SenderListener sender, SenderSession s, String request) {
            AnswerThread a = new AnswerThread(sender, s, request);
            a.thread.start();
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (a.thread.isAlive() && a.thread.getState() != Thread.State.TIMED_WAITING
                    && System.nanoTime() - deadline < 0) {
                Thread.onSpinWait();
            }
            return a;
        }

        /** Waits (bounded) for the answer to end; fails when it did not or it threw. */
        public void awaitEnd() throws InterruptedException {
            thread.join(60_000);
            assertFalse(thread.isAlive(), "the answer ended");
            assertNull(failed, () -> "the answer failed: " + failed);
        }
    }
}
