package io.strata.streaming.receiver;

import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.HostInfo;
import io.strata.engine.meta.MetadataStore;
import io.strata.streaming.auth.StreamAuthorizer;
import io.strata.streaming.auth.StreamConfig;
import io.strata.streaming.config.IniFile;
import io.strata.streaming.server.StreamServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Real bytes of real Netdata 1.37.1 children, replayed into a Strata parent over a socket: plain,
 * LZ4 (streaming dictionary) and a reconnect whose replication answers fill a gap.
 */
class ReceiverVectorsTest {

    static final String KEY = "11111111-2222-3333-4444-555555555555";
    static final long CAPS_1_37_1 = 16376;

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
        StreamAuthorizer auth = new StreamAuthorizer(conf, true, CAPS_1_37_1, UUID.randomUUID().toString(), 0);
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

    static byte[] resource(String name) throws IOException {
        try (InputStream in = new GZIPInputStream(ReceiverVectorsTest.class.getResourceAsStream(
                "/vectors/receiver/" + name))) {
            return in.readAllBytes();
        }
    }

    static int headEnd(byte[] b) {
        for (int i = 0; i + 3 < b.length; i++) {
            if (b[i] == '\r' && b[i + 1] == '\n' && b[i + 2] == '\r' && b[i + 3] == '\n') {
                return i + 4;
            }
        }
        throw new IllegalArgumentException("no request head");
    }

    /** Sends the captured session; returns what the parent wrote back. */
    String replay(byte[] session) throws Exception {
        int head = headEnd(session);
        ByteArrayOutputStream fromParent = new ByteArrayOutputStream();
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            InputStream in = s.getInputStream();
            out.write(session, 0, head);
            out.flush();
            byte[] buf = new byte[8192];
            int n = in.read(buf);
            assertTrue(n > 0, "no reply");
            String reply = new String(buf, 0, n, StandardCharsets.US_ASCII);
            assertTrue(reply.startsWith("Hit me baby, push them over with the version="), reply);
            fromParent.write(buf, 0, n);
            // the parent may be silent for long on a busy machine while it parses the session:
            // the reader waits for the parent's close, bounded by the join below
            s.setSoTimeout(0);
            Thread reader = new Thread(() -> {
                try {
                    int r;
                    while ((r = in.read(buf)) > 0) {
                        synchronized (fromParent) {
                            fromParent.write(buf, 0, r);
                        }
                    }
                } catch (IOException ignored) {
                    // socket closed by the test
                }
            });
            reader.start();
            // in uneven pieces, as TCP delivers them
            java.util.Random rnd = new java.util.Random(7);
            int pos = head;
            while (pos < session.length) {
                int len = Math.min(session.length - pos, 1 + rnd.nextInt(20_000));
                out.write(session, pos, len);
                pos += len;
            }
            out.flush();
            // The end of the session: the parent reads every byte before the end of the stream
            // (TCP keeps the order), then closes, after its last answer. Its close, not a pause in
            // what it receives, says that it has parsed everything.
            s.shutdownOutput();
            reader.join(120_000);
            assertFalse(reader.isAlive(), "the parent did not close the stream within 120 s of its end");
        }
        synchronized (fromParent) {
            return fromParent.toString(StandardCharsets.US_ASCII);
        }
    }

    static Set<String> charts(String text) {
        Set<String> ids = new HashSet<>();
        Matcher m = Pattern.compile("(?m)^CHART \"([^\"]+)\"").matcher(text);
        while (m.find()) {
            ids.add(m.group(1));
        }
        return ids;
    }

    private void assertHostAndCharts(String guid, String hostname, Set<String> expected) {
        MetadataStore meta = engine.metadata();
        int host = meta.hostId(UUID.fromString(guid));
        assertTrue(host >= 0, "host unknown");
        assertEquals(hostname, meta.host(host).hostname());
        Set<String> got = new HashSet<>();
        for (int c : meta.charts(host)) {
            got.add(meta.chart(c).id());
        }
        assertEquals(expected, got);
        assertEquals("hello world", meta.host(host).labels().get("testlabel"));
    }

    @Test
    void plainStreamOfARealChild() throws Exception {
        checkPlainSession(0);
    }

    private void checkPlainSession(long errorsBefore) throws Exception {
        byte[] session = resource("01-plain-child_to_parent.raw.gz");
        String text = new String(session, StandardCharsets.ISO_8859_1);
        String back = replay(session);
        assertEquals(errorsBefore, stats.protocolErrors.sum());
        Set<String> expected = charts(text);
        assertTrue(expected.size() > 200, "charts in the capture: " + expected.size());
        assertHostAndCharts("5b8185c0-e5a4-11f1-9d33-02fc00000001", "ndchild", expected);
        HostInfo host = engine.metadata().host(engine.metadata().hostId(
                UUID.fromString("5b8185c0-e5a4-11f1-9d33-02fc00000001")));
        // the labels in the order the child sent them (Netdata lists them so)
        List<String> sent = new ArrayList<>();
        Matcher label = Pattern.compile("(?m)^LABEL \"([^\"]+)\" = ").matcher(text);
        while (label.find() && !sent.contains(label.group(1))) {
            sent.add(label.group(1));
        }
        assertEquals(sent, new ArrayList<>(host.labels().keySet()));
        // the handshake's system facts, under the names Netdata's receiver stores them (info answers from them)
        assertEquals("unknown", host.systemInfo().get("NETDATA_HOST_OS_ID"));
        assertEquals("debian", host.systemInfo().get("NETDATA_CONTAINER_OS_ID"));
        assertEquals("x86_64", host.systemInfo().get("NETDATA_SYSTEM_ARCHITECTURE"));
        // one REPLAY_CHART per chart definition end
        int ends = text.split("\nCHART_DEFINITION_END ", -1).length - 1;
        int replays = back.split("REPLAY_CHART \"", -1).length - 1;
        assertEquals(ends, replays);
        assertTrue(stats.samplesCollected.sum() > 10_000, "samples: " + stats.samplesCollected.sum());
    }

    @Test
    void lz4StreamOfARealChild() throws Exception {
        byte[] session = resource("02-lz4-child_to_parent.raw.gz");
        replay(session);
        assertEquals(0, stats.protocolErrors.sum());
        assertTrue(stats.samplesCollected.sum() > 10_000, "samples: " + stats.samplesCollected.sum());
        MetadataStore meta = engine.metadata();
        assertEquals(1, meta.hosts().size());
        assertTrue(meta.chartCount() > 200);
    }

    @Test
    void replicationAnswersAreStoredAsGiven() throws Exception {
        byte[] session = resource("03-replication-conn3_c2p.raw.gz");
        String text = new String(session, StandardCharsets.ISO_8859_1);
        replay(session);
        assertEquals(0, stats.protocolErrors.sum());
        long rsets = text.split("\nRSET ", -1).length - 1;
        assertTrue(rsets > 1000, "RSET lines in capture: " + rsets);
        assertEquals(rsets, stats.samplesReplayed.sum());
        // a replayed value: the first RSET of system.cpu is stored at its RBEGIN's end time
        Matcher m = Pattern.compile("RBEGIN \"system\\.cpu\"\\nRBEGIN '' (\\d+) (\\d+) \\d+\\nRSET \"([^\"]+)\" ([-0-9.]+) \"\"")
                .matcher(text);
        assertTrue(m.find(), "system.cpu replication answer in the capture");
        long end = Long.parseLong(m.group(2));
        String dim = m.group(3);
        double value = Double.parseDouble(m.group(4));
        MetadataStore meta = engine.metadata();
        UUID host = meta.hosts().get(0).machineGuid();
        int metric = engine.registry().lookup(io.strata.engine.meta.DimensionInfo.metricUuid(host, "system.cpu", dim));
        double[] got = {Double.NaN};
        engine.queryTier0(metric, end - 1, end, (t, sn) -> got[0] = io.strata.engine.page.StorageNumber.unpack(sn));
        assertEquals(value, got[0], Math.abs(value) * 1e-6 + 1e-7);
    }

    @Test
    void secondConnectionOfAStreamingHostIsRefusedLikeNetdata() throws Exception {
        byte[] session = resource("01-plain-child_to_parent.raw.gz");
        int head = headEnd(session);
        try (Socket first = new Socket("127.0.0.1", port)) {
            first.getOutputStream().write(session, 0, Math.min(session.length, head + 100_000));
            first.getInputStream().read(new byte[100]);
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (!registry.isConnected("5b8185c0-e5a4-11f1-9d33-02fc00000001") && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertTrue(registry.isConnected("5b8185c0-e5a4-11f1-9d33-02fc00000001"), "the first stream registered");
            try (Socket second = new Socket("127.0.0.1", port)) {
                second.getOutputStream().write(session, 0, head);
                byte[] reply = second.getInputStream().readAllBytes();
                assertEquals("This GUID is already streaming to this server",
                        new String(reply, StandardCharsets.US_ASCII));
            }
        }
        assertEquals(1, stats.connectionsRefused.sum());
    }

    @Test
    void unknownKeyGetsNetdatasRefusalAndTheServerGoesOn() throws Exception {
        byte[] session = resource("01-plain-child_to_parent.raw.gz");
        int head = headEnd(session);
        String req = new String(session, 0, head, StandardCharsets.ISO_8859_1).replace(KEY,
                "99999999-2222-3333-4444-555555555555");
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.getOutputStream().write(req.getBytes(StandardCharsets.ISO_8859_1));
            assertEquals("You are not permitted to access this. Check the logs for more info.",
                    new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII));
        }
        checkPlainSession(0);
    }

    @Test
    void aBrokenLineClosesOnlyItsStream() throws Exception {
        byte[] session = resource("01-plain-child_to_parent.raw.gz");
        int head = headEnd(session);
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(session, 0, head);
            s.getInputStream().read(new byte[100]);
            s.getOutputStream().write("BEGIN \"no.such_chart\" 1000000\n".getBytes(StandardCharsets.US_ASCII));
            // the parent closes the connection: read returns -1 after whatever it sent
            InputStream in = s.getInputStream();
            while (in.read() >= 0) {
                // drain
            }
        }
        assertEquals(1, stats.protocolErrors.sum());
        checkPlainSession(1);
    }
}
