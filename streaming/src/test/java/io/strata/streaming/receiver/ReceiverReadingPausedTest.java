package io.strata.streaming.receiver;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A parent whose disk is behind stops reading from every received stream, those accepted while it
 * is behind included, and reads again once the disk catches up: the children's sockets push back
 * instead of the parent dropping pages.
 */
class ReceiverReadingPausedTest {

    static final String GUID_A = "5b8185c0-e5a4-11f1-9d33-02fc00000001";
    static final String GUID_B = "5b8185c0-e5a4-11f1-9d33-02fc00000002";

    @Test
    void pausedStreamsAndThoseAcceptedMeanwhileReadNothingUntilResumed() {
        ReceiverRegistry registry = new ReceiverRegistry();
        EmbeddedChannel a = new EmbeddedChannel();
        EmbeddedChannel b = new EmbeddedChannel();
        try {
            registry.register(GUID_A, "a", 1, a, 0);
            assertTrue(a.config().isAutoRead());

            registry.setReadingPaused(true);
            assertTrue(registry.readingPaused());
            assertFalse(a.config().isAutoRead(), "a stream received before the disk fell behind");
            registry.register(GUID_B, "b", 1, b, 0);
            assertFalse(b.config().isAutoRead(), "a stream accepted while the disk is behind");

            registry.setReadingPaused(false);
            assertTrue(a.config().isAutoRead());
            assertTrue(b.config().isAutoRead());
            // nothing was lost on the way: what the socket had is read once reading resumes
            a.writeInbound(Unpooled.copiedBuffer("BEGIN x\n", StandardCharsets.US_ASCII));
            ByteBuf read = a.readInbound();
            try {
                assertEquals("BEGIN x\n", read.toString(StandardCharsets.US_ASCII));
            } finally {
                read.release();
            }
        } finally {
            a.finishAndReleaseAll();
            b.finishAndReleaseAll();
        }
    }
}
