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
 * A Netdata 1.37.1 child's replay answer whose collection state was read while its collector was
 * inside {@code rrdset_timed_done()}: {@code RSSTATE} gives the last collected time of a collection
 * whose slot is not stored yet (last updated a second behind), and the answer's points end at that
 * last updated second. 1.37.1 moves {@code last_collected_time} first, decides in
 * {@code rrdset_done_push()} whether the collection is streamed (not while the chart replicates),
 * and stores the slot and moves {@code last_updated} last; {@code replicate_chart_collection_state()}
 * reads both without a lock. That collection is then in neither the answer nor the stream, and its
 * slot is on the child only.
 *
 * <p>The lines are a real 1.37.1 child's answer for {@code netdata.clients} (captured on a
 * reconnection: its definition, the last replayed points, the state, the first live collection)
 * with the state moved one collection on, as such a read leaves it. The receiver stores the slot
 * empty (it has nothing to store there), and counts and logs it as the child's loss, so that a
 * comparison of the child's data with the parents' (it-tests) tells it from a loss of a parent.
 */
class StateReadDuringACollectionTest {

    private static final UUID GUID = UUID.fromString("4e0bd4c4-60a8-11f1-9d0b-0242ac110002");
    private static final String CHART_ID = "netdata.clients";
    private static final long T = 1_795_263_132L;

    private static final String DEFINITION = "CHART \"" + CHART_ID + "\" \"\" \"Netdata Web Clients\""
            + " \"connected clients\" \"api\" \"netdata.clients\" \"line\" 130200 1 \"   \" \"netdata\" \"stats\"\n"
            + "CLABEL \"_collect_plugin\" \"netdata\" 536870913\n"
            + "CLABEL \"_collect_module\" \"stats\" 536870913\n"
            + "CLABEL_COMMIT\n"
            + "DIMENSION \"clients\" \"clients\" \"absolute\" 1 1 \"  \"\n"
            + "CHART_DEFINITION_END 1795263063 " + (T - 1) + " " + T + "\n";

    private static final String POINTS = "RBEGIN \"" + CHART_ID + "\"\n"
            + "RBEGIN '' " + (T - 2) + " " + (T - 1) + " " + (T + 1) + "\n"
            + "RSET \"clients\" 3.0000000 \"\"\n"
            + "RBEGIN '' " + (T - 1) + " " + T + " " + (T + 1) + "\n"
            + "RSET \"clients\" 4.0000000 \"\"\n";

    /** The first live collection after the answer: 1.000017 s after the collection the state names. */
    private static final String LIVE = "BEGIN \"" + CHART_ID + "\" 1000017\n"
            + "SET \"clients\" = 6\n"
            + "END\n";

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
    void aSlotTheStateSaysWasCollectedButTheAnswerLacksIsCountedAndLoggedAsTheChildsLoss() throws Exception {
        try (StorageEngine engine = StorageEngine.open(EngineConfig.defaults(dir))) {
            ReceiverStats stats = new ReceiverStats();
            ReceiverParser p = parser(engine, stats);
            feed(p, DEFINITION + POINTS
                    // collected at T+1.026470 (the dimension's SET time too), last updated still T
                    + "RDSTATE \"clients\" " + (T + 1) + "026470 4 4.0000000 4.0000000\n"
                    + "RSSTATE " + (T + 1) + "026470 " + T + "000000\n"
                    + "REND 1 1795263063 " + T + " true " + (T - 2) + " " + T + " " + (T + 1) + "\n"
                    + LIVE);
            // T+1 was collected by the child (its value 5 is on no wire): a gap, not an invented value
            assertEquals((T - 1) + "=3.0000," + T + "=4.0000," + (T + 1) + "=gap," + (T + 2) + "=6.0000",
                    stored(engine));
            List<String> lines = infoLines();
            assertEquals(1, lines.size(), String.join("\n", lines));
            assertTrue(lines.get(0).contains("host 'ndchild' (" + GUID + "): chart '" + CHART_ID + "': the child sent"
                    + " no point for " + (T + 1) + ".." + (T + 1) + " (1 slot(s)): its replay answer's state (RSSTATE)"
                    + " put its last collection at " + (T + 1) + ".026470, past these slots it had not stored"),
                    lines.get(0));
            assertEquals(1, stats.slotsSkippedAtStreamingStart.sum());
            // the next collections continue from a whole state: nothing more is told
            feed(p, "BEGIN \"" + CHART_ID + "\" 999990\nSET \"clients\" = 7\nEND\n");
            assertEquals(1, infoLines().size());
            assertEquals(1, stats.slotsSkippedAtStreamingStart.sum());
        }
    }

    @Test
    void aWholeStateLeavesNoSlotOut() throws Exception {
        try (StorageEngine engine = StorageEngine.open(EngineConfig.defaults(dir))) {
            ReceiverStats stats = new ReceiverStats();
            ReceiverParser p = parser(engine, stats);
            // the captured answer as it was: collected at T.026470, last updated T
            feed(p, DEFINITION + POINTS
                    + "RDSTATE \"clients\" " + T + "026470 4 4.0000000 4.0000000\n"
                    + "RSSTATE " + T + "026470 " + T + "000000\n"
                    + "REND 1 1795263063 " + T + " true " + (T - 2) + " " + T + " " + T + "\n"
                    + LIVE);
            assertEquals((T - 1) + "=3.0000," + T + "=4.0000," + (T + 1) + "=6.0000", stored(engine));
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
        HostInfo host = new HostInfo(GUID, "ndchild", "linux", "UTC", 1, null);
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
