package io.strata.replication.sender;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.strata.streaming.sender.SenderSession;
import io.strata.streaming.sender.SenderWireFormat;
import io.strata.streaming.wire.AsciiNumbers;
import io.strata.streaming.wire.LineTokenizer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;

/**
 * The commands a parent sends up a stream ({@code REPLAY_CHART}, {@code FUNCTION};
 * netdata-stream.md §6.2, §7), read the same way by every sender: a child streaming its own host
 * and a parent forwarding a received one. What differs between them (where the answer's points
 * come from, on which thread the answer is committed) is the {@link Target}.
 *
 * <p>Called from the sender's connection thread, one line at a time.
 */
public final class ParentCommandDispatcher {

    private static final Logger LOG = LoggerFactory.getLogger(ParentCommandDispatcher.class);
    private static final byte[] K_REPLAY_CHART = "REPLAY_CHART".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] K_FUNCTION = "FUNCTION".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] W_TRUE = "true".getBytes(StandardCharsets.US_ASCII);
    /** Netdata throttles replication while the send buffer is more than half full: this many waits of 10 ms at most. */
    private static final int HALF_FULL_WAITS = 100;

    /** What a sender does with the parent's commands. */
    public interface Target {

        /** {@code REPLAY_CHART "<chart id>" "<start streaming>" <after> <before>}. */
        void replayChart(SenderSession s, String chartId, boolean startStreaming, long after, long before);

        /**
         * A block answering a command ({@code FUNCTION}: a Strata sender registers no functions and
         * answers as a Netdata child does for an unknown one); the target commits it in order with
         * what it sends, or releases it.
         */
        void answer(SenderSession s, ByteBuf block);
    }

    private final String logName;
    private final Target target;
    private final LineTokenizer words = new LineTokenizer();

    /** @param logName how logs name the stream ({@code host} or {@code host [forward]}) */
    public ParentCommandDispatcher(String logName, Target target) {
        this.logName = logName;
        this.target = target;
    }

    /** One command line from the parent ({@code SenderListener.onParentCommand}). */
    public void dispatch(SenderSession s, byte[] line, int length) {
        int n = words.tokenize(line, 0, length);
        if (n == 0) {
            return;
        }
        if (words.wordEquals(0, K_REPLAY_CHART) && n >= 5) {
            String id = words.string(1);
            boolean start = words.wordEquals(2, W_TRUE);
            long after = AsciiNumbers.parseLongC(line, words.start(3), words.end(3));
            long before = AsciiNumbers.parseLongC(line, words.start(4), words.end(4));
            target.replayChart(s, id, start, after, before);
        } else if (words.wordEquals(0, K_FUNCTION) && n >= 2) {
            ByteBuf out = ByteBufAllocator.DEFAULT.buffer(256);
            SenderWireFormat.functionNotFound(out, words.string(1));
            target.answer(s, out);
        } else {
            LOG.info("STREAM {}: received unknown command from the parent: {}", logName,
                    new String(line, 0, Math.min(length, 200), StandardCharsets.UTF_8));
        }
    }

    /**
     * Waits, up to a second, while the session's send buffer is more than half full, as Netdata
     * holds replication back. False when the thread was interrupted (the answer is abandoned).
     */
    public static boolean holdBackWhileHalfFull(SenderSession s) {
        for (int i = 0; i < HALF_FULL_WAITS && s.isOpen() && s.halfFull(); i++) {
            if (!sleep(10)) {
                return false;
            }
        }
        return true;
    }

    /** Sleeps on the sender's thread; false when interrupted (the interrupt is kept). */
    public static boolean sleep(long millis) {
        try {
            Thread.sleep(millis);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
