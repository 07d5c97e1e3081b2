package io.strata.engine.io;

import java.lang.reflect.Method;
import java.nio.channels.FileChannel;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes the engine's file channels ignore their callers' interrupts. The JDK closes a
 * {@code FileChannel} whose caller is interrupted inside a read, write or force (or enters one
 * interrupted), for every thread: a stream sender stopped while it answered a replication request
 * from disk left that datafile unreadable to every query, and, where reads share the writer's
 * channel, unwritable to the flusher. The JDK's own file channel has a switch for this, which its
 * internal users set; it is reached through {@code --add-exports java.base/sun.nio.ch=ALL-UNNAMED},
 * among the JVM flags the project runs with (Chronicle Bytes needs it too). Without it the
 * channels stay interruptible, and the engine says so once.
 */
final class UninterruptibleChannels {

    private static final Logger LOG = LoggerFactory.getLogger(UninterruptibleChannels.class);
    private static final Class<?> IMPL;
    private static final Method SET_UNINTERRUPTIBLE;
    private static volatile boolean warned;

    static {
        Class<?> impl = null;
        Method set = null;
        try {
            impl = Class.forName("sun.nio.ch.FileChannelImpl");
            set = impl.getMethod("setUninterruptible");
        } catch (ReflectiveOperationException | RuntimeException e) {
            impl = null;
            set = null;
        }
        IMPL = impl;
        SET_UNINTERRUPTIBLE = set;
    }

    private UninterruptibleChannels() {
    }

    /** {@code ch}, made uninterruptible where the JDK allows it. */
    static FileChannel of(FileChannel ch) {
        if (IMPL != null && IMPL.isInstance(ch)) {
            try {
                SET_UNINTERRUPTIBLE.invoke(ch);
                return ch;
            } catch (ReflectiveOperationException | RuntimeException e) {
                warnOnce(e);
            }
        } else {
            warnOnce(null);
        }
        return ch;
    }

    private static void warnOnce(Exception why) {
        if (!warned) {
            warned = true;
            LOG.warn("file channels stay interruptible ({}): a thread interrupted while it reads or writes the"
                    + " database closes that file for every thread; run with"
                    + " --add-exports java.base/sun.nio.ch=ALL-UNNAMED", why == null ? "not the JDK's file channel"
                    : why.toString());
        }
    }
}
