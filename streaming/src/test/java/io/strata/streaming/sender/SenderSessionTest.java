package io.strata.streaming.sender;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The send buffer accounting of a session, with writes held back as a slow socket would. */
class SenderSessionTest {

    /** Keeps every write pending until released by the test. */
    static final class HeldWrites extends ChannelOutboundHandlerAdapter {
        final List<Object> messages = new ArrayList<>();
        final List<ChannelPromise> promises = new ArrayList<>();

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            messages.add(msg);
            promises.add(promise);
        }

        void completeAll() {
            for (Object m : messages) {
                ReferenceCountUtil.release(m);
            }
            for (ChannelPromise p : promises) {
                p.trySuccess();
            }
            messages.clear();
            promises.clear();
        }
    }

    private static SenderSession session(EmbeddedChannel ch, long buffer) {
        return new SenderSession("child", ch, Destination.parse("127.0.0.1:19999", 19999), 15296, buffer);
    }

    @Test
    void pendingBytesCountUntilTheSocketTakesThem() {
        HeldWrites held = new HeldWrites();
        EmbeddedChannel ch = new EmbeddedChannel(held);
        SenderSession s = session(ch, 1000);
        assertTrue(s.write(Unpooled.wrappedBuffer(new byte[400])));
        assertEquals(400, s.pendingBytes());
        assertFalse(s.halfFull());
        assertTrue(s.write(Unpooled.wrappedBuffer(new byte[200])));
        assertTrue(s.halfFull(), "600 of 1000 pending");
        held.completeAll();
        assertEquals(0, s.pendingBytes());
        assertEquals(600, s.sentBytes());
        assertFalse(s.halfFull());
        assertTrue(s.write(Unpooled.EMPTY_BUFFER.retainedDuplicate()), "an empty block is fine");
        assertTrue(s.isOpen());
        ch.finishAndReleaseAll();
    }

    @Test
    void replicationAnswersAreCountedApartFromTheLiveStream() {
        HeldWrites held = new HeldWrites();
        EmbeddedChannel ch = new EmbeddedChannel(held);
        SenderSession s = session(ch, 1000);
        assertTrue(s.writeAnswer(Unpooled.wrappedBuffer(new byte[1500])), "a single answer larger than the buffer");
        assertTrue(s.write(Unpooled.wrappedBuffer(new byte[900])), "live data beside a pending answer");
        assertTrue(s.isOpen());
        assertEquals(2400, s.pendingBytes());
        assertTrue(s.halfFull(), "replication holds back while answers are pending");
        ByteBuf second = Unpooled.wrappedBuffer(new byte[10]);
        assertFalse(s.writeAnswer(second), "a second answer beyond the buffer of answers");
        assertEquals(0, second.refCnt());
        assertFalse(s.isOpen());
        held.completeAll();
        assertEquals(0, s.pendingBytes());
        ch.finishAndReleaseAll();
    }

    @Test
    void liveDataStillOverflowsItsOwnBufferWhileAnAnswerIsPending() {
        HeldWrites held = new HeldWrites();
        EmbeddedChannel ch = new EmbeddedChannel(held);
        SenderSession s = session(ch, 1000);
        assertTrue(s.writeAnswer(Unpooled.wrappedBuffer(new byte[400])));
        assertTrue(s.writeAnswer(Unpooled.wrappedBuffer(new byte[600])), "answers fit a buffer of their own");
        assertTrue(s.write(Unpooled.wrappedBuffer(new byte[1000])));
        assertFalse(s.write(Unpooled.wrappedBuffer(new byte[1])), "the live stream's bound holds");
        assertFalse(s.isOpen());
        held.completeAll();
        assertEquals(0, s.pendingBytes());
        ch.finishAndReleaseAll();
    }

    @Test
    void aBlockThatDoesNotFitClosesTheSessionAndIsReleased() {
        HeldWrites held = new HeldWrites();
        EmbeddedChannel ch = new EmbeddedChannel(held);
        SenderSession s = session(ch, 1000);
        assertTrue(s.write(Unpooled.wrappedBuffer(new byte[700])));
        ByteBuf big = Unpooled.wrappedBuffer(new byte[301]);
        assertFalse(s.write(big));
        assertEquals(0, big.refCnt(), "the refused block is released");
        assertFalse(s.isOpen());
        assertFalse(ch.isOpen());
        assertEquals("send buffer overflow (1000 bytes)", s.closeReason());
        ByteBuf late = Unpooled.wrappedBuffer(new byte[1]);
        assertFalse(s.write(late));
        assertEquals(0, late.refCnt());
        held.completeAll();
        assertEquals(0, s.pendingBytes());
        ch.finishAndReleaseAll();
    }

    @Test
    void aStalledSocketClosesTheSessionAfterTheTimeout() {
        HeldWrites held = new HeldWrites();
        EmbeddedChannel ch = new EmbeddedChannel(held);
        SenderSession s = session(ch, 1000);
        long timeout = 600_000_000_000L;
        s.closeIfStalled(System.nanoTime() + 2 * timeout, timeout);
        assertTrue(s.isOpen(), "nothing pending: an idle session is not stalled");
        assertTrue(s.write(Unpooled.wrappedBuffer(new byte[10])));
        s.closeIfStalled(System.nanoTime() + timeout / 2, timeout);
        assertTrue(s.isOpen());
        s.closeIfStalled(System.nanoTime() + timeout + 1_000_000_000L, timeout);
        assertFalse(s.isOpen());
        assertEquals("could not send data for 600 seconds", s.closeReason());
        held.completeAll();
        ch.finishAndReleaseAll();
    }

    @Test
    void theEndOfTheConnectionIsReportedOnceWithTheFirstReason() throws Exception {
        EmbeddedChannel ch = new EmbeddedChannel();
        SenderSession s = session(ch, 1000);
        assertNull(s.closeReason());
        s.close("first");
        s.close("second");
        s.disconnected("connection closed by the parent");
        s.disconnected("again");
        Object ev = s.events.take();
        assertInstanceOf(SenderSession.Disconnected.class, ev);
        assertEquals("first", ((SenderSession.Disconnected) ev).reason());
        assertTrue(s.events.isEmpty());
        ch.finishAndReleaseAll();
    }
}
