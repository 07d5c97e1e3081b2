package io.strata.streaming.receiver;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelConfig;
import io.netty.channel.DefaultChannelConfig;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

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

    /**
     * A stream accepted while the parent resumes reading: the resume may come between the
     * registration's look at "paused" and its pausing of the new socket, which must not leave that
     * socket paused for good. The resume is run, on another thread, at that very moment; it either
     * completes there or waits for the registration to finish.
     */
    @Test
    void aResumeDuringARegistrationLeavesTheNewStreamReading() throws Exception {
        ReceiverRegistry registry = new ReceiverRegistry();
        registry.setReadingPaused(true);
        Thread[] resumer = new Thread[1];
        PausingHookChannel ch = new PausingHookChannel(() -> {
            resumer[0] = new Thread(() -> registry.setReadingPaused(false), "resumer");
            resumer[0].start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (resumer[0].isAlive() && resumer[0].getState() != Thread.State.BLOCKED
                    && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
        });
        try {
            registry.register(GUID_A, "a", 1, ch, 0);
            resumer[0].join(TimeUnit.SECONDS.toMillis(30));
            assertFalse(resumer[0].isAlive(), "the resume finished");
            assertFalse(registry.readingPaused());
            assertTrue(ch.config().isAutoRead(), "the stream accepted during the resume reads");
        } finally {
            ch.finishAndReleaseAll();
        }
    }

    /** A channel whose first pausing ({@code setAutoRead(false)}) runs a hook just before it takes effect. */
    private static final class PausingHookChannel extends EmbeddedChannel {
        private Runnable beforePause;
        private ChannelConfig config;

        PausingHookChannel(Runnable beforePause) {
            this.beforePause = beforePause;
        }

        @Override
        public synchronized ChannelConfig config() {
            if (config == null) {
                config = new DefaultChannelConfig(this) {
                    @Override
                    public ChannelConfig setAutoRead(boolean autoRead) {
                        Runnable hook = takeHook(autoRead);
                        if (hook != null) {
                            hook.run();
                        }
                        return super.setAutoRead(autoRead);
                    }
                };
            }
            return config;
        }

        private synchronized Runnable takeHook(boolean autoRead) {
            Runnable hook = autoRead ? null : beforePause;
            if (hook != null) {
                beforePause = null;
            }
            return hook;
        }
    }
}
