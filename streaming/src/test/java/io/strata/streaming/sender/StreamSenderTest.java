package io.strata.streaming.sender;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.handler.codec.MessageToByteEncoder;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.LoggerFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** StreamSender against fake parents on 127.0.0.1 ephemeral ports. */
class StreamSenderTest {

    private static final String ACCEPT_15296 = "Hit me baby, push them over with the version=15296";
    private static final String ACCEPT_16376 = "Hit me baby, push them over with the version=16376";
    private static final String NOT_PERMITTED = "You are not permitted to access this. Check the logs for more info.";
    private static final String ALREADY_STREAMING = "This GUID is already streaming to this server";
    private static final String LOCALHOST = "Don't hit me baby, you are trying to stream my localhost back";
    /** An upper bound for what must happen, not a timing: generous, so that a busy machine passes. */
    private static final long WAIT = 30_000;

    private static EventLoopGroup group;

    @BeforeAll
    static void group() {
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        // the loop's thread starts with its first task: here, not in whichever test runs first
        group.next().submit(() -> { }).syncUninterruptibly();
    }

    @AfterAll
    static void shutdown() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }

    /** The reply rules of §2.2 and the postponements of §1.4 (the handshake package has the real ones). */
    static final class TestHandshake implements Handshake {
        static final String PREFIX = "Hit me baby, push them over with the version=";

        @Override
        public byte[] request(Destination d) {
            return ("STREAM key=11111111-2222-3333-4444-555555555555&hostname=child&machine_guid="
                    + "5b8185c0-e5a4-11f1-9d33-02fc00000001&ver=16376 HTTP/1.1\r\nUser-Agent: netdata/v1.37.1\r\n"
                    + "Accept: */*\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        }

        @Override
        public Outcome parseReply(byte[] reply, int len) {
            String s = new String(reply, 0, len, StandardCharsets.US_ASCII);
            if (s.startsWith(PREFIX) && len > PREFIX.length() && len < PREFIX.length() + 30) {
                return Outcome.accepted(Long.parseLong(s.substring(PREFIX.length())));
            }
            return switch (s) {
                case LOCALHOST -> Outcome.refused(3600, "remote server is the localhost");
                case ALREADY_STREAMING -> Outcome.refused(120, "already streaming");
                case NOT_PERMITTED -> Outcome.refused(60, "denied access");
                default -> Outcome.refused(60, "remote node response is not understood");
            };
        }
    }

    /** Records every listener call as a line of text; optionally writes blocks on connect. */
    static final class Recorder implements SenderListener {
        final BlockingQueue<String> events = new LinkedBlockingQueue<>();
        final List<SenderSession> sessions = new CopyOnWriteArrayList<>();
        final AtomicInteger connects = new AtomicInteger();
        volatile Consumer<SenderSession> onConnect = s -> { };

        @Override
        public void onConnected(SenderSession session, long capabilities) {
            connects.incrementAndGet();
            sessions.add(session);
            onConnect.accept(session);
            events.add("connected " + session.destination().port() + " " + capabilities);
        }

        @Override
        public void onParentCommand(SenderSession session, byte[] line, int length) {
            events.add("command " + new String(line, 0, length, StandardCharsets.UTF_8));
        }

        @Override
        public void onDisconnected(String reason) {
            events.add("disconnected " + reason);
        }

        String next() throws InterruptedException {
            String e = events.poll(WAIT, TimeUnit.MILLISECONDS);
            assertNotNull(e, "no listener event within " + WAIT + " ms");
            return e;
        }
    }

    private static ByteBuf text(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.UTF_8);
    }

    /**
     * The sender's timeout (sending the request, waiting for the reply) where a test wants the
     * exchange to succeed: a busy machine can take seconds to run the event loop that sends it.
     */
    private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(30);

    private static StreamSender.Config config(Duration timeout, Duration reconnectDelay, long buffer) {
        return new StreamSender.Config(timeout, ANSWER_TIMEOUT, reconnectDelay, buffer);
    }

    private static StreamSender sender(String destinations, Recorder r, StreamSender.Config c,
                                       Function<Long, ChannelHandler> compression) {
        DestinationList list = DestinationList.parse(destinations, 19999, System::currentTimeMillis);
        return new StreamSender("child", list, new TestHandshake(), compression, r, c, group);
    }

    @Test
    void failsOverInOrderAndReconnectsAtOnceToTheNextParent() throws Exception {
        int down = FakeParent.closedPort();
        try (FakeParent b = new FakeParent(FakeParent.Mode.ACCEPT, ACCEPT_15296);
             FakeParent c = new FakeParent(FakeParent.Mode.ACCEPT, ACCEPT_15296)) {
            Recorder r = new Recorder();
            r.onConnect = s -> s.write(text("HELLO " + s.destination().port() + "\n"));
            String list = "127.0.0.1:" + down + " 127.0.0.1:" + b.port() + " 127.0.0.1:" + c.port();
            try (StreamSender sender = sender(list, r, config(ANSWER_TIMEOUT, Duration.ofMinutes(10), 1 << 20),
                    caps -> null)) {
                sender.start();
                assertEquals("connected " + b.port() + " 15296", r.next(), "the first parent that accepts TCP");
                FakeParent.Connection cb = b.nextConnection(WAIT);
                assertEquals(new String(new TestHandshake().request(null), StandardCharsets.US_ASCII), cb.request);
                assertTrue(cb.awaitReceived("HELLO " + b.port() + "\n", WAIT));
                assertEquals(List.of(down, c.port(), b.port()),
                        sender.destinations().entries().stream().map(e -> e.destination().port()).toList(),
                        "the connected parent moved to the end");
                assertNotNull(sender.session());

                cb.close();
                assertEquals("disconnected connection closed by the parent", r.next());
                // within r.next()'s 30 s wait, shorter than the reconnect delay: a reconnection
                // that waited the delay would not be there
                assertEquals("connected " + c.port() + " 15296", r.next(), "walks on from the head: down, then c");
                FakeParent.Connection cc = c.nextConnection(WAIT);
                assertTrue(cc.awaitReceived("HELLO " + c.port() + "\n", WAIT), "everything is sent again");
                assertEquals(List.of(down, b.port(), c.port()),
                        sender.destinations().entries().stream().map(e -> e.destination().port()).toList());
            }
        }
    }

    static Stream<Arguments> refusals() {
        return Stream.of(
                Arguments.of(FakeParent.Mode.REPLY_AND_CLOSE, NOT_PERMITTED, 60),
                Arguments.of(FakeParent.Mode.REPLY_AND_CLOSE, ALREADY_STREAMING, 120),
                Arguments.of(FakeParent.Mode.REPLY_AND_CLOSE, LOCALHOST, 3600),
                Arguments.of(FakeParent.Mode.REPLY_AND_CLOSE, "HTTP/1.1 404 Not Found\r\n\r\n", 60),
                Arguments.of(FakeParent.Mode.CLOSE_WITHOUT_REPLY, "", StreamSender.POSTPONE_NO_REPLY),
                Arguments.of(FakeParent.Mode.SILENT, "", StreamSender.POSTPONE_NO_REPLY));
    }

    @ParameterizedTest
    @MethodSource("refusals")
    void postponesTheDestinationAsTheReplyDemands(FakeParent.Mode mode, String reply, int seconds) throws Exception {
        try (FakeParent p = new FakeParent(mode, reply)) {
            Recorder r = new Recorder();
            // only the silent parent needs the reply's timeout to expire; the others answer, and
            // a reply that came after a short timeout would be judged "no reply"
            Duration timeout = mode == FakeParent.Mode.SILENT ? Duration.ofSeconds(2) : ANSWER_TIMEOUT;
            try (StreamSender sender = sender("127.0.0.1:" + p.port(), r,
                    config(timeout, Duration.ofMillis(100), 1 << 20), caps -> null)) {
                long before = System.currentTimeMillis();
                sender.start();
                assertNotNull(p.nextConnection(WAIT));
                DestinationList.Entry e = awaitPostponed(sender.destinations());
                long after = System.currentTimeMillis();
                assertTrue(e.postponedUntilMillis() >= before + seconds * 1000L
                                && e.postponedUntilMillis() <= after + seconds * 1000L,
                        "postponed " + (e.postponedUntilMillis() - after) + " ms, expected " + seconds + " s");
                assertFalse(e.reason().isEmpty());
                // several reconnect delays later: no new attempt, the only destination is postponed
                Thread.sleep(600);
                assertEquals(1, p.connectionCount());
                assertEquals(0, r.connects.get());
                assertNull(sender.session());
            }
        }
    }

    private static DestinationList.Entry awaitPostponed(DestinationList list) throws InterruptedException {
        long end = System.nanoTime() + WAIT * 1_000_000;
        while (System.nanoTime() < end) {
            DestinationList.Entry e = list.entries().get(0);
            if (e.postponedUntilMillis() > 0) {
                return e;
            }
            Thread.sleep(10);
        }
        throw new AssertionError("the destination was not postponed within " + WAIT + " ms");
    }

    @Test
    void aRefusedDestinationIsSkippedAndTheNextOneUsed() throws Exception {
        try (FakeParent a = new FakeParent(FakeParent.Mode.REPLY_AND_CLOSE, NOT_PERMITTED);
             FakeParent b = new FakeParent(FakeParent.Mode.ACCEPT, ACCEPT_15296)) {
            Recorder r = new Recorder();
            try (StreamSender sender = sender("127.0.0.1:" + a.port() + ",127.0.0.1:" + b.port(), r,
                    config(ANSWER_TIMEOUT, Duration.ofMillis(100), 1 << 20), caps -> null)) {
                sender.start();
                assertEquals("connected " + b.port() + " 15296", r.next());
                assertEquals(1, a.connectionCount(), "a was tried once, then postponed");
                DestinationList.Entry ea = sender.destinations().entries().get(0);
                assertEquals(a.port(), ea.destination().port());
                assertEquals("denied access", ea.reason());
            }
        }
    }

    @Test
    void anOverflowingBlockClosesTheConnectionAndTheSenderReconnects() throws Exception {
        try (FakeParent p = new FakeParent(FakeParent.Mode.ACCEPT, ACCEPT_15296)) {
            Recorder r = new Recorder();
            AtomicInteger n = new AtomicInteger();
            List<Boolean> accepted = new CopyOnWriteArrayList<>();
            r.onConnect = s -> {
                if (n.incrementAndGet() == 1) {
                    accepted.add(s.write(Unpooled.wrappedBuffer(new byte[5000])));
                } else {
                    accepted.add(s.write(text("AGAIN\n")));
                }
            };
            try (StreamSender sender = sender("127.0.0.1:" + p.port(), r,
                    config(ANSWER_TIMEOUT, Duration.ofSeconds(30), 4096), caps -> null)) {
                sender.start();
                assertTrue(r.next().startsWith("connected"));
                assertEquals("disconnected send buffer overflow (4096 bytes)", r.next());
                assertTrue(r.next().startsWith("connected"), "reconnects at once, not after the 30 s delay");
                assertEquals(List.of(false, true), accepted);
                FakeParent.Connection first = p.nextConnection(WAIT);
                FakeParent.Connection second = p.nextConnection(WAIT);
                assertTrue(second.awaitReceived("AGAIN\n", WAIT));
                assertTrue(first.awaitEnded(WAIT));
                assertEquals("", first.received(), "the overflowing block was dropped, not sent");
            }
        }
    }

    @Test
    void parentCommandsReachTheListenerLineByLine() throws Exception {
        try (FakeParent p = new FakeParent(FakeParent.Mode.ACCEPT, ACCEPT_15296)) {
            Recorder r = new Recorder();
            try (StreamSender sender = sender("127.0.0.1:" + p.port(), r,
                    config(ANSWER_TIMEOUT, Duration.ofMillis(100), 1 << 20), caps -> null)) {
                sender.start();
                assertTrue(r.next().startsWith("connected"));
                FakeParent.Connection c = p.nextConnection(WAIT);
                c.send("REPLAY_CHART \"system.cpu\" \"true\" 0 0\nFUNCTION tx1 10 \"proc");
                Thread.sleep(50);
                c.send("esses\"\n");
                assertEquals("command REPLAY_CHART \"system.cpu\" \"true\" 0 0", r.next());
                assertEquals("command FUNCTION tx1 10 \"processes\"", r.next());
            }
        }
    }

    /** Prefixes every block with 'Z': stands in for the LZ4 frame encoder. */
    static final class MarkingEncoder extends MessageToByteEncoder<ByteBuf> {
        @Override
        protected void encode(ChannelHandlerContext ctx, ByteBuf msg, ByteBuf out) {
            out.writeByte('Z');
            out.writeBytes(msg);
        }
    }

    @Test
    void theCompressionHandlerIsInstalledOnlyWhenNegotiated() throws Exception {
        try (FakeParent p = new FakeParent(FakeParent.Mode.ACCEPT, ACCEPT_16376)) {
            List<Long> asked = new CopyOnWriteArrayList<>();
            Recorder r = new Recorder();
            r.onConnect = s -> s.write(text("abc\n"));
            try (StreamSender sender = sender("127.0.0.1:" + p.port(), r,
                    config(ANSWER_TIMEOUT, Duration.ofMillis(100), 1 << 20), caps -> {
                        asked.add(caps);
                        return new MarkingEncoder();
                    })) {
                sender.start();
                assertEquals("connected " + p.port() + " 16376", r.next());
                assertTrue(p.nextConnection(WAIT).awaitReceived("Zabc\n", WAIT));
                assertEquals(List.of(16376L), asked);

                // the same parent now negotiates without COMPRESSION
                p.behave(FakeParent.Mode.ACCEPT, ACCEPT_15296);
                r.sessions.get(0).close("test");
                assertEquals("disconnected test", r.next());
                assertEquals("connected " + p.port() + " 15296", r.next());
                FakeParent.Connection plain = p.nextConnection(WAIT);
                assertTrue(plain.awaitReceived("abc\n", WAIT));
                assertFalse(plain.received().contains("Z"));
                assertEquals(List.of(16376L), asked, "not asked for a handler without COMPRESSION");
            }
        }
    }

    @Test
    void aFailingHandshakeComponentDoesNotStopTheSender() throws Exception {
        try (FakeParent p = new FakeParent(FakeParent.Mode.ACCEPT, ACCEPT_15296)) {
            Recorder r = new Recorder();
            AtomicInteger calls = new AtomicInteger();
            TestHandshake real = new TestHandshake();
            Handshake flaky = new Handshake() {
                @Override
                public byte[] request(Destination d) {
                    if (calls.incrementAndGet() == 1) {
                        throw new IllegalStateException("first request fails");
                    }
                    return real.request(d);
                }

                @Override
                public Outcome parseReply(byte[] reply, int len) {
                    return real.parseReply(reply, len);
                }
            };
            DestinationList list = DestinationList.parse("127.0.0.1:" + p.port(), 19999, System::currentTimeMillis);
            try (StreamSender sender = new StreamSender("child", list, flaky, caps -> null, r,
                    config(ANSWER_TIMEOUT, Duration.ofMillis(100), 1 << 20), group)) {
                sender.start();
                assertEquals("connected " + p.port() + " 15296", r.next());
                assertEquals(2, calls.get());
            }
        }
    }

    @Test
    void closingTheSenderEndsTheConnection() throws Exception {
        try (FakeParent p = new FakeParent(FakeParent.Mode.ACCEPT, ACCEPT_15296)) {
            Recorder r = new Recorder();
            DestinationList list = DestinationList.parse("127.0.0.1:" + p.port(), 19999, System::currentTimeMillis);
            // no group given: the sender owns one and shuts it down
            StreamSender sender = new StreamSender("child", list, new TestHandshake(), caps -> null, r,
                    config(ANSWER_TIMEOUT, Duration.ofMillis(100), 1 << 20), null);
            sender.start();
            assertTrue(r.next().startsWith("connected"));
            FakeParent.Connection c = p.nextConnection(WAIT);
            sender.close();
            assertTrue(c.awaitEnded(WAIT), "the parent sees the connection end");
            assertEquals("disconnected sender stopped", r.next());
            assertNull(sender.session());
            assertFalse(r.sessions.get(0).write(text("late\n")), "a closed session refuses blocks");
        }
    }

    private static ListAppender<ILoggingEvent> senderLog() {
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        ((Logger) LoggerFactory.getLogger(StreamSender.class)).addAppender(logged);
        return logged;
    }

    private static List<String> lines(ListAppender<ILoggingEvent> logged, Level level) {
        return logged.list.stream().filter(e -> e.getLevel() == level).map(ILoggingEvent::getFormattedMessage).toList();
    }

    @Test
    void aDestinationThatKeepsRefusingIsOneWarningNotAnErrorPerAttempt() throws Exception {
        int down = FakeParent.closedPort();
        Recorder r = new Recorder();
        ListAppender<ILoggingEvent> logged = senderLog();
        try (StreamSender sender = sender("127.0.0.1:" + down, r,
                config(ANSWER_TIMEOUT, Duration.ofMillis(10), 1 << 20), caps -> null)) {
            sender.start();
            Destination d = sender.destinations().entries().get(0).destination();
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT);
            while (sender.failuresSinceConnected(d) < 5 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertTrue(sender.failuresSinceConnected(d) >= 5, "the sender kept trying");
        } finally {
            ((Logger) LoggerFactory.getLogger(StreamSender.class)).detachAppender(logged);
        }
        assertEquals(List.of(), lines(logged, Level.ERROR));
        List<String> warnings = lines(logged, Level.WARN);
        assertEquals(1, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).startsWith("STREAM child [send to 127.0.0.1:" + down + "]: failed to connect"),
                warnings.get(0));
    }

    @Test
    void aLostConnectionIsAWarning() throws Exception {
        ListAppender<ILoggingEvent> logged = senderLog();
        try (FakeParent p = new FakeParent(FakeParent.Mode.ACCEPT, ACCEPT_15296)) {
            Recorder r = new Recorder();
            try (StreamSender sender = sender("127.0.0.1:" + p.port(), r,
                    config(ANSWER_TIMEOUT, Duration.ofMillis(10), 1 << 20), caps -> null)) {
                sender.start();
                assertTrue(r.next().startsWith("connected"));
                p.nextConnection(WAIT).close();
                assertTrue(r.next().startsWith("disconnected"));
                assertTrue(r.next().startsWith("connected"), "reconnected at once");
            }
        } finally {
            ((Logger) LoggerFactory.getLogger(StreamSender.class)).detachAppender(logged);
        }
        assertEquals(List.of(), lines(logged, Level.ERROR));
        List<String> warnings = lines(logged, Level.WARN);
        assertEquals(1, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).contains("connection lost"), warnings.get(0));
    }
}
