package io.strata.streaming.sender;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A parent that sends commands (REPLAY_CHART, FUNCTION) faster than the child's connection thread
 * answers them: the queue between the socket and that thread stops growing at its bound, because
 * the socket is no longer read; it is read again once the thread has worked the queue down.
 */
class ParentCommandQueueBoundTest {

    @Test
    void readingStopsWhenTheCommandQueueIsFullAndResumesWhenItDrains() throws InterruptedException {
        EmbeddedChannel ch = new EmbeddedChannel();
        SenderSession s = SenderSession.over("child", ch, Destination.parse("127.0.0.1:19999", 19999), 15296,
                1 << 20);
        StreamSender.ParentCommandHandler handler = new StreamSender.ParentCommandHandler("child", s);
        ch.pipeline().addLast(handler);
        try {
            int sent = 0;
            // one command per read, as a parent writing them one by one: the bound holds per command
            while (ch.config().isAutoRead() && sent < 10 * SenderSession.MAX_QUEUED_COMMANDS) {
                ch.writeInbound(Unpooled.copiedBuffer("REPLAY_CHART \"system.cpu\" \"false\" 100 200\n",
                        StandardCharsets.US_ASCII));
                sent++;
            }
            assertFalse(ch.config().isAutoRead(), "the socket is still read after " + sent + " commands");
            assertTrue(s.queuedEvents() <= SenderSession.MAX_QUEUED_COMMANDS,
                    s.queuedEvents() + " commands queued");

            // the connection thread answers commands: once the queue is low, the socket is read again
            while (s.queuedEvents() > SenderSession.RESUME_QUEUED_COMMANDS) {
                assertInstanceOf(SenderSession.CommandLine.class, s.nextEvent());
                ch.runPendingTasks();
                assertFalse(ch.config().isAutoRead() && s.queuedEvents() >= SenderSession.MAX_QUEUED_COMMANDS);
            }
            ch.runPendingTasks();
            assertTrue(ch.config().isAutoRead(), "reading resumed with " + s.queuedEvents() + " queued");
        } finally {
            ch.finishAndReleaseAll();
        }
    }
}
