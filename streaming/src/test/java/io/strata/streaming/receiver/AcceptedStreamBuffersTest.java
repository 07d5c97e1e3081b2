package io.strata.streaming.receiver;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.streaming.auth.StreamAuthorizer;
import io.strata.streaming.auth.StreamConfig;
import io.strata.streaming.config.IniFile;
import io.strata.streaming.handshake.Capabilities;
import io.strata.streaming.wire.Lz4StreamFrameDecoder;
import io.strata.streaming.wire.Lz4StreamFrameEncoder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A stream accepted by the handshake holds no decode buffers until its first byte: a parent accepts
 * streams that send nothing (a child reconnecting at once, a storm of 500 of them every second), and
 * the 260 KiB each held from its acceptance (the LZ4 history and the line buffer) was heap the young
 * collections copied while those connections were open.
 */
class AcceptedStreamBuffersTest {

    static final long T = 1_700_000_000L;
    static final String KEY = "11111111-2222-3333-4444-55555555cccc";

    @TempDir
    Path dir;

    @Test
    void anLz4StreamHoldsItsBuffersFromItsFirstBlockOnNotFromItsAcceptance() throws Exception {
        StreamConfig conf = StreamConfig.from(IniFile.parse(String.join("\n", "[" + KEY + "]", "enabled = yes"),
                "stream.conf"));
        UUID guid = UUID.randomUUID();
        try (StorageEngine engine = StorageEngine.open(EngineConfig.defaults(dir))) {
            ReceiverContext rc = new ReceiverContext(engine,
                    new StreamAuthorizer(conf, true, Capabilities.NETDATA_1_37_1, UUID.randomUUID().toString(), 0),
                    new ReceiverRegistry(), ReceiverLimits.DEFAULTS, new ReceiverStats(), () -> T * 1_000_000L, 600,
                    null);
            EmbeddedChannel ch = new EmbeddedChannel(new StreamHandshakeHandler(rc));
            EmbeddedChannel encoder = new EmbeddedChannel(new Lz4StreamFrameEncoder(false));
            try {
                long caps = Capabilities.NETDATA_1_37_1 & ~Capabilities.REPLICATION;
                ch.writeInbound(ascii("STREAM key=" + KEY + "&hostname=h&machine_guid=" + guid + "&ver=" + caps
                        + " HTTP/1.1\r\n\r\n"));
                ByteBuf reply = ch.readOutbound();
                assertTrue(reply.toString(StandardCharsets.US_ASCII).startsWith("Hit me baby"));
                reply.release();
                Lz4StreamFrameDecoder lz4 = ch.pipeline().get(Lz4StreamFrameDecoder.class);
                StreamReceiverHandler receiver = ch.pipeline().get(StreamReceiverHandler.class);
                assertTrue(lz4 != null && receiver != null, "the accepted stream decodes LZ4: " + ch.pipeline().names());
                assertEquals(0, lz4.heldBytes(), "LZ4 history held by a stream that sent nothing");
                assertEquals(0, receiver.heldBytes(), "line buffer held by a stream that sent nothing");

                encoder.writeOutbound(ascii("CHART a.a '' 'T' 'x' f a.a line 100 1 '' '' ''\n"
                        + "DIMENSION d d absolute 1 1 ''\n"));
                ByteBuf block = encoder.readOutbound();
                ch.writeInbound(block);
                assertTrue(ch.isActive(), "the stream goes on");
                assertTrue(lz4.heldBytes() > 0 && receiver.heldBytes() > 0, "the buffers exist once data came");
                assertTrue(engine.metadata().hostId(guid) >= 0);
                assertEquals(1, engine.metadata().chartsOfHost(engine.metadata().hostId(guid)));
            } finally {
                encoder.finishAndReleaseAll();
                ch.finishAndReleaseAll();
            }
        }
    }

    private static ByteBuf ascii(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.US_ASCII);
    }
}
