package io.strata.streaming.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.streaming.auth.StreamAuthorizer;
import io.strata.streaming.auth.StreamConfig;
import io.strata.streaming.config.IniFile;
import io.strata.streaming.handshake.Capabilities;
import io.strata.streaming.receiver.ReceiverContext;
import io.strata.streaming.receiver.ReceiverLimits;
import io.strata.streaming.receiver.ReceiverRegistry;
import io.strata.streaming.receiver.ReceiverStats;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.UUID;
import java.util.concurrent.RejectedExecutionException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Closing the port closes the connections it accepted. Shutting an event loop down with no quiet
 * period does not: a loop that sees the shutdown between its close-everything step and its last
 * check ends with its channels still open (Netty 4.2's {@code SingleThreadIoEventLoop}), and the
 * client then waits on a connection nobody serves while the node keeps its descriptor.
 */
class StreamServerCloseTest {

    /** Rounds of start, connect, close: the loop's window is narrow, so one round proves little. */
    static final int ROUNDS = 25;
    static final int WAIT_MILLIS = 5_000;

    @TempDir
    Path dir;
    StorageEngine engine;
    ReceiverContext rc;

    @BeforeEach
    void open() throws Exception {
        engine = StorageEngine.open(EngineConfig.defaults(dir.resolve("db")));
        StreamConfig conf = StreamConfig.from(IniFile.parse("[" + PortDefencesTest.KEY + "]\n\tenabled = yes\n",
                "stream.conf"));
        rc = new ReceiverContext(engine, new StreamAuthorizer(conf, true, Capabilities.NETDATA_1_37_1,
                UUID.randomUUID().toString(), 0), new ReceiverRegistry(), ReceiverLimits.DEFAULTS, new ReceiverStats(),
                ReceiverContext.wallClockMicros(), 600, null);
    }

    @AfterEach
    void close() throws Exception {
        engine.close();
    }

    /**
     * An HTTP side that answers every request head with "OK" and keeps the connection (keep-alive),
     * and from then on keeps its event loop busy while the connection is open, as streams arriving
     * all the time do on a node's worker loops.
     */
    static final HttpPipelineInstaller BUSY_KEEP_ALIVE_HTTP = (p, conn) -> p.addLast(new ChannelInboundHandlerAdapter() {
        final StringBuilder head = new StringBuilder();

        final class Busy implements Runnable {
            final ChannelHandlerContext ctx;

            Busy(ChannelHandlerContext ctx) {
                this.ctx = ctx;
            }

            @Override
            public void run() {
                if (ctx.channel().isActive()) {
                    try {
                        ctx.executor().execute(this);
                    } catch (RejectedExecutionException shuttingDown) {
                        // the loop takes no more work: its end is what the test looks at
                    }
                }
            }
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf b = (ByteBuf) msg;
            head.append(b.toString(StandardCharsets.ISO_8859_1));
            b.release();
            if (head.indexOf("\r\n\r\n") >= 0) {
                head.setLength(0);
                conn.handshakeDone().run();
                ctx.writeAndFlush(Unpooled.copiedBuffer("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nOK",
                        StandardCharsets.US_ASCII));
                ctx.executor().execute(new Busy(ctx));
            }
        }
    });

    @Test
    void closingThePortClosesTheConnectionsItServes() throws Exception {
        for (int round = 1; round <= ROUNDS; round++) {
            StreamServer server = new StreamServer(rc, null, BUSY_KEEP_ALIVE_HTTP, 1);
            int port;
            try {
                port = server.bind(new InetSocketAddress("127.0.0.1", 0)).getPort();
            } catch (Exception e) {
                server.close();
                throw e;
            }
            try (Socket s = new Socket()) {
                try {
                    s.connect(new InetSocketAddress("127.0.0.1", port), WAIT_MILLIS);
                    s.setSoTimeout(WAIT_MILLIS);
                    s.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                    InputStream in = s.getInputStream();
                    String answer = new String(in.readNBytes(40), StandardCharsets.US_ASCII);
                    assertEquals("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nOK", answer);
                } finally {
                    server.close();
                }
                try {
                    int b = s.getInputStream().read();
                    assertEquals(-1, b, "round " + round + ": bytes after the port closed");
                } catch (SocketTimeoutException e) {
                    fail("round " + round + ": the connection is still open " + WAIT_MILLIS + " ms after the port"
                            + " closed");
                } catch (SocketException reset) {
                    // closed with a reset: closed as well
                }
            }
        }
    }
}
