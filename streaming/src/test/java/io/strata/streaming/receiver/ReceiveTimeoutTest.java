package io.strata.streaming.receiver;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.timeout.ReadTimeoutException;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The receive timeout of an accepted stream counts the child's silence, not this parent's: what the
 * child sent while the parent was not reading (its process stopped, its reading paused
 * for a disk that is behind) is read before the stream is judged silent, as Netdata 1.37.1's blocking
 * read with {@code SO_RCVTIMEO} reads it. Virtual time (the channel's ticker): nothing here waits.
 */
class ReceiveTimeoutTest {

    private static final int TIMEOUT_SECONDS = 10;

    private static EmbeddedChannel stream() {
        return new EmbeddedChannel(StreamHandshakeHandler.receiveTimeout(TIMEOUT_SECONDS));
    }

    private static void advance(EmbeddedChannel ch, long millis) {
        ch.advanceTimeBy(millis, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
    }

    private static void childSends(EmbeddedChannel ch, String text) {
        ch.writeInbound(Unpooled.copiedBuffer(text, StandardCharsets.US_ASCII));
        ByteBuf read = ch.readInbound();
        read.release();
    }

    /**
     * A parent stopped past the timeout (SIGSTOP, then SIGCONT): its idle timer may run, late, before
     * the event loop reads the collections that waited in the socket meanwhile;
     * the stream must live on with what it reads next.
     */
    @Test
    void dataThatWaitedWhileTheParentStalledIsReadNotTimedOut() {
        EmbeddedChannel ch = stream();
        try {
            childSends(ch, "BEGIN a\n");
            // the parent is stopped for 37 s: nothing is read, and its timer runs first when it resumes
            advance(ch, 37_000);
            assertTrue(ch.isOpen(), "closed by its own timer before reading what waited in the socket");
            // then the event loop reads what the child sent during the stall
            childSends(ch, "BEGIN a\nSET x = 1\nEND\n");
            advance(ch, 1_000);
            assertTrue(ch.isOpen(), "closed although the child's data was read");
            // and a child that is really silent afterwards is still closed
            advance(ch, TIMEOUT_SECONDS * 1000L + 2_000);
            advance(ch, StreamHandshakeHandler.RECEIVE_TIMEOUT_CONFIRM_MILLIS);
            assertFalse(ch.isOpen(), "a silent child is closed");
            assertThrows(ReadTimeoutException.class, ch::checkException);
        } finally {
            ch.finishAndReleaseAll();
        }
    }

    /** Reading paused by this parent (its disk is behind): the children are not silent, they wait. */
    @Test
    void aStreamIsNotTimedOutWhileThisParentPausedReading() {
        EmbeddedChannel ch = stream();
        try {
            childSends(ch, "BEGIN a\n");
            ch.config().setAutoRead(false);
            advance(ch, 5L * TIMEOUT_SECONDS * 1000);
            assertTrue(ch.isOpen(), "closed while this parent was not reading");
            ch.config().setAutoRead(true);
            childSends(ch, "BEGIN a\n");
            advance(ch, TIMEOUT_SECONDS * 1000L + 2_000);
            advance(ch, StreamHandshakeHandler.RECEIVE_TIMEOUT_CONFIRM_MILLIS);
            assertFalse(ch.isOpen(), "silent since reading resumed: closed");
            assertThrows(ReadTimeoutException.class, ch::checkException);
        } finally {
            ch.finishAndReleaseAll();
        }
    }

    /** A child silent from the start is closed: the timeout, then its confirmation. */
    @Test
    void aSilentChildIsClosed() {
        EmbeddedChannel ch = stream();
        try {
            advance(ch, TIMEOUT_SECONDS * 1000L - 1);
            assertTrue(ch.isOpen());
            advance(ch, 1);
            assertTrue(ch.isOpen(), "the timeout is confirmed after the event loop's next reads");
            advance(ch, StreamHandshakeHandler.RECEIVE_TIMEOUT_CONFIRM_MILLIS);
            assertFalse(ch.isOpen());
            assertThrows(ReadTimeoutException.class, ch::checkException);
        } finally {
            ch.finishAndReleaseAll();
        }
    }
}
