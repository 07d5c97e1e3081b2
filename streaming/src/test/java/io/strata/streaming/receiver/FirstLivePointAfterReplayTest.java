package io.strata.streaming.receiver;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.HostInfo;
import io.strata.engine.meta.MetadataStore;
import io.strata.engine.page.StorageNumber;
import io.strata.streaming.wire.StreamProtocolException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeMap;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The hand-over from a 2.9.0 child's replay answer that starts streaming ({@code REND ... true})
 * to the chart's first live {@code BEGIN2}, in the IEEE754 form 2.9.0 writes.
 *
 * <p>The lines are those of a failover seen with a real 2.9.0 child (its chart
 * {@code netdata.db_samples_collected}, seconds 1795782814..16, its values there): the child
 * connected to this parent at ..814.06; the answer covered the chart up to ..814 and started
 * streaming; its first live point was ..816. The child holds ..815 (620.0028) and sent it neither
 * way: 2.9.0's {@code rrdset_timed_done()} decides whether a collection is streamed
 * ({@code stream_send_metrics_init()}: not while the chart replicates) before it waits for the
 * chart's {@code data_collection_lock}, which the answer held while it covered the chart up to its
 * {@code last_updated}, the collection before. The receiver cannot store the second afterwards; it
 * counts and logs the slots the child skipped, which a test comparing the child's own data with
 * the parent's (it-tests) tells from a loss of this parent.
 */
class FirstLivePointAfterReplayTest {

    private static final UUID GUID = UUID.fromString("b6434ee8-1af2-49c1-9ff7-e43707333033");
    private static final String CHART_ID = "netdata.db_samples_collected";
    /** 1795782814 = #BrCXie, 1795782813 = #BrCXid, 1795782815 = #BrCXif, 1795782816 = #BrCXig. */
    private static final long T = 1_795_782_814L;

    private static final String DEFINITION = "CHART '" + CHART_ID + "' '' 'Netdata Time-Series Collected Samples'"
            + " 'samples/s' 'netdata' 'netdata.db_samples_collected' 'stacked' 131003 1 '' 'pulse' ''\n"
            + "DIMENSION 'tier0' 'tier0' 'incremental' 1 1 ''\n"
            + "CHART_DEFINITION_END " + (T - 114) + " " + T + " " + T + "\n";

    /** The answer to the chart's REPLAY_CHART "true": the point ..814 (617.0329), the state, streaming starts. */
    private static final String ANSWER = "RBEGIN '" + CHART_ID + "'\n"
            + "RBEGIN '' #BrCXid #BrCXie #BrCXie\n"
            + "RSET \"tier0\" @ECDSENhE0BP A\n"
            + "RDSTATE 'tier0' #GYUFEuXQI #HW80V @ECDSENhE0BP @ECDSENhE0BP\n"
            + "RSSTATE #GYUFEuXQI #GYUFEuOOA\n"
            + "REND #B #BrCXgs #BrCXie true  #BrCXid #BrCXie #BrCXie\n";

    @TempDir
    Path dir;

    private Logger parserLog;
    private ListAppender<ILoggingEvent> logged;

    @BeforeEach
    void captureLog() {
        parserLog = (Logger) LoggerFactory.getLogger(ReceiverParser.class);
        logged = new ListAppender<>();
        logged.start();
        parserLog.addAppender(logged);
    }

    @AfterEach
    void releaseLog() {
        parserLog.detachAppender(logged);
        logged.stop();
    }

    @Test
    void aSlotTheChildSentNeitherInItsAnswerNorLiveIsCountedAndLogged() throws Exception {
        try (StorageEngine engine = StorageEngine.open(EngineConfig.defaults(dir))) {
            ReceiverStats stats = new ReceiverStats();
            ReceiverParser p = parser(engine, stats);
            feed(p, DEFINITION + ANSWER
                    // the first live collection of the chart: ..816 (636.2892)
                    + "BEGIN2 '" + CHART_ID + "' #B #BrCXig #\n"
                    + "SET2 'tier0' #HW8+B @ECD4lBIFvAH A\n"
                    + "END2\n");
            // what the child sent is stored, at its slots; ..815 was not sent: a gap, not an invented value
            assertEquals("1795782814=617.0329,1795782815=gap,1795782816=636.2892", stored(engine));
            List<String> lines = infoLines();
            assertEquals(1, lines.size(), String.join("\n", lines));
            assertTrue(lines.get(0).contains("host 'nd2child' (" + GUID + "): chart '" + CHART_ID + "': the child sent"
                    + " no point for 1795782815..1795782815 (1 slot(s)): its replay answer that started streaming ended"
                    + " at 1795782814, its first live point is at 1795782816"), lines.get(0));
            assertEquals(1, stats.slotsSkippedAtStreamingStart.sum());
            // the chart's next collections are not the first after the answer any more
            feed(p, "BEGIN2 '" + CHART_ID + "' #B #BrCXih #\n"
                    + "SET2 'tier0' #HW9H9 @ECD4lBIFvAH A\n"
                    + "END2\n");
            assertEquals(1, infoLines().size());
            assertEquals(1, stats.slotsSkippedAtStreamingStart.sum());
        }
    }

    @Test
    void aFirstLivePointRightAfterTheAnswerIsNoHole() throws Exception {
        try (StorageEngine engine = StorageEngine.open(EngineConfig.defaults(dir))) {
            ReceiverStats stats = new ReceiverStats();
            ReceiverParser p = parser(engine, stats);
            feed(p, DEFINITION + ANSWER
                    + "BEGIN2 '" + CHART_ID + "' #B #BrCXif #\n"
                    + "SET2 'tier0' #HW8+B @ECDYAW8AaNu A\n"
                    + "END2\n");
            assertEquals("1795782814=617.0329,1795782815=620.0028", stored(engine));
            assertEquals(List.of(), infoLines());
            assertEquals(0, stats.slotsSkippedAtStreamingStart.sum());
        }
    }

    /** {@code REPLAY_CHART "true" 0 0} answered without a window: there is no end to compare with. */
    @Test
    void anAnswerWithoutAWindowIsNotCompared() throws Exception {
        try (StorageEngine engine = StorageEngine.open(EngineConfig.defaults(dir))) {
            ReceiverStats stats = new ReceiverStats();
            ReceiverParser p = parser(engine, stats);
            feed(p, DEFINITION
                    + "RBEGIN '" + CHART_ID + "'\n"
                    + "RDSTATE 'tier0' #GYUFEuXQI #HW80V @ECDSENhE0BP @ECDSENhE0BP\n"
                    + "RSSTATE #GYUFEuXQI #GYUFEuOOA\n"
                    + "REND #B #BrCXgs #BrCXie true  #A #A #BrCXie\n"
                    + "BEGIN2 '" + CHART_ID + "' #B #BrCXig #\n"
                    + "SET2 'tier0' #HW8+B @ECD4lBIFvAH A\n"
                    + "END2\n");
            assertEquals("1795782816=636.2892", stored(engine));
            assertEquals(List.of(), infoLines());
            assertEquals(0, stats.slotsSkippedAtStreamingStart.sum());
        }
    }

    private List<String> infoLines() {
        return logged.list.stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.INFO))
                .map(ILoggingEvent::getFormattedMessage).toList();
    }

    private static String stored(StorageEngine engine) throws IOException {
        MetadataStore meta = engine.metadata();
        int metric = meta.metrics(meta.chartId(GUID, CHART_ID)).get(0);
        TreeMap<Long, String> points = new TreeMap<>();
        engine.queryTier0(metric, T - 5, T + 5, (time, sn) -> points.put(time, StorageNumber.isEmpty(sn) ? "gap"
                : String.format("%.4f", StorageNumber.unpack(sn))));
        StringBuilder out = new StringBuilder();
        points.forEach((time, v) -> out.append(out.length() > 0 ? "," : "").append(time).append('=').append(v));
        return out.toString();
    }

    private static ReceiverParser parser(StorageEngine engine, ReceiverStats stats) {
        HostInfo host = new HostInfo(GUID, "nd2child", "linux", "UTC", 1, null);
        return new ReceiverParser(engine, host, line -> { }, ReceiverReplication.NONE, true,
                ReceiverLimits.DEFAULTS, stats, () -> (T + 3) * 1_000_000L, null);
    }

    private static void feed(ReceiverParser p, String lines) throws StreamProtocolException {
        for (String l : lines.split("\n")) {
            byte[] b = l.getBytes(StandardCharsets.UTF_8);
            p.line(b, 0, b.length);
        }
    }
}
