package io.strata.streaming.load;

import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.engine.page.StorageNumber;
import io.strata.engine.meta.MetadataStore;
import io.strata.streaming.auth.StreamAuthorizer;
import io.strata.streaming.auth.StreamConfig;
import io.strata.streaming.config.IniFile;
import io.strata.streaming.handshake.Capabilities;
import io.strata.streaming.handshake.HandshakeReplies;
import io.strata.streaming.receiver.ReceiverContext;
import io.strata.streaming.receiver.ReceiverLimits;
import io.strata.streaming.receiver.ReceiverRegistry;
import io.strata.streaming.receiver.ReceiverStats;
import io.strata.streaming.server.StreamServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The load generator against a parent in the same JVM, through a byte-counting TCP relay: every
 * synthetic child is accepted, and once the connections are closed the parent has collected exactly
 * the samples the children sent, with and without LZ4; a wrong API key is refused as Netdata does.
 * In the interpolated form (BEGIN2/SET2/END2) against a parent that grants INTERPOLATED and
 * IEEE754, the parent stores every value the children meant, second by second; against one that
 * does not, the fleet falls back to text and says so.
 */
class LoadGeneratorTest {

    static final String KEY = "11111111-2222-3333-4444-555555555555";
    static final int CHILDREN = 3;
    static final int METRICS = 200;
    static final int DIMENSIONS_PER_CHART = 10;
    static final long SEED = 42;

    @TempDir
    Path dir;
    StorageEngine engine;
    StreamServer server;
    ReceiverStats stats;
    ReceiverRegistry registry;
    Relay relay;

    /** What a Strata parent offers a 2.x child: 1.37.1's set, the 2.x data forms, ZSTD. */
    static final long PARENT_2X = Capabilities.NETDATA_1_37_1 | Capabilities.INTERPOLATED_IEEE754
            | Capabilities.ZSTD;

    @BeforeEach
    void start() throws Exception {
        startParent(Capabilities.NETDATA_1_37_1);
    }

    void startParent(long parentCapabilities) throws Exception {
        engine = StorageEngine.open(EngineConfig.defaults(dir.resolve("db")));
        StreamConfig conf = StreamConfig.from(IniFile.parse("[" + KEY + "]\n\tenabled = yes\n", "stream.conf"));
        StreamAuthorizer auth = new StreamAuthorizer(conf, true, parentCapabilities,
                UUID.randomUUID().toString(), 0);
        stats = new ReceiverStats();
        registry = new ReceiverRegistry();
        ReceiverContext rc = new ReceiverContext(engine, auth, registry, ReceiverLimits.DEFAULTS, stats,
                ReceiverContext.wallClockMicros(), 600, null);
        server = new StreamServer(rc, null, null, 2);
        int port = server.bind(new InetSocketAddress("127.0.0.1", 0)).getPort();
        relay = new Relay(port);
    }

    @AfterEach
    void stop() throws Exception {
        relay.close();
        server.close();
        engine.close();
    }

    static LoadGenerator.Options options(int port, double seconds, boolean compression, String key) {
        // paced (50 collections a second per child): no write is left half done when a child stops
        return new LoadGenerator.Options("127.0.0.1", port, CHILDREN, METRICS, DIMENSIONS_PER_CHART, seconds,
                compression, key, 50, SEED);
    }

    @ParameterizedTest(name = "compression {0}")
    @ValueSource(booleans = {true, false})
    void theParentCollectsEverySampleTheChildrenSent(boolean compression) throws Exception {
        LoadGenerator.Result result = new LoadGenerator().run(options(relay.port(), 2.0, compression, KEY));

        assertEquals(CHILDREN, result.childrenAccepted(), "refusals: " + result.refusals());
        assertEquals(List.of(), result.refusals());
        assertEquals(List.of(), result.errors());
        assertTrue(result.samplesSent() > 0 && result.collections() > 0, "sent " + result.samplesSent());
        assertEquals(0, result.samplesSent() % METRICS, "whole collections of whole charts");

        long collected = collectedOnceTheStreamsAreClosed();
        assertEquals(result.samplesSent(), collected, "samples collected by the parent");
        assertEquals(0, stats.protocolErrors.sum());
        assertEquals(CHILDREN, stats.connectionsAccepted.sum());

        MetadataStore meta = engine.metadata();
        for (int i = 0; i < CHILDREN; i++) {
            UUID guid = UUID.nameUUIDFromBytes(("strata-load-" + SEED + "-" + i).getBytes(StandardCharsets.UTF_8));
            int host = meta.hostId(guid);
            assertTrue(host >= 0, "child " + i + " unknown to the parent");
            assertEquals("load-child-" + i, meta.host(host).hostname());
            List<Integer> charts = meta.charts(host);
            assertEquals(METRICS / DIMENSIONS_PER_CHART, charts.size(), "charts of child " + i);
            int dimensions = 0;
            for (int c : charts) {
                dimensions += meta.metrics(c).size();
            }
            assertEquals(METRICS, dimensions, "metrics of child " + i);
        }

        long onTheWire = relay.bytesToParent();
        if (compression) {
            // random digits in independent 16 KiB blocks: about half the size, never near the text's
            assertTrue(onTheWire < result.uncompressedBytes() * 3 / 4,
                    onTheWire + " bytes on the wire for " + result.uncompressedBytes() + " of text: not compressed");
        } else {
            assertTrue(onTheWire >= result.uncompressedBytes() * 9 / 10,
                    onTheWire + " bytes on the wire for " + result.uncompressedBytes() + " of text");
        }
    }

    @ParameterizedTest(name = "zstd {0}")
    @ValueSource(booleans = {true, false})
    void theInterpolatedFormStoresEveryValueTheChildrenMeant(boolean zstd) throws Exception {
        stop();
        startParent(PARENT_2X);
        LoadGenerator.Options o = new LoadGenerator.Options("127.0.0.1", relay.port(), CHILDREN, METRICS,
                DIMENSIONS_PER_CHART, 2.0, zstd, KEY, 50, SEED, zstd, true);
        LoadGenerator.Result result = new LoadGenerator().run(o);

        assertEquals(CHILDREN, result.childrenAccepted(), "refusals: " + result.refusals());
        assertEquals(List.of(), result.errors());
        assertEquals(LoadGenerator.Result.INTERPOLATED, result.form());
        assertEquals(Capabilities.INTERPOLATED_IEEE754, result.capabilities() & Capabilities.INTERPOLATED_IEEE754,
                Capabilities.names(result.capabilities()));
        assertEquals(zstd ? Capabilities.ZSTD : 0, result.capabilities() & Capabilities.COMPRESSIONS,
                Capabilities.names(result.capabilities()));
        assertTrue(result.samplesSent() > 0, "sent " + result.samplesSent());
        assertEquals(result.samplesSent(), collectedOnceTheStreamsAreClosed(), "samples collected by the parent");
        assertEquals(0, stats.protocolErrors.sum());

        // every metric: one stored point a second, one per collection its child sent, each the value the
        // generator meant (a gauge its collected value, a counter its increase over the second)
        MetadataStore meta = engine.metadata();
        long stored = 0;
        for (int i = 0; i < CHILDREN; i++) {
            UUID guid = UUID.nameUUIDFromBytes(("strata-load-" + SEED + "-" + i).getBytes(StandardCharsets.UTF_8));
            LoadGenerator.SyntheticChild meant = new LoadGenerator.SyntheticChild(o, i, new LongAdder(),
                    new LongAdder(), new LongAdder(), new AtomicInteger(), new ArrayList<>(), new ArrayList<>(),
                    new CountDownLatch(0));
            int charts = METRICS / DIMENSIONS_PER_CHART;
            List<List<long[]>> points = new ArrayList<>();
            for (int c = 0; c < charts; c++) {
                int chart = meta.chartId(guid, "load.chart" + c);
                assertTrue(chart >= 0, "child " + i + " chart " + c + " unknown to the parent");
                for (int d = 0; d < DIMENSIONS_PER_CHART; d++) {
                    int metric = metricOf(meta, chart, "d" + d);
                    List<long[]> p = new ArrayList<>();
                    engine.queryTier0(metric, 0, System.currentTimeMillis() / 1000 + 86_400,
                            (time, sn) -> p.add(new long[] {time, Double.doubleToLongBits(StorageNumber.unpack(sn))}));
                    points.add(p);
                }
            }
            int collections = points.get(0).size();
            assertTrue(collections > 0, "child " + i + " stored nothing");
            for (int m = 0; m < METRICS; m++) {
                List<long[]> p = points.get(m);
                assertEquals(collections, p.size(), "points of child " + i + " metric " + m);
                for (int k = 0; k < collections; k++) {
                    assertEquals(p.get(0)[0] + k, p.get(k)[0], "second of child " + i + " metric " + m + " point " + k);
                }
            }
            for (int k = 0; k < collections; k++) {
                for (int m = 0; m < METRICS; m++) {
                    long previous = meant.values[m];
                    long v = meant.advance(m);
                    double expected = meant.counter[m] ? v - previous : v;
                    double actual = Double.longBitsToDouble(points.get(m).get(k)[1]);
                    assertEquals(expected, actual, Math.abs(expected) * 1e-6,
                            "child " + i + " metric " + m + " collection " + k);
                }
            }
            stored += (long) collections * METRICS;
        }
        assertEquals(result.samplesSent(), stored, "stored points, one per sample sent");
    }

    @Test
    void theInterpolatedFormFallsBackToTextWhereTheParentDoesNotGrantIt() throws Exception {
        LoadGenerator.Result result = new LoadGenerator().run(new LoadGenerator.Options("127.0.0.1", relay.port(),
                CHILDREN, METRICS, DIMENSIONS_PER_CHART, 1.0, true, KEY, 50, SEED, false, true));

        assertEquals(CHILDREN, result.childrenAccepted(), "refusals: " + result.refusals());
        assertEquals(List.of(), result.errors());
        assertEquals(LoadGenerator.Result.TEXT_FALLBACK, result.form());
        assertEquals(0, result.capabilities() & Capabilities.INTERPOLATED_IEEE754);
        assertEquals(result.samplesSent(), collectedOnceTheStreamsAreClosed(), "samples collected by the parent");
        assertEquals(0, stats.protocolErrors.sum());
    }

    static int metricOf(MetadataStore meta, int chart, String dimensionId) {
        for (int metric : meta.metrics(chart)) {
            if (meta.dimension(metric).id().equals(dimensionId)) {
                return metric;
            }
        }
        throw new AssertionError("no dimension " + dimensionId + " in chart " + meta.chart(chart).id());
    }

    @Test
    void aWrongApiKeyIsRefused() throws Exception {
        LoadGenerator.Result result = new LoadGenerator().run(
                options(relay.port(), 0.5, true, "99999999-2222-3333-4444-555555555555"));

        assertEquals(0, result.childrenAccepted());
        assertEquals(CHILDREN, result.refusals().size(), "refusals: " + result.refusals());
        for (String refusal : result.refusals()) {
            assertTrue(refusal.endsWith(": " + HandshakeReplies.NOT_PERMITTED), refusal);
        }
        assertEquals(0, result.samplesSent());
        assertEquals(CHILDREN, stats.connectionsRefused.sum());
        assertEquals(0, stats.connectionsAccepted.sum());
        assertEquals(0, stats.samplesCollected.sum());
        assertEquals(0, engine.metadata().hosts().size());
    }

    /**
     * The parent's count once every stream has ended there (a stream is unregistered only after
     * its last bytes were parsed) and the count has stopped moving.
     */
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

    /** A TCP relay in front of the parent that counts the bytes the children send. */
    static final class Relay implements AutoCloseable {
        private final ServerSocket listener;
        private final int target;
        private final LongAdder toParent = new LongAdder();
        private final List<Socket> sockets = new CopyOnWriteArrayList<>();
        private final Thread acceptor;

        Relay(int target) throws IOException {
            this.target = target;
            this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            this.acceptor = new Thread(this::acceptLoop, "load-test-relay");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        int port() {
            return listener.getLocalPort();
        }

        long bytesToParent() {
            return toParent.sum();
        }

        private void acceptLoop() {
            try {
                while (true) {
                    Socket child = listener.accept();
                    Socket parent = new Socket(InetAddress.getLoopbackAddress(), target);
                    child.setTcpNoDelay(true);
                    parent.setTcpNoDelay(true);
                    sockets.add(child);
                    sockets.add(parent);
                    pump(child, parent, toParent);
                    pump(parent, child, null);
                }
            } catch (IOException closed) {
                // the listener was closed: the test is over
            }
        }

        /** Copies one direction until its end, then half-closes the other side, as TCP would. */
        private static void pump(Socket from, Socket to, LongAdder counted) {
            Thread t = new Thread(() -> {
                byte[] buf = new byte[64 * 1024];
                try {
                    // not closed here: closing a socket's stream closes the socket, both directions
                    InputStream in = from.getInputStream();
                    OutputStream out = to.getOutputStream();
                    for (int n; (n = in.read(buf)) >= 0; ) {
                        out.write(buf, 0, n);
                        if (counted != null) {
                            counted.add(n);
                        }
                    }
                    to.shutdownOutput();
                } catch (IOException gone) {
                    closeQuietly(to);
                }
            }, "load-test-relay-pump");
            t.setDaemon(true);
            t.start();
        }

        private static void closeQuietly(Socket s) {
            try {
                s.close();
            } catch (IOException ignored) {
                // already closed
            }
        }

        @Override
        public void close() throws IOException {
            listener.close();
            for (Socket s : sockets) {
                closeQuietly(s);
            }
        }
    }
}
