package io.strata.exporting;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.strata.engine.EngineConfig;
import io.strata.engine.EngineTestSupport;
import io.strata.engine.StorageEngine;
import io.strata.engine.page.StorageNumber;
import io.strata.exporting.config.DataSource;
import io.strata.exporting.config.Destination;
import io.strata.exporting.config.TargetConfig;
import io.strata.exporting.position.FillJournal;
import io.strata.exporting.position.PositionStore;
import io.strata.exporting.remotewrite.RemoteWriteClient;
import io.strata.exporting.remotewrite.RetryPolicy;
import io.strata.engine.netdata.SimplePattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The exporter against a fake target over real HTTP, reading a real engine. */
class TargetExporterTest {

    @TempDir
    Path dir;

    private static final UUID HOST = EngineTestSupport.HOST;
    private static final long T0 = 1_700_000_000L;

    private StorageEngine engine;
    private FakeTarget target;
    private int[] metrics;
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private boolean owned = true;

    @BeforeEach
    void open() throws Exception {
        engine = StorageEngine.open(EngineConfig.defaults(dir.resolve("db")));
        metrics = EngineTestSupport.define(engine, 2, 3);
        target = new FakeTarget();
    }

    @AfterEach
    void close() throws Exception {
        target.close();
        engine.close();
    }

    private void store(long from, long to) {
        for (long t = from; t <= to; t++) {
            for (int m : metrics) {
                engine.store(m, t, 1, EngineTestSupport.value(m, t), 0);
            }
        }
    }

    private TargetConfig config(int updateEvery, int perRequest) {
        return new TargetConfig("t", false, List.of(new Destination("127.0.0.1", target.port())), "/receive", "", "",
                DataSource.AVERAGE, "netdata", "exporting-node", updateEvery, 10, 5_000, true,
                SimplePattern.parse("*"), SimplePattern.parse("localhost *"), true, false, perRequest, 10_000_000);
    }

    private TargetExporter exporter(TargetConfig cfg) throws Exception {
        return exporter(cfg, dir.resolve("pos"));
    }

    private TargetExporter exporter(TargetConfig cfg, Path positionsDir) throws Exception {
        HostOwnership ownership = new HostOwnership() {
            @Override
            public boolean exports(UUID host) {
                return owned;
            }

            @Override
            public boolean filling(UUID host) {
                return false;
            }
        };
        return new TargetExporter(cfg, engine, UUID.randomUUID(), ownership, PositionStore.open(positionsDir,
                cfg.name()), new RemoteWriteClient(cfg), new RetryPolicy(1, 4), new ExportMeters(meters, cfg.name()),
                System::currentTimeMillis, 0);
    }

    /** Cycles until the host's position reaches {@code second} (bounded). */
    private static void exportUntil(TargetExporter e, long second) throws Exception {
        for (int i = 0; i < 10_000 && e.positions().getOrDefault(HOST, -1L) < second; i++) {
            e.cycle();
        }
        assertEquals(second, e.positions().get(HOST), "position");
    }

    /** Every series holds exactly the seconds (from, to], once each, in order, with the stored values. */
    private void assertExactly(long from, long to) {
        Map<String, List<FakeTarget.Point>> got = target.snapshot();
        assertEquals(metrics.length, got.size(), got.keySet().toString());
        for (int m : metrics) {
            String dim = "dim" + (m % 3);
            String chart = "test.chart" + (m / 3);
            String key = "__name__=netdata_" + chart.replace('.', '_') + "_value_average,chart=" + chart
                    + ",dimension=" + engine.metadata().dimension(m).id() + ",instance=test-host,role=test,";
            List<FakeTarget.Point> points = got.get(key);
            assertTrue(points != null, "no series " + key + " in " + got.keySet());
            assertEquals(to - from, points.size(), key);
            for (int i = 0; i < points.size(); i++) {
                long t = from + 1 + i;
                assertEquals(t * 1000, points.get(i).timeMs(), key);
                assertEquals(EngineTestSupport.value(m, t), points.get(i).value(), 1e-9, key + " at " + t);
            }
            assertTrue(dim.startsWith("dim"));
        }
        assertEquals(List.of(), target.headerProblems);
    }

    @Test
    void sendsEveryStoredSecondOnceUnderNetdatasNames() throws Exception {
        store(T0, T0 + 299);
        PositionStore.open(dir.resolve("pos"), "t").commit(HOST, T0 - 1);
        TargetExporter e = exporter(config(1, 100));
        exportUntil(e, T0 + 299);
        assertExactly(T0 - 1, T0 + 299);
        // 6 series, 100 samples a request: 16 windows of 6 series each
        assertEquals(300 * 6, (long) meters.get("strata.exporting.samples.sent").counter().count());
        assertTrue(target.accepted >= 18, "requests " + target.accepted);
        assertEquals(T0 + 299, PositionStore.open(dir.resolve("pos"), "t").position(HOST));
    }

    @Test
    void averagesAndAlignsSamplesToUpdateEvery() throws Exception {
        store(T0, T0 + 99);
        PositionStore.open(dir.resolve("pos"), "t").commit(HOST, T0 - 10);
        TargetExporter e = exporter(config(10, 10_000));
        exportUntil(e, T0 + 90);
        Map<String, List<FakeTarget.Point>> got = target.snapshot();
        int m = metrics[4];
        List<FakeTarget.Point> points = got.entrySet().stream().filter(x -> x.getKey().contains("chart=test.chart1,")
                && x.getKey().contains("dimension=dim1,")).findFirst().orElseThrow().getValue();
        assertEquals(10, points.size());
        for (int w = 0; w < 10; w++) {
            long end = T0 + w * 10;
            double sum = 0;
            int n = 0;
            for (long t = end - 9; t <= end; t++) {
                if (t >= T0) {
                    sum += EngineTestSupport.value(m, t);
                    n++;
                }
            }
            assertEquals(end * 1000, points.get(w).timeMs());
            assertEquals(sum / n, points.get(w).value(), 1e-6, "window ending " + end);
        }
    }

    @Test
    void retriesServerErrorsAndTooManyRequestsWithoutGapOrDuplicate() throws Exception {
        store(T0, T0 + 99);
        PositionStore.open(dir.resolve("pos"), "t").commit(HOST, T0 - 1);
        target.answers.addAll(List.of(500, 503, 429, 502));
        TargetExporter e = exporter(config(1, 120));
        exportUntil(e, T0 + 99);
        assertExactly(T0 - 1, T0 + 99);
        assertEquals(1.0, meters.get("strata.exporting.failures").tag("status", "500").counter().count());
        assertEquals(1.0, meters.get("strata.exporting.failures").tag("status", "429").counter().count());
        assertEquals(target.accepted + 4, target.attempts);
    }

    @Test
    void neverRetriesOtherClientErrorsButCountsThem() throws Exception {
        store(T0, T0 + 99);
        PositionStore.open(dir.resolve("pos"), "t").commit(HOST, T0 - 1);
        target.answers.add(400);
        TargetExporter e = exporter(config(1, 120)); // 20 seconds a request
        exportUntil(e, T0 + 99);
        // the refused request (the first 20 seconds) is not sent again; the rest arrives
        assertExactly(T0 + 19, T0 + 99);
        assertEquals(target.accepted + 1, target.attempts);
        assertEquals(120.0, meters.get("strata.exporting.samples.rejected").counter().count());
        assertEquals(1.0, meters.get("strata.exporting.failures").tag("status", "400").counter().count());
    }

    @Test
    void aNewExporterResumesFromThePersistedPosition() throws Exception {
        store(T0, T0 + 49);
        PositionStore.open(dir.resolve("pos"), "t").commit(HOST, T0 - 1);
        TargetExporter first = exporter(config(1, 60));
        exportUntil(first, T0 + 49);
        // the node stops; more is stored meanwhile (replication, or before the crash); a new exporter resumes
        store(T0 + 50, T0 + 119);
        TargetExporter second = exporter(config(1, 60));
        exportUntil(second, T0 + 119);
        assertExactly(T0 - 1, T0 + 119);
    }

    @Test
    void countsWhatRotatedOutBeforeItWasSent() throws Exception {
        store(T0, T0 + 29);
        PositionStore.open(dir.resolve("pos"), "t").commit(HOST, T0 - 101); // 100 s before the oldest stored
        TargetExporter e = exporter(config(1, 600));
        exportUntil(e, T0 + 29);
        assertExactly(T0 - 1, T0 + 29);
        assertEquals(100.0 * 6, meters.get("strata.exporting.samples.rotated.out").counter().count());
    }

    /** Stores (from, to] of every metric as one past run, the way a replication answer fills a hole. */
    private void storePast(long from, long to) throws Exception {
        int[] sns = new int[(int) (to - from)];
        for (int m : metrics) {
            for (int i = 0; i < sns.length; i++) {
                sns[i] = StorageNumber.pack(EngineTestSupport.value(m, from + 1 + i), 0);
            }
            engine.storePast(m, from + 1, 1, sns, 0, sns.length);
        }
        engine.flush();
    }

    /** Every series holds each second of [from, to] exactly once, with its stored value, in any order. */
    private void assertEverySecondOnce(long from, long to) {
        Map<String, List<FakeTarget.Point>> got = target.snapshot();
        assertEquals(metrics.length, got.size(), got.keySet().toString());
        for (int m : metrics) {
            String key = got.keySet().stream().filter(k -> k.contains("chart=test.chart" + (m / 3) + ",")
                    && k.contains("dimension=" + engine.metadata().dimension(m).id() + ",")).findFirst().orElseThrow();
            Map<Long, Double> byTime = new TreeMap<>();
            for (FakeTarget.Point p : got.get(key)) {
                Double before = byTime.put(p.timeMs() / 1000, p.value());
                assertTrue(before == null, key + ": " + p.timeMs() + " sent twice (" + before + ", " + p.value() + ")");
                assertEquals(EngineTestSupport.value(m, p.timeMs() / 1000), p.value(), 1e-9, key + " at " + p.timeMs());
            }
            assertEquals(to - from + 1, byTime.size(), key + " " + byTime.keySet());
        }
    }

    @Test
    void sendsAHoleFilledBehindTheExportedPositionOnceAndNothingElseAgain() throws Exception {
        // stored: T0..T0+29 and T0+60..T0+119; the hole T0+30..T0+59 is filled later
        store(T0, T0 + 29);
        store(T0 + 60, T0 + 119);
        PositionStore.open(dir.resolve("pos"), "t").commit(HOST, T0 - 1);
        TargetExporter e = exporter(config(1, 60));
        exportUntil(e, T0 + 119);
        storePast(T0 + 29, T0 + 59);
        assertEquals(30L * metrics.length, engine.pastPointsStored());
        for (int i = 0; i < 20; i++) {
            e.cycle();
        }
        // every second once, the hole's seconds after the rest (out of order, as the target receives them)
        assertEverySecondOnce(T0, T0 + 119);
        // a new exporter (a restart) resumes at the position and sends nothing again
        int accepted = target.accepted;
        e.close();
        TargetExporter second = exporter(config(1, 60));
        store(T0 + 120, T0 + 129);
        exportUntil(second, T0 + 129);
        assertEverySecondOnce(T0, T0 + 129);
        assertTrue(target.accepted > accepted);
        second.close();
    }

    @Test
    void aWindowThatWasSentIsNotSentAgainWhenAHoleInItIsFilled() throws Exception {
        // update every 10: the window (T0+10, T0+20] held T0+11..T0+14 when it was sent, (T0+20, T0+30] nothing
        store(T0 + 1, T0 + 14);
        store(T0 + 31, T0 + 60);
        PositionStore.open(dir.resolve("pos"), "t").commit(HOST, T0);
        TargetExporter e = exporter(config(10, 10_000));
        exportUntil(e, T0 + 60);
        storePast(T0 + 14, T0 + 30);
        for (int i = 0; i < 10; i++) {
            e.cycle();
        }
        for (int m : metrics) {
            List<FakeTarget.Point> points = target.snapshot().entrySet().stream()
                    .filter(x -> x.getKey().contains("chart=test.chart" + (m / 3) + ",")
                            && x.getKey().contains("dimension=" + engine.metadata().dimension(m).id() + ","))
                    .findFirst().orElseThrow().getValue();
            Map<Long, Double> byTime = new TreeMap<>();
            for (FakeTarget.Point p : points) {
                Double before = byTime.put(p.timeMs() / 1000, p.value());
                assertTrue(before == null, m + ": " + p.timeMs() + " sent twice (" + before + ", " + p.value() + ")");
            }
            // the filled empty window arrives once, with the average of its values; the other is left as sent
            assertEquals(List.of(T0 + 10, T0 + 20, T0 + 30, T0 + 40, T0 + 50, T0 + 60), List.copyOf(byTime.keySet()));
            double sum = 0;
            for (long t = T0 + 21; t <= T0 + 30; t++) {
                sum += EngineTestSupport.value(m, t);
            }
            assertEquals(sum / 10, byTime.get(T0 + 30), 1e-6);
            assertEquals((T0 + 30) * 1000, points.get(points.size() - 1).timeMs(), "sent after the others");
        }
        assertEquals(metrics.length, meters.get("strata.exporting.filled.windows.not.resent").counter().count());
        assertEquals(metrics.length, meters.get("strata.exporting.filled.samples.sent").counter().count());
        e.close();
    }

    @Test
    void releasesAHostThatStreamsElsewhereAndTakesItBackWithAnOverlap() throws Exception {
        store(T0, T0 + 59);
        PositionStore.open(dir.resolve("pos"), "t").commit(HOST, T0 - 1);
        TargetExporter e = exporter(config(1, 60));
        exportUntil(e, T0 + 59);
        owned = false; // the child now streams to another parent; this one held data up to T0 + 59
        for (int i = 0; i < 5; i++) {
            e.cycle();
        }
        assertTrue(PositionStore.open(dir.resolve("pos"), "t").released(HOST));
        // data forwarded by the other parent keeps arriving; this node does not send it
        store(T0 + 60, T0 + 119);
        for (int i = 0; i < 5; i++) {
            e.cycle();
        }
        assertExactly(T0 - 1, T0 + 59);
        // the child comes back: the other parent exported up to about the newest second held here; this one
        // starts that far back less the overlap (3 x update every + 10 s), never before its own position
        owned = true;
        exportUntil(e, T0 + 119);
        assertTrue(!PositionStore.open(dir.resolve("pos"), "t").released(HOST));
        for (List<FakeTarget.Point> points : target.snapshot().values()) {
            assertEquals(60 + 13, points.size());
            assertEquals((T0 + 59) * 1000, points.get(59).timeMs());
            assertEquals((T0 + 119 - 13 + 1) * 1000, points.get(60).timeMs());
        }
    }

    /** T0..T0+29 and T0+60..T0+119 exported up to T0+119, then the hole T0+30..T0+59 filled behind the position. */
    private TargetExporter exportThenFillTheHole() throws Exception {
        store(T0, T0 + 29);
        store(T0 + 60, T0 + 119);
        PositionStore.open(dir.resolve("pos"), "t").commit(HOST, T0 - 1);
        TargetExporter e = exporter(config(1, 60));
        exportUntil(e, T0 + 119);
        storePast(T0 + 29, T0 + 59);
        assertEquals(30L * metrics.length, engine.pastPointsStored());
        return e;
    }

    /** Cycles a restarted exporter until the position reaches T0+129 and what was queued has gone out. */
    private void resumeAndExport(TargetExporter second) throws Exception {
        store(T0 + 120, T0 + 129);
        exportUntil(second, T0 + 129);
        for (int i = 0; i < 5; i++) {
            second.cycle();
        }
    }

    @Test
    void aHoleFilledBeforeARestartIsSentAfterItOnce() throws Exception {
        TargetExporter e = exportThenFillTheHole();
        e.close(); // stopped before its next turn sent the hole
        TargetExporter second = exporter(config(1, 60));
        try {
            resumeAndExport(second);
            assertEverySecondOnce(T0, T0 + 129);
            assertEquals(30.0 * metrics.length, meters.get("strata.exporting.filled.samples.sent").counter().count());
        } finally {
            second.close();
        }
        // sent: the journal holds nothing more, a third start sends nothing again
        TargetExporter third = exporter(config(1, 60));
        try {
            for (int i = 0; i < 5; i++) {
                third.cycle();
            }
            assertEverySecondOnce(T0, T0 + 129);
        } finally {
            third.close();
        }
    }

    @Test
    void aHoleFilledBeforeAKillIsSentAfterTheRestartOnce() throws Exception {
        TargetExporter e = exportThenFillTheHole();
        // what kill -9 leaves: the positions and the fills as they are on disk now
        Path killed = dir.resolve("pos-killed");
        Files.createDirectories(killed);
        try (var files = Files.list(dir.resolve("pos"))) {
            for (Path f : files.toList()) {
                Files.copy(f, killed.resolve(f.getFileName()));
            }
        }
        e.close();
        TargetExporter second = exporter(config(1, 60), killed);
        try {
            resumeAndExport(second);
            assertEverySecondOnce(T0, T0 + 129);
        } finally {
            second.close();
        }
    }

    @Test
    void aDamagedFillRecordIsSkippedAndTheOthersAreSent() throws Exception {
        TargetExporter e = exportThenFillTheHole();
        e.close();
        Path file = dir.resolve("pos").resolve("t.fills");
        byte[] b = Files.readAllBytes(file);
        assertEquals(metrics.length, (b.length - FillJournal.HEADER_BYTES) / FillJournal.RECORD_BYTES,
                "a record per page filled");
        // the first record damaged, and a torn record at the end
        b[FillJournal.HEADER_BYTES + 40] ^= 0x21;
        byte[] torn = new byte[b.length + 30];
        System.arraycopy(b, 0, torn, 0, b.length);
        Files.write(file, torn);
        TargetExporter second = exporter(config(1, 60));
        try {
            resumeAndExport(second);
        } finally {
            second.close();
        }
        // the metric of the damaged record lacks the hole; every other series has every second once
        Map<Integer, Integer> seconds = new HashMap<>();
        for (int m : metrics) {
            String key = target.snapshot().keySet().stream().filter(k -> k.contains("chart=test.chart" + (m / 3) + ",")
                    && k.contains("dimension=" + engine.metadata().dimension(m).id() + ",")).findFirst().orElseThrow();
            seconds.put(m, target.snapshot().get(key).size());
        }
        assertEquals(1, seconds.values().stream().filter(n -> n == 100).count(), seconds.toString());
        assertEquals(metrics.length - 1, seconds.values().stream().filter(n -> n == 130).count(), seconds.toString());

        // a file that is not a fill journal: kept aside, the exporter starts with an empty queue
        Files.write(file, new byte[] {'n', 'o', 't', ' ', 'o', 'u', 'r', 's'});
        TargetExporter third = exporter(config(1, 60));
        try {
            third.cycle();
            assertTrue(Files.exists(dir.resolve("pos").resolve("t.fills.damaged")));
            assertEquals(FillJournal.HEADER_BYTES, Files.size(file));
        } finally {
            third.close();
        }
    }
}
