package io.strata.streaming.receiver;

import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.HostInfo;
import io.strata.engine.meta.MetadataStore;
import io.strata.engine.page.StorageNumber;
import io.strata.streaming.wire.StreamProtocolException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The lines of a Netdata 2.x child that negotiated INTERPOLATED and IEEE754, as 2.9.0 writes them
 * ({@code stream_send_rrddim_metrics_v2}, {@code replication_query_execute}): the values are stored
 * as the child computed them, at the child's slot, never interpolated again.
 */
class InterpolatedLinesTest {

    @TempDir
    Path dir;

    /** 1732600000 = #BnRWDA; 1732599999 = #BnRWC/; 1732600001 = #BnRWDB. */
    private static final long T = 1_732_600_000L;
    private static final String DEFINITION = "CHART 'system.cpu' '' 'CPU' '%' cpu system.cpu stacked 100 1 '' '' ''\n"
            + "DIMENSION 'user' 'user' incremental 1 1 ''\n"
            + "DIMENSION 'system' 'system' incremental 1 1 ''\n";

    @Test
    void begin2StoresTheChildsValuesAtItsSlot() throws Exception {
        try (StorageEngine engine = StorageEngine.open(EngineConfig.defaults(dir))) {
            ReceiverStats stats = new ReceiverStats();
            ReceiverParser p = parser(engine, stats);
            // an incremental dimension: a second interpolation would store a rate of the collected
            // counter (or nothing for the first collection); the child's value is stored instead
            feed(p, DEFINITION
                    + "BEGIN2 'system.cpu' #B #BnRWDA #\n"
                    + "SET2 'user' #BA @EAVAAAAAAAA A\n"
                    + "SET2 'system' #M # A\n"
                    + "END2\n"
                    + "BEGIN2 'system.cpu' #B #BnRWDB #BnRWDC\n"
                    + "SET2 'user' #BB @L/4AAAAAAAA R\n"
                    + "SET2 'system' #N nan E\n"
                    + "END2\n");
            // flags as sent: without A the point is anomalous, as Netdata stores it
            assertEquals("1732600000=5.25,1732600001=-1.5 R anomalous", stored(engine, "user"));
            assertEquals("1732600000=12.0,1732600001=gap", stored(engine, "system"));
            assertEquals(4, stats.samplesCollected.sum());
            // the collected values stay the chart's collection state (a forwarder sends them on)
            ReceivedChart c = p.byChartId(engine.metadata().chartId(GUID, "system.cpu"));
            assertEquals(65, c.collected[0]);
            assertEquals(2, c.collections);
            assertEquals(65, c.collector.lastCollectedValue(0));
            assertEquals((T + 1) * 1_000_000L, c.collector.chartLastCollectedUt());
        }
    }

    /**
     * A collection whose every point the engine refused (this parent holds those seconds already)
     * is marked, so that a forwarder does not send it on (docs/chaos.md, finding 3); one that
     * stored a point is not.
     */
    @Test
    void aCollectionTheEngineRefusedIsMarkedForTheForwarder() throws Exception {
        try (StorageEngine engine = StorageEngine.open(EngineConfig.defaults(dir))) {
            ReceiverParser p = parser(engine, new ReceiverStats());
            feed(p, DEFINITION
                    + "BEGIN2 'system.cpu' #B #BnRWDA #\n"
                    + "SET2 'user' #BA @EAVAAAAAAAA A\n"
                    + "SET2 'system' #M # A\n"
                    + "END2\n"
                    + "BEGIN2 'system.cpu' #B #BnRWDB #\n"
                    + "SET2 'user' #BB # A\n"
                    + "SET2 'system' #N # A\n"
                    + "END2\n");
            ReceivedChart c = p.byChartId(engine.metadata().chartId(GUID, "system.cpu"));
            assertTrue(!c.refused, "stored");
            // T again: both points are refused (not after the metrics' last stored point)
            feed(p, "BEGIN2 'system.cpu' #B #BnRWDA #\n"
                    + "SET2 'user' #BC # A\n"
                    + "SET2 'system' #O # A\n"
                    + "END2\n");
            assertTrue(c.refused, "every point refused");
            assertEquals("1732600000=5.25,1732600001=65.0", stored(engine, "user"));
            // T + 2: stored again
            feed(p, "BEGIN2 'system.cpu' #B #BnRWDC #\n"
                    + "SET2 'user' #BD # A\n"
                    + "SET2 'system' #P # A\n"
                    + "END2\n");
            assertTrue(!c.refused, "stored");
        }
    }

    @Test
    void hexAndDecimalFormsMeanTheSame() throws Exception {
        try (StorageEngine engine = StorageEngine.open(EngineConfig.defaults(dir))) {
            ReceiverParser p = parser(engine, new ReceiverStats());
            // INTERPOLATED without IEEE754: hex integers, decimal doubles
            feed(p, DEFINITION
                    + "BEGIN2 'system.cpu' 0x1 0x674560C0 #\n"
                    + "SET2 'user' 0x40 5.25 A\n"
                    + "SET2 'system' -0x2 # ''\n"
                    + "END2\n");
            assertEquals("1732600000=5.25", stored(engine, "user"));
            assertEquals("1732600000=-2.0 anomalous", stored(engine, "system"));
        }
    }

    @Test
    void replicationInIeee754Form() throws Exception {
        try (StorageEngine engine = StorageEngine.open(EngineConfig.defaults(dir))) {
            ReceiverParser p = parser(engine, new ReceiverStats());
            feed(p, DEFINITION
                    + "CHART_DEFINITION_END " + (T - 10) + " " + T + " " + (T + 1) + "\n"
                    + "RBEGIN 'system.cpu'\n"
                    + "RBEGIN '' #BnRWC/ #BnRWDA #BnRWDB\n"
                    + "RSET \"user\" @EAVAAAAAAAA A\n"
                    + "RSET \"system\" @EAoAAAAAAAA ''\n"
                    + "RDSTATE 'user' #GJ8pfibAA #BA @EAVAAAAAAAA @EAVAAAAAAAA\n"
                    + "RDSTATE 'system' #GJ8pfibAA -#M @EAoAAAAAAAA @EAoAAAAAAAA\n"
                    + "RSSTATE #GJ8pfibAA #GJ8pfibAA\n"
                    + "REND #B #BnRWCw #BnRWDA true  #BnRWCw #BnRWDA #BnRWDB\n");
            assertEquals("1732600000=5.25", stored(engine, "user"));
            assertEquals("1732600000=12.0", stored(engine, "system"));
            ReceivedChart c = p.byChartId(engine.metadata().chartId(GUID, "system.cpu"));
            assertEquals(64, c.collector.lastCollectedValue(0));
            assertEquals(-12, c.collector.lastCollectedValue(1));
            assertEquals(5.25, c.collector.lastStoredValue(0));
            assertEquals(T * 1_000_000L, c.collector.lastCollectedUt(0));
            assertEquals(T * 1_000_000L, c.collector.chartLastUpdatedUt());
            assertTrue(!c.replicating, "REND true ends the chart's replication");
        }
    }

    @Test
    void mixingTheFormsOfOneCollectionIsAnError() throws Exception {
        try (StorageEngine engine = StorageEngine.open(EngineConfig.defaults(dir))) {
            ReceiverParser p = parser(engine, new ReceiverStats());
            feed(p, DEFINITION + "BEGIN2 'system.cpu' #B #BnRWDA #\n");
            StreamProtocolException set = assertThrows(StreamProtocolException.class, () -> feed(p, "SET user = 5"));
            assertTrue(set.getMessage().startsWith("SET outside BEGIN/END"), set.getMessage());
            StreamProtocolException end = assertThrows(StreamProtocolException.class, () -> feed(p, "END"));
            assertTrue(end.getMessage().startsWith("END without BEGIN"), end.getMessage());
            feed(p, "END2\nBEGIN system.cpu 1000000\n");
            StreamProtocolException set2 = assertThrows(StreamProtocolException.class,
                    () -> feed(p, "SET2 'user' #B # A"));
            assertTrue(set2.getMessage().startsWith("SET2 outside BEGIN2/END2"), set2.getMessage());
            StreamProtocolException end2 = assertThrows(StreamProtocolException.class, () -> feed(p, "END2"));
            assertTrue(end2.getMessage().startsWith("END2 without BEGIN2"), end2.getMessage());
        }
    }

    @Test
    void badBegin2AndSet2LinesAreNamed() throws Exception {
        try (StorageEngine engine = StorageEngine.open(EngineConfig.defaults(dir))) {
            ReceiverParser p = parser(engine, new ReceiverStats());
            feed(p, DEFINITION);
            assertMessage(p, "BEGIN2 'system.cpu' #B #BnRWDA", "BEGIN2 missing parameters");
            assertMessage(p, "BEGIN2 'system.load' #B #BnRWDA #", "BEGIN2 of a chart that was not defined");
            assertMessage(p, "BEGIN2 'system.cpu' #A #BnRWDA #", "BEGIN2 update_every out of range");
            assertMessage(p, "BEGIN2 'system.cpu' #B #A #", "BEGIN2 end time out of range");
            feed(p, "BEGIN2 'system.cpu' #B #BnRWDA #");
            assertMessage(p, "SET2 'user' #B #", "SET2 missing parameters");
            assertMessage(p, "SET2 'nice' #B # A", "SET2 of a dimension that was not defined in chart system.cpu");
        }
    }

    private static void assertMessage(ReceiverParser p, String line, String expected) {
        StreamProtocolException e = assertThrows(StreamProtocolException.class, () -> feed(p, line));
        assertTrue(e.getMessage().startsWith(expected + " (line "), e.getMessage());
    }

    // ---- the extra fields of 2.x on the old protocol ---------------------------------------------

    @Test
    void netdata2ExtraFieldsOnTheOldProtocolAreAccepted() throws Exception {
        try (StorageEngine engine = StorageEngine.open(EngineConfig.defaults(dir))) {
            ReceiverParser p = parser(engine, new ReceiverStats());
            // as a 2.9.0 child sends them (see the class comment of the vectors): a function's tags,
            // access bits, priority and version; a label source with bit 31 (RRDLABEL_FLAG_NEW
            // / the "old" marker of 2.x) set; a claim id of 'NULL' for an unclaimed agent
            feed(p, "FUNCTION GLOBAL \"top\" 60 \"Top processes\" \"top\" 0x13 101 0\n"
                    + "LABEL \"_os_name\" = 2147483649 \"Debian GNU/Linux\"\n"
                    + "LABEL \"_hostname\" = 2147483649 \"child\"\n"
                    + "OVERWRITE labels\n"
                    + "CLAIMED_ID '" + GUID + "' 'NULL'\n");
            assertEquals(Map.of("top", "Top processes"), p.hostFunctions());
            assertNull(p.claimId());
            MetadataStore meta = engine.metadata();
            HostInfo host = meta.host(meta.hostId(GUID));
            assertEquals("Debian GNU/Linux", host.labels().get("_os_name"));
            assertEquals("child", host.labels().get("_hostname"));
        }
    }

    // ---- helpers ---------------------------------------------------------------------------------

    private static final UUID GUID = UUID.fromString("8a3f4b2c-1d2e-4f50-9a6b-7c8d9e0f1a2b");

    private String stored(StorageEngine engine, String dimension) throws IOException {
        MetadataStore meta = engine.metadata();
        int chart = meta.chartId(GUID, "system.cpu");
        int metric = -1;
        for (int m : meta.metrics(chart)) {
            if (meta.dimension(m).id().equals(dimension)) {
                metric = m;
            }
        }
        List<String> points = new ArrayList<>();
        engine.queryTier0(metric, T - 5, T + 5, (time, sn) -> points.add(time + "="
                + (StorageNumber.isEmpty(sn) ? "gap" : StorageNumber.unpack(sn)
                + ((sn & StorageNumber.SN_FLAG_RESET) != 0 ? " R" : "")
                + ((sn & StorageNumber.SN_FLAG_NOT_ANOMALOUS) == 0 ? " anomalous" : ""))));
        return String.join(",", points);
    }

    private static ReceiverParser parser(StorageEngine engine, ReceiverStats stats) {
        HostInfo host = new HostInfo(GUID, "child", "linux", "UTC", 1, null);
        return new ReceiverParser(engine, host, line -> { }, ReceiverReplication.NONE, true,
                ReceiverLimits.DEFAULTS, stats, () -> (T + 2) * 1_000_000L, null);
    }

    private static void feed(ReceiverParser p, String lines) throws StreamProtocolException {
        for (String l : lines.split("\n")) {
            byte[] b = l.getBytes(StandardCharsets.UTF_8);
            p.line(b, 0, b.length);
        }
    }
}
