package io.strata.streaming.receiver;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.HostInfo;
import io.strata.engine.meta.MetadataStore;
import io.strata.streaming.auth.StreamAuthorizer;
import io.strata.streaming.auth.StreamConfig;
import io.strata.streaming.config.IniFile;
import io.strata.streaming.handshake.Capabilities;
import io.strata.streaming.wire.StreamProtocolException;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Charts and dimensions per host are totals over every stream of the host: a child cannot grow the
 * parent's metadata by reconnecting with new charts. What is over a total is refused alone (counted),
 * the stream and what was stored go on.
 */
class HostTotalsTest {

    static final long T = 1_700_000_000L;

    @TempDir
    Path dir;

    private ReceiverParser parser(StorageEngine engine, UUID guid, ReceiverLimits limits, ReceiverStats stats) {
        return new ReceiverParser(engine, new HostInfo(guid, "child", "linux", "UTC", 1, null), line -> { },
                ReceiverReplication.NONE, false, limits, stats, () -> (T + 10) * 1_000_000L, null);
    }

    private static void feed(ReceiverParser p, String lines) throws StreamProtocolException {
        for (String l : lines.split("\n")) {
            byte[] b = l.getBytes(StandardCharsets.UTF_8);
            p.line(b, 0, b.length);
        }
    }

    private static String chart(String id, String... dims) {
        StringBuilder sb = new StringBuilder("CHART " + id + " '' 'T' 'x' f " + id + " line 100 1 '' '' ''\n");
        for (String d : dims) {
            sb.append("DIMENSION ").append(d).append(' ').append(d).append(" absolute 1 1 ''\n");
        }
        return sb.toString();
    }

    private static String collect(String id, String... dims) {
        StringBuilder sb = new StringBuilder("BEGIN " + id + " 1000000\n");
        for (String d : dims) {
            sb.append("SET ").append(d).append(" = 7\n");
        }
        return sb.append("END\n").toString();
    }

    @Test
    void chartsPerHostAreATotalOverTheHostsStreams() throws Exception {
        UUID guid = UUID.randomUUID();
        ReceiverLimits limits = ReceiverLimits.DEFAULTS.withHostTotals(3, 0);
        ReceiverStats stats = new ReceiverStats();
        try (StorageEngine engine = StorageEngine.open(EngineConfig.defaults(dir))) {
            MetadataStore md = engine.metadata();
            feed(parser(engine, guid, limits, stats), chart("a.a", "d") + chart("b.b", "d"));

            // the child reconnects with other charts: the host may hold three in all
            ReceiverParser second = parser(engine, guid, limits, stats);
            feed(second, chart("c.c", "d") + chart("x.x", "d") + collect("x.x", "d")
                    + chart("a.a", "d") + collect("a.a", "d") + collect("c.c", "d") + "FLUSH\n");
            int host = md.hostId(guid);
            assertEquals(3, md.chartsOfHost(host));
            assertEquals(-1, md.chartId(guid, "x.x"), "the chart over the total is not stored");
            assertTrue(md.chartId(guid, "a.a") >= 0, "a chart the host had is defined again at the limit");
            assertEquals(1, stats.chartsRefused.sum());
            assertEquals(2, second.chartCount());
            assertEquals(2, stats.samplesCollected.sum(), "the charts within the total are collected");

            // a chart of another host does not count against this one
            UUID other = UUID.randomUUID();
            feed(parser(engine, other, limits, stats), chart("x.x", "d"));
            assertTrue(md.chartId(other, "x.x") >= 0);
        }
    }

    @Test
    void dimensionsPerHostAreATotalAndTheRefusedOnesValuesAreSkipped() throws Exception {
        UUID guid = UUID.randomUUID();
        ReceiverLimits limits = ReceiverLimits.DEFAULTS.withHostTotals(0, 5);
        ReceiverStats stats = new ReceiverStats();
        try (StorageEngine engine = StorageEngine.open(EngineConfig.defaults(dir))) {
            MetadataStore md = engine.metadata();
            feed(parser(engine, guid, limits, stats), chart("a.a", "x", "y") + chart("b.b", "x", "y"));
            ReceiverParser second = parser(engine, guid, limits, stats);
            feed(second, chart("c.c", "x", "y", "z") + collect("c.c", "x", "y", "z")
                    + "RBEGIN c.c " + (T - 1) + " " + T + " " + (T + 1) + "\nRSET y 3 ''\nRSET x 2 ''\n"
                    + "REND 1 " + (T - 10) + " " + T + " true " + (T - 1) + " " + T + " " + (T + 1) + "\n"
                    + chart("a.a", "x", "y") + collect("a.a", "x", "y"));
            assertEquals(5, md.dimensionsOfHost(md.hostId(guid)));
            assertEquals(1, md.metrics(md.chartId(guid, "c.c")).size(), "c.c keeps its one dimension within the total");
            assertEquals(2, stats.dimensionsRefused.sum(), "y and z of c.c");
            assertEquals(3, stats.samplesCollected.sum(), "x of c.c, x and y of a.a");
        }
    }

    @Test
    void refusalsAreLoggedOncePerHostAndKindWithThePeersTextEscaped() throws Exception {
        Logger log = (Logger) LoggerFactory.getLogger(ReceiverParser.class);
        ListAppender<ILoggingEvent> lines = new ListAppender<>();
        lines.start();
        log.addAppender(lines);
        UUID guid = UUID.randomUUID();
        ReceiverStats stats = new ReceiverStats();
        try (StorageEngine engine = StorageEngine.open(EngineConfig.defaults(dir))) {
            // a hostname that would forge a second log line if written as it is
            ReceiverParser p = new ReceiverParser(engine, new HostInfo(guid, "evil\nFAKE ERROR", "linux", "UTC", 1,
                    null), line -> { }, ReceiverReplication.NONE, false, ReceiverLimits.DEFAULTS.withHostTotals(1, 2),
                    stats, () -> (T + 10) * 1_000_000L, null);
            StringBuilder flood = new StringBuilder(chart("a.a", "x", "y", "z"));
            for (int i = 0; i < 50; i++) {
                flood.append(chart("n.c" + i, "d"));
            }
            feed(p, flood.toString());
            assertEquals(50, stats.chartsRefused.sum());
            assertEquals(1, stats.dimensionsRefused.sum());
        } finally {
            log.detachAppender(lines);
        }
        List<String> refusals = lines.list.stream().map(ILoggingEvent::getFormattedMessage)
                .filter(m -> m.contains(guid.toString())).toList();
        assertEquals(2, refusals.size(), "one line per kind: " + refusals);
        String charts = refusals.stream().filter(m -> m.contains("chart 'n.c0' refused")).findFirst().orElseThrow();
        assertTrue(charts.contains("host 'evil\\x0aFAKE ERROR'") && !charts.contains("\n"), charts);
        assertTrue(charts.contains("the host has 1 charts, its limit (max charts per host in stream.conf)"), charts);
        assertTrue(refusals.stream().anyMatch(m -> m.contains("dimension 'z' of chart 'a.a' refused")), refusals.toString());
    }

    @Test
    void theTotalsOfStreamConfApplyToAStreamAcceptedThroughTheHandshake() throws Exception {
        String key = "11111111-2222-3333-4444-55555555bbbb";
        UUID guid = UUID.randomUUID();
        // the GUID's section (written in upper case) raises [stream]'s bound for this host only
        StreamConfig conf = StreamConfig.from(IniFile.parse(String.join("\n", "[stream]", "max charts per host = 1",
                "[" + key + "]", "enabled = yes",
                "[" + guid.toString().toUpperCase(Locale.ROOT) + "]", "max charts per host = 2"), "stream.conf"));
        try (StorageEngine engine = StorageEngine.open(EngineConfig.defaults(dir))) {
            ReceiverStats stats = new ReceiverStats();
            ReceiverContext rc = new ReceiverContext(engine,
                    new StreamAuthorizer(conf, true, Capabilities.NETDATA_1_37_1, UUID.randomUUID().toString(), 0),
                    new ReceiverRegistry(), ReceiverLimits.DEFAULTS, stats, () -> T * 1_000_000L, 600, null);
            EmbeddedChannel ch = new EmbeddedChannel(new StreamHandshakeHandler(rc));
            try {
                long caps = Capabilities.NETDATA_1_37_1 & ~Capabilities.COMPRESSION & ~Capabilities.REPLICATION;
                ch.writeInbound(ascii("STREAM key=" + key + "&hostname=h&machine_guid=" + guid + "&ver=" + caps
                        + " HTTP/1.1\r\n\r\n"));
                ByteBuf reply = ch.readOutbound();
                assertTrue(reply.toString(StandardCharsets.US_ASCII).startsWith("Hit me baby"));
                reply.release();
                ch.writeInbound(ascii(chart("a.a", "d") + chart("b.b", "d") + chart("c.c", "d")
                        + collect("c.c", "d") + collect("a.a", "d")));
                assertTrue(ch.isActive(), "the stream goes on");
                MetadataStore md = engine.metadata();
                assertEquals(2, md.chartsOfHost(md.hostId(guid)));
                assertEquals(1, stats.chartsRefused.sum());
                assertEquals(0, stats.protocolErrors.sum());
            } finally {
                ch.finishAndReleaseAll();
            }
        }
    }

    private static ByteBuf ascii(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.US_ASCII);
    }
}
