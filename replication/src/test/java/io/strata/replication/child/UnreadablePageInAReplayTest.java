package io.strata.replication.child;

import io.netty.channel.embedded.EmbeddedChannel;
import io.strata.engine.DiskFormat;
import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.HostInfo;
import io.strata.streaming.child.LocalCharts;
import io.strata.streaming.handshake.Capabilities;
import io.strata.streaming.sender.SenderSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static io.strata.replication.child.ChildParentWire.collectOnePass;
import static io.strata.replication.child.ChildParentWire.command;
import static io.strata.replication.child.ChildParentWire.host;
import static io.strata.replication.child.ChildParentWire.oneDimensionChart;
import static io.strata.replication.child.ChildParentWire.senderSettings;
import static io.strata.replication.child.ChildParentWire.session;
import static io.strata.replication.child.ChildParentWire.written;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A child asked to replay a range whose middle page is on a disk that fails its read sends every
 * readable point of the range: those before the page and those after it, each at its own second
 * with its own value, and nothing for the page's seconds. The page's slots are all that is lost,
 * as in Netdata 1.37.1's engine, which gives the pages of an extent it cannot read as empty slots
 * and goes on with the next page. The answer once lost every point after the page in the engine's
 * read window (up to 1024 seconds): the read of the unreadable extent ended the window's read.
 */
class UnreadablePageInAReplayTest {

    private static final UUID HOST = UUID.fromString("0d9f6e3c-5b1a-4f7e-9a51-00000000000e");
    private static final long T = ChildParentWire.T;
    private static final String CHART = "strata.synthetic_0";
    private static final long CAPS = LocalHostStreamer.CHILD_CAPABILITIES
            & ~(Capabilities.INTERPOLATED | Capabilities.IEEE754);
    /** Seconds a page: three pages, each flushed into an extent of its own. */
    private static final int PAGE = 100;

    @TempDir
    Path dir;

    private final ChildParentWire.TestClock clock = new ChildParentWire.TestClock();

    @Test
    void everyReadablePointOfTheRangeIsSentAndOnlyTheUnreadablePageIsMissing() throws Exception {
        HostInfo host = host(HOST, "child-1");
        EngineConfig config = EngineConfig.defaults(dir.resolve("child")).withTiers(1);
        try (StorageEngine earlierDb = StorageEngine.open(config)) {
            LocalCharts earlier = new LocalCharts(earlierDb, host);
            LocalCharts.Chart c = oneDimensionChart(earlier, HOST, CHART);
            for (int page = 0; page < 3; page++) {
                for (long s = T + page * PAGE; s < T + (page + 1) * PAGE; s++) {
                    collectOnePass(clock, earlier, c, s, 5000 + (s - T));
                }
                earlierDb.flush();
            }
        }
        String request = "REPLAY_CHART \"" + CHART + "\" \"false\" " + (T - 1) + " " + (T + 3 * PAGE - 1);

        UnreadableDatafiles io = new UnreadableDatafiles();
        Map<Long, String> healthy = points(answer(config.withIo(io), host, request));
        List<Long> extents = io.positionsRead();
        // the datafile's superblock, read when the engine opens; extents come after it
        extents.removeIf(position -> position < DiskFormat.DATAFILE_SUPERBLOCK_SIZE);
        assertEquals(3, extents.size(), "the answer read three extents: " + extents);
        // every second the child stored is in the healthy answer, at its second, with its value
        assertEquals(T + 1, healthy.keySet().iterator().next(), "the first point after the first collection");
        for (long s = T + 1; s < T + 3 * PAGE; s++) {
            assertEquals(String.valueOf(5000 + (s - T)), healthy.get(s), "the healthy answer at T+" + (s - T));
        }

        io.failAt(extents.get(1));
        String damagedAnswer = answer(config.withIo(io), host, request);
        assertTrue(io.failedReads() > 0, "the answer tried to read the middle extent");
        Map<Long, String> damaged = points(damagedAnswer);
        Map<Long, String> expected = new LinkedHashMap<>(healthy);
        expected.keySet().removeIf(s -> s >= T + PAGE && s < T + 2 * PAGE);
        assertEquals(expected, damaged, "every point before and after the unreadable page, none of its seconds:\n"
                + damagedAnswer);
        assertTrue(damagedAnswer.contains("\nREND "), "the answer ends: " + damagedAnswer);
    }

    /** The answer of a child on a fresh engine (nothing cached) to {@code request}. */
    private String answer(EngineConfig config, HostInfo host, String request) throws Exception {
        EmbeddedChannel channel = new EmbeddedChannel();
        try (StorageEngine childDb = StorageEngine.open(config)) {
            LocalCharts local = new LocalCharts(childDb, host);
            oneDimensionChart(local, HOST, CHART);
            try (LocalHostStreamer streamer = new LocalHostStreamer(local, senderSettings(), 1, null, clock)) {
                clock.setMicros((T + 3 * PAGE + 60) * 1_000_000L);
                SenderSession session = session("child-1", channel, CAPS);
                streamer.onConnected(session, CAPS);
                written(channel); // the definitions
                command(streamer, session, request);
                return written(channel);
            }
        } finally {
            channel.finishAndReleaseAll();
        }
    }

    /**
     * The answer's points as second (RBEGIN's end) to the value of its one RSET; every RBEGIN must
     * cover one second ending at its end and carry a value.
     */
    private static Map<Long, String> points(String answer) {
        Map<Long, String> out = new LinkedHashMap<>();
        List<String> lines = new ArrayList<>(List.of(answer.split("\n")));
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i);
            if (!l.startsWith("RBEGIN '' ")) {
                continue;
            }
            String[] b = l.split(" ");
            long start = Long.parseLong(b[2]);
            long end = Long.parseLong(b[3]);
            assertEquals(end - 1, start, "a point of one second: " + l);
            String set = lines.get(i + 1);
            assertTrue(set.startsWith("RSET \"d0\" "), "RBEGIN followed by its RSET: " + l + " / " + set);
            String value = set.split(" ")[2];
            // the values are integers; the text may carry decimals
            out.put(end, String.valueOf(Math.round(Double.parseDouble(value))));
            assertTrue(Math.abs(Double.parseDouble(value) - Math.round(Double.parseDouble(value))) < 1e-6, set);
        }
        return out;
    }
}
