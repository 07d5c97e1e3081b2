package io.strata.streaming.load;

import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.streaming.auth.StreamAuthorizer;
import io.strata.streaming.auth.StreamConfig;
import io.strata.streaming.config.IniFile;
import io.strata.streaming.handshake.Capabilities;
import io.strata.streaming.handshake.HandshakeReplies;
import io.strata.streaming.handshake.StreamRequest;
import io.strata.streaming.receiver.ReceiverContext;
import io.strata.streaming.receiver.ReceiverLimits;
import io.strata.streaming.receiver.ReceiverRegistry;
import io.strata.streaming.receiver.ReceiverStats;
import io.strata.streaming.server.StreamServer;
import io.strata.streaming.wire.StreamFrameHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A parent that has ZSTD: a fleet offering ZSTD and LZ4 streams with ZSTD and every sample arrives,
 * while a child whose ZSTD stream breaks is closed alone.
 */
class ZstdStreamsTest {

    static final String KEY = "11111111-2222-3333-4444-555555555555";
    static final int CHILDREN = 3;
    static final int METRICS = 200;

    @TempDir
    Path dir;
    StorageEngine engine;
    StreamServer server;
    ReceiverStats stats;
    ReceiverRegistry registry;
    int port;

    @BeforeEach
    void start() throws Exception {
        engine = StorageEngine.open(EngineConfig.defaults(dir.resolve("db")));
        StreamConfig conf = StreamConfig.from(IniFile.parse("[" + KEY + "]\n\tenabled = yes\n", "stream.conf"));
        StreamAuthorizer auth = new StreamAuthorizer(conf, true, Capabilities.NETDATA_1_37_1 | Capabilities.ZSTD,
                UUID.randomUUID().toString(), 0);
        stats = new ReceiverStats();
        registry = new ReceiverRegistry();
        ReceiverContext rc = new ReceiverContext(engine, auth, registry, ReceiverLimits.DEFAULTS, stats,
                ReceiverContext.wallClockMicros(), 600, null);
        server = new StreamServer(rc, null, null, 2);
        port = server.bind(new InetSocketAddress("127.0.0.1", 0)).getPort();
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
        engine.close();
    }

    @Test
    void aBrokenZstdStreamIsClosedAloneWhileTheOthersDeliverEverySample() throws Exception {
        try (Socket broken = new Socket("127.0.0.1", port)) {
            broken.setSoTimeout(30_000);
            OutputStream out = broken.getOutputStream();
            InputStream in = broken.getInputStream();
            UUID guid = UUID.randomUUID();
            out.write(StreamRequest.builder().key(KEY).hostname("broken").registryHostname("broken")
                    .machineGuid(guid.toString()).updateEvery(1)
                    .ver(Capabilities.VCAPS | Capabilities.COMPRESSION | Capabilities.ZSTD).build().encode());
            out.flush();
            byte[] buf = new byte[4096];
            int n = in.read(buf);
            HandshakeReplies.Reply reply = HandshakeReplies.parseReply(buf, n);
            assertEquals(Capabilities.VCAPS | Capabilities.ZSTD, reply.capabilities(),
                    new String(buf, 0, n, StandardCharsets.US_ASCII));

            LoadGenerator.Result result = new LoadGenerator().run(new LoadGenerator.Options("127.0.0.1", port,
                    CHILDREN, METRICS, 10, 2.0, true, KEY, 50, 42, true));

            // a block of garbage behind a valid signature: zstd refuses it, the parent closes this stream
            ByteBuf garbage = Unpooled.buffer();
            StreamFrameHeader.write(garbage, 64);
            for (int i = 0; i < 64; i++) {
                garbage.writeByte(0xFF);
            }
            byte[] bytes = new byte[garbage.readableBytes()];
            garbage.readBytes(bytes);
            out.write(bytes);
            out.flush();
            long deadline = System.nanoTime() + 30_000_000_000L;
            int read = 0;
            while (read >= 0 && System.nanoTime() < deadline) {
                try {
                    read = in.read(buf);
                } catch (SocketTimeoutException e) {
                    break;
                }
            }
            assertEquals(-1, read, "the parent did not close the broken stream");

            assertEquals(CHILDREN, result.childrenAccepted(), "refusals: " + result.refusals());
            assertEquals(List.of(), result.errors());
            assertTrue(result.samplesSent() > 0);
            // ZSTD on the wire: a fraction of the text
            assertTrue(result.wireBytes() * 2 < result.uncompressedBytes(),
                    result.wireBytes() + " bytes on the wire for " + result.uncompressedBytes() + " of text");
            long collected = collectedOnceTheStreamsAreClosed();
            assertEquals(result.samplesSent(), collected, "samples collected by the parent");
            assertEquals(1, stats.protocolErrors.sum(), "the broken stream's error, and no other");
            assertEquals(CHILDREN + 1, stats.connectionsAccepted.sum());
        }
    }

    long collectedOnceTheStreamsAreClosed() throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (registry.connected() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertEquals(0, registry.connected(), "streams still open on the parent");
        long last = -1;
        long now = stats.samplesCollected.sum();
        while (now != last && System.nanoTime() < deadline) {
            Thread.sleep(250);
            last = now;
            now = stats.samplesCollected.sum();
        }
        return now;
    }
}
