package io.strata.streaming.receiver;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.streaming.auth.StreamAuthorizer;
import io.strata.streaming.auth.StreamConfig;
import io.strata.streaming.config.IniFile;
import io.strata.streaming.handshake.Capabilities;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A child that defines charts but never reads its socket: the parent's {@code REPLAY_CHART}
 * requests must not pile up in the channel. While the channel is not writable, the requests wait in
 * the charts (one at most per chart) and go out when it is writable again, as many as it takes.
 */
class ReplayRequestBackPressureTest {

    static final String KEY = "11111111-2222-3333-4444-555555555555";
    static final int CHARTS = 1000;

    @TempDir
    Path dir;

    /** Counts the command lines written, and makes the channel unwritable after {@code room} of them. */
    static final class Socket extends ChannelOutboundHandlerAdapter {
        int lines;
        int room = Integer.MAX_VALUE;

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            if (msg instanceof ByteBuf b && b.toString(StandardCharsets.US_ASCII).startsWith("REPLAY_CHART")) {
                lines++;
                if (--room == 0) {
                    ctx.channel().unsafe().outboundBuffer().setUserDefinedWritability(1, false);
                }
            }
            ctx.write(msg, promise);
        }
    }

    @Test
    void replayRequestsWaitWhileTheChildDoesNotReadAndAllGoOutWhenItDoes() throws Exception {
        try (StorageEngine engine = StorageEngine.open(EngineConfig.defaults(dir))) {
            StreamConfig conf = StreamConfig.from(IniFile.parse("[" + KEY + "]\n\tenabled = yes\n", "stream.conf"));
            StreamAuthorizer auth = new StreamAuthorizer(conf, true, Capabilities.NETDATA_1_37_1,
                    UUID.randomUUID().toString(), 0);
            ReceiverContext rc = new ReceiverContext(engine, auth, new ReceiverRegistry(), ReceiverLimits.DEFAULTS,
                    new ReceiverStats(), ReceiverContext.wallClockMicros(), 600, null);
            Socket socket = new Socket();
            EmbeddedChannel ch = new EmbeddedChannel(socket, new StreamHandshakeHandler(rc));
            try {
                long caps = Capabilities.NETDATA_1_37_1 & ~Capabilities.COMPRESSION;
                ch.writeInbound(ascii("STREAM key=" + KEY + "&hostname=h&machine_guid=" + UUID.randomUUID()
                        + "&ver=" + caps + " HTTP/1.1\r\nUser-Agent: netdata/v1.37.1\r\n\r\n"));
                ByteBuf reply = ch.readOutbound();
                assertTrue(reply.toString(StandardCharsets.US_ASCII).startsWith("Hit me baby"));
                reply.release();

                // the child's socket is full: it reads nothing
                ch.unsafe().outboundBuffer().setUserDefinedWritability(1, false);
                long now = System.currentTimeMillis() / 1000;
                StringBuilder definitions = new StringBuilder();
                for (int i = 0; i < CHARTS; i++) {
                    definitions.append("CHART c.c").append(i).append(" '' 'C' 'x' c c.c line 100 1 '' '' ''\n")
                            .append("DIMENSION d d absolute 1 1 ''\n")
                            .append("CHART_DEFINITION_END ").append(now - 100).append(' ').append(now).append(' ')
                            .append(now).append('\n');
                }
                ch.writeInbound(ascii(definitions.toString()));
                assertEquals(0, socket.lines, "requests written to a channel that is not writable");

                // the child reads a little: 100 requests fit, then the channel is full again
                socket.room = 100;
                ch.unsafe().outboundBuffer().setUserDefinedWritability(1, true);
                ch.runPendingTasks();
                assertEquals(100, socket.lines, "requests written beyond what the channel took");

                // the child reads everything: every chart got its request, once
                socket.room = Integer.MAX_VALUE;
                ch.unsafe().outboundBuffer().setUserDefinedWritability(1, true);
                ch.runPendingTasks();
                assertEquals(CHARTS, socket.lines);
            } finally {
                ch.finishAndReleaseAll();
            }
        }
    }

    private static ByteBuf ascii(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.US_ASCII);
    }
}
