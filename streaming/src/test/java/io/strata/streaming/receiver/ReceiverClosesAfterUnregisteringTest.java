package io.strata.streaming.receiver;

import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.streaming.auth.StreamAuthorizer;
import io.strata.streaming.auth.StreamConfig;
import io.strata.streaming.config.IniFile;
import io.strata.streaming.server.StreamServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A child that sees its parent close the stream and reconnects at once must be accepted: the
 * parent forgets the stream before it closes the socket, not when the close event comes round
 * on the event loop later. The test holds the event loop between the two (the listener's
 * {@code readComplete} runs after the parser's close and before {@code channelInactive}), which
 * makes the window that a busy machine opens by chance wide and certain.
 */
class ReceiverClosesAfterUnregisteringTest {

    static final String KEY = "11111111-2222-3333-4444-555555555555";
    static final String GUID = "5b8185c0-e5a4-11f1-9d33-02fc00000001";
    static final long CAPS_1_37_1 = 16376;

    @TempDir
    Path dir;
    StorageEngine engine;
    StreamServer server;
    ReceiverRegistry registry;
    int port;
    final AtomicBoolean holdEventLoopAfterRead = new AtomicBoolean();

    @BeforeEach
    void start() throws Exception {
        engine = StorageEngine.open(EngineConfig.defaults(dir.resolve("db")));
        StreamConfig conf = StreamConfig.from(IniFile.parse("[" + KEY + "]\n\tenabled = yes\n", "stream.conf"));
        StreamAuthorizer auth = new StreamAuthorizer(conf, true, CAPS_1_37_1, UUID.randomUUID().toString(), 0);
        registry = new ReceiverRegistry();
        ReceivedStreamListener slowAfterRead = stream -> new ReceivedStreamListener.Observer() {
            @Override
            public void readComplete() {
                if (holdEventLoopAfterRead.getAndSet(false)) {
                    try {
                        Thread.sleep(1500);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
        };
        ReceiverContext rc = new ReceiverContext(engine, auth, registry, ReceiverLimits.DEFAULTS, new ReceiverStats(),
                ReceiverContext.wallClockMicros(), 600, null).withListener(slowAfterRead);
        server = new StreamServer(rc, null, null, 1);
        port = server.bind(new InetSocketAddress("127.0.0.1", 0)).getPort();
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
        engine.close();
    }

    @Test
    void aChildReconnectingAsSoonAsItsStreamIsClosedIsAccepted() throws Exception {
        byte[] session = ReceiverVectorsTest.resource("01-plain-child_to_parent.raw.gz");
        int head = ReceiverVectorsTest.headEnd(session);
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(session, 0, head);
            s.getInputStream().read(new byte[100]);
            assertTrue(registry.isConnected(GUID));
            holdEventLoopAfterRead.set(true);
            s.getOutputStream().write("BEGIN \"no.such_chart\" 1000000\n".getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            while (in.read() >= 0) {
                // the parent closed the stream
            }
        }
        assertFalse(registry.isConnected(GUID), "the closed stream is still registered");
        try (Socket again = new Socket("127.0.0.1", port)) {
            again.setSoTimeout(10_000);
            again.getOutputStream().write(session, 0, head);
            byte[] reply = new byte[100];
            int n = again.getInputStream().read(reply);
            String text = n > 0 ? new String(reply, 0, n, StandardCharsets.US_ASCII) : "(nothing)";
            assertTrue(text.startsWith("Hit me baby"), "reconnection answered: " + text);
        }
    }
}
