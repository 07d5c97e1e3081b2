package io.strata.streaming.sender;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A sender that asks its parents {@code /api/v3/stream_info} before each attempt: it connects to
 * the parent holding its newest data, keeps the list's order where nobody answers (1.37.1
 * parents), sets an initializing parent aside, and never waits longer than the probe's bound for
 * a parent that does not answer.
 */
class StreamSenderStreamInfoTest {

    private static final String ACCEPT = "Hit me baby, push them over with the version=15296";
    private static final String GUID = "5b8185c0-e5a4-11f1-9d33-02fc00000001";
    private static final long WAIT = 30_000;

    private static EventLoopGroup group;

    @BeforeAll
    static void group() {
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        group.next().submit(() -> { }).syncUninterruptibly();
    }

    @AfterAll
    static void shutdown() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }

    private static byte[] holds(long lastTimeS, String ingestStatus) {
        return StreamInfoReplyTest.http(200, StreamInfoReplyTest.HOLDS.replace("1795263113", String.valueOf(lastTimeS))
                .replace("\"ingest_status\":\"online\"", "\"ingest_status\":\"" + ingestStatus + "\""));
    }

    private static StreamSender sender(String list, StreamSenderTest.Recorder r) {
        DestinationList destinations = DestinationList.parse(list, 19999, System::currentTimeMillis);
        return new StreamSender("child", destinations, new StreamSenderTest.TestHandshake(), caps -> null, r,
                new StreamSender.Config(Duration.ofSeconds(10), Duration.ofSeconds(2), Duration.ofMillis(200), 1 << 20),
                group).withStreamInfo(GUID);
    }

    @Test
    void connectsToTheParentHoldingTheNewestDataNotTheFirstOfTheList() throws Exception {
        try (FakeParent a = new FakeParent(FakeParent.Mode.ACCEPT, ACCEPT);
             FakeParent b = new FakeParent(FakeParent.Mode.ACCEPT, ACCEPT)) {
            a.answerStreamInfo(holds(1795263000L, "offline"));
            b.answerStreamInfo(holds(1795263113L, "offline"));
            StreamSenderTest.Recorder r = new StreamSenderTest.Recorder();
            try (StreamSender sender = sender("127.0.0.1:" + a.port() + " 127.0.0.1:" + b.port(), r)) {
                sender.start();
                assertEquals("connected " + b.port() + " 15296", r.next());
                String asked = a.streamInfoRequests.poll(WAIT, TimeUnit.MILLISECONDS);
                assertNotNull(asked, "parent a was not asked");
                assertTrue(asked.startsWith("GET /api/v3/stream_info?machine_guid=" + GUID + " HTTP/1.1\r\n"), asked);
                assertNotNull(b.streamInfoRequests.poll(WAIT, TimeUnit.MILLISECONDS), "parent b was not asked");
                assertEquals(0, a.connectionCount(), "the staler parent was not tried");
            }
            assertNoProbeLeftOpen(a, b);
        }
    }

    @Test
    void withoutStreamInfoAnywhereTheListsOrderIsKept() throws Exception {
        byte[] netdata137 = ("HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Type: text/html; charset=utf-8\r\n"
                + "Content-Length: 27\r\n\r\nUnsupported API version: v3").getBytes(StandardCharsets.US_ASCII);
        try (FakeParent a = new FakeParent(FakeParent.Mode.ACCEPT, ACCEPT);
             FakeParent b = new FakeParent(FakeParent.Mode.ACCEPT, ACCEPT)) {
            a.answerStreamInfo(netdata137);
            b.answerStreamInfo(null);
            StreamSenderTest.Recorder r = new StreamSenderTest.Recorder();
            try (StreamSender sender = sender("127.0.0.1:" + a.port() + " 127.0.0.1:" + b.port(), r)) {
                sender.start();
                assertEquals("connected " + a.port() + " 15296", r.next());
                assertEquals(0, b.connectionCount());
            }
            assertNoProbeLeftOpen(a, b);
        }
    }

    @Test
    void anUnknownHostOnTheFirstParentLosesToAParentHoldingIt() throws Exception {
        try (FakeParent a = new FakeParent(FakeParent.Mode.ACCEPT, ACCEPT);
             FakeParent b = new FakeParent(FakeParent.Mode.ACCEPT, ACCEPT)) {
            a.answerStreamInfo(StreamInfoReplyTest.http(404, StreamInfoReplyTest.UNKNOWN));
            b.answerStreamInfo(holds(100, "offline"));
            StreamSenderTest.Recorder r = new StreamSenderTest.Recorder();
            try (StreamSender sender = sender("127.0.0.1:" + a.port() + " 127.0.0.1:" + b.port(), r)) {
                sender.start();
                assertEquals("connected " + b.port() + " 15296", r.next());
            }
        }
    }

    @Test
    void anInitializingParentIsPostponedAndTheOtherUsed() throws Exception {
        try (FakeParent a = new FakeParent(FakeParent.Mode.ACCEPT, ACCEPT);
             FakeParent b = new FakeParent(FakeParent.Mode.ACCEPT, ACCEPT)) {
            a.answerStreamInfo(holds(1795263113L, "initializing"));
            b.answerStreamInfo(holds(1795263000L, "offline"));
            StreamSenderTest.Recorder r = new StreamSenderTest.Recorder();
            long before = System.currentTimeMillis();
            try (StreamSender sender = sender("127.0.0.1:" + a.port() + " 127.0.0.1:" + b.port(), r)) {
                sender.start();
                assertEquals("connected " + b.port() + " 15296", r.next());
                DestinationList.Entry ea = sender.destinations().entries().get(0);
                assertEquals(a.port(), ea.destination().port());
                assertEquals("the parent is initializing", ea.reason());
                long postponed = ea.postponedUntilMillis() - before;
                assertTrue(postponed >= 30_000 && postponed <= 61_000 + (System.currentTimeMillis() - before),
                        "postponed " + postponed + " ms");
                assertEquals(0, a.connectionCount());
            }
        }
    }

    @Test
    void aParentThatDoesNotAnswerDelaysTheAttemptOnlyByTheProbesBound() throws Exception {
        try (FakeParent a = new FakeParent(FakeParent.Mode.ACCEPT, ACCEPT);
             FakeParent b = new FakeParent(FakeParent.Mode.ACCEPT, ACCEPT)) {
            a.silentOnStreamInfo();
            b.answerStreamInfo(StreamInfoReplyTest.http(404, StreamInfoReplyTest.UNKNOWN));
            StreamSenderTest.Recorder r = new StreamSenderTest.Recorder();
            try (StreamSender sender = sender("127.0.0.1:" + a.port() + " 127.0.0.1:" + b.port(), r)) {
                sender.start();
                // neither says anything about the host: the list's order, after the silent one's bound
                assertEquals("connected " + a.port() + " 15296", r.next());
            }
            assertNoProbeLeftOpen(a, b);
        }
    }

    @Test
    void aDownParentStaysInTheListAndTheNextOneIsUsed() throws Exception {
        int down = FakeParent.closedPort();
        try (FakeParent b = new FakeParent(FakeParent.Mode.ACCEPT, ACCEPT)) {
            b.answerStreamInfo(StreamInfoReplyTest.http(404, StreamInfoReplyTest.UNKNOWN));
            StreamSenderTest.Recorder r = new StreamSenderTest.Recorder();
            try (StreamSender sender = sender("127.0.0.1:" + down + " 127.0.0.1:" + b.port(), r)) {
                sender.start();
                assertEquals("connected " + b.port() + " 15296", r.next());
                assertEquals(List.of(down, b.port()),
                        sender.destinations().entries().stream().map(e -> e.destination().port()).toList());
            }
        }
    }

    /** Every stream_info connection the child opened is closed by it (the probe's own end). */
    private static void assertNoProbeLeftOpen(FakeParent... parents) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT);
        for (FakeParent p : parents) {
            while (p.openStreamInfoConnections() > 0 && System.nanoTime() < end) {
                Thread.sleep(20);
            }
            assertEquals(0, p.openStreamInfoConnections(), "a stream_info connection was left open");
        }
    }
}
