package io.strata.streaming.sender;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The process-wide sender counters keep what every session wrote, across reconnections. */
class SenderStatsTest {

    @Test
    void blocksTheSocketTookAreCountedOnceEachAndSurviveTheSession() {
        SenderSessionTest.HeldWrites held = new SenderSessionTest.HeldWrites();
        EmbeddedChannel ch = new EmbeddedChannel(held);
        SenderSession s = new SenderSession("child", ch, Destination.parse("127.0.0.1:19999", 19999), 0, 1 << 20);
        // other tests of this JVM may send at the same time: compare growth, at least ours
        long bytesBefore = SenderStats.PROCESS.bytesSent.sum();
        long blocksBefore = SenderStats.PROCESS.blocksSent.sum();
        assertTrue(s.write(Unpooled.wrappedBuffer(new byte[300])));
        assertTrue(s.write(Unpooled.wrappedBuffer(new byte[200])));
        // not yet taken by the socket: not sent
        assertEquals(bytesBefore, SenderStats.PROCESS.bytesSent.sum());
        held.completeAll();
        assertEquals(500, s.sentBytes());
        s.close("test");
        assertTrue(SenderStats.PROCESS.bytesSent.sum() - bytesBefore >= 500);
        assertTrue(SenderStats.PROCESS.blocksSent.sum() - blocksBefore >= 2);
    }
}
