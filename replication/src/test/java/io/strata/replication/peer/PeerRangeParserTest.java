package io.strata.replication.peer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.strata.engine.EngineConfig;
import io.strata.engine.FsyncPolicy;
import io.strata.engine.StorageEngine;
import io.strata.engine.page.StorageNumber;
import io.strata.replication.sender.PastRangeAnswer;
import io.strata.replication.sender.ReplayAnswer;
import io.strata.streaming.sender.HostStreamWriter;
import io.strata.streaming.sender.SenderWireFormat;
import io.strata.streaming.sender.SystemCpuReplayCapture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static io.strata.streaming.sender.SystemCpuReplayCapture.CHILD;
import static io.strata.streaming.sender.SystemCpuReplayCapture.CPU_DIMS;
import static io.strata.streaming.sender.SystemCpuReplayCapture.NOW;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The peer replay's text against a real engine holding the 1.37.1 capture's system.cpu: its points
 * are the lines a stream's replay answer carries for the same window, and read back they are the
 * engine's own storage numbers; malformed answers are refused whole.
 */
class PeerRangeParserTest {

    @TempDir
    Path dir;
    private StorageEngine engine;

    @AfterEach
    void close() throws IOException {
        if (engine != null) {
            engine.close();
        }
    }

    @Test
    void theAnswersPointsAreTheStreamReplaysLinesAndReadBackAsTheStoredNumbers() throws Exception {
        engine = StorageEngine.open(EngineConfig.defaults(dir).withFsync(FsyncPolicy.NEVER));
        int chart = SystemCpuReplayCapture.defineSystemCpu(engine);
        SystemCpuReplayCapture.Capture c = SystemCpuReplayCapture.capture();
        SystemCpuReplayCapture.storeSystemCpu(engine, chart, c);
        long after = 1795263100L;
        long before = 1795263130L;

        ByteBuf replay = Unpooled.buffer();
        ByteBuf peer = Unpooled.buffer();
        try {
            HostStreamWriter child = new HostStreamWriter(engine, CHILD, null, HostStreamWriter.LabelSources.NETDATA,
                    id -> 0, () -> NOW, HostStreamWriter.DEFAULT_CLOCK_RESYNC_ITERATIONS);
            new ReplayAnswer(child).write(replay, chart, false, after, before, NOW, SystemCpuReplayCapture.state(c));
            assertEquals(PastRangeAnswer.Outcome.ANSWERED,
                    PastRangeAnswer.write(engine, CHILD, "system.cpu", after, before, NOW, peer));
            byte[] body = new byte[peer.readableBytes()];
            peer.getBytes(peer.readerIndex(), body);
            // text() releases the buffer
            List<String> streamLines = List.of(SystemCpuReplayCapture.text(replay).split("\n"));
            List<String> peerLines = List.of(SystemCpuReplayCapture.text(peer).split("\n"));
            // the same RBEGIN and points; only REND differs (first/last as the engine holds them)
            assertEquals(streamLines.subList(0, streamLines.size() - 1), peerLines.subList(0, peerLines.size() - 1));
            assertEquals(1 + 30 * (1 + CPU_DIMS.length) + 1, peerLines.size());

            byte[][] ids = new byte[CPU_DIMS.length][];
            for (int d = 0; d < ids.length; d++) {
                ids[d] = SenderWireFormat.utf8(CPU_DIMS[d]);
            }
            int[][] out = new int[ids.length][64];
            PeerRangeParser parser = new PeerRangeParser();
            long answeredBefore = parser.parse(body, body.length, "system.cpu", ids, after + 1, 1, 30, out);
            assertEquals(before, answeredBefore);
            assertEquals(30 * CPU_DIMS.length, parser.values());
            List<Integer> metrics = engine.metadata().metrics(chart);
            for (int d = 0; d < ids.length; d++) {
                int[] stored = new int[30];
                int dim = d;
                engine.queryTier0(metrics.get(d), after + 1, before, (t, sn) -> stored[(int) (t - after - 1)] = sn);
                assertArrayEquals(stored, Arrays.copyOf(out[dim], 30), "dimension " + CPU_DIMS[d]);
            }
        } finally {
            for (ByteBuf b : new ByteBuf[] {replay, peer}) {
                if (b.refCnt() > 0) {
                    b.release();
                }
            }
        }
    }

    @Test
    void flagsGapsAndPointsOffTheAskedSlots() throws Exception {
        String answer = """
                RBEGIN "a.b"
                RBEGIN '' 99 100 200
                RSET "x" 1.5000000 ""
                RSET "y" NAN "E"
                RBEGIN '' 100 101 200
                RSET "x" 2.0000000 "R"
                RSET "unknown" 3.0000000 ""
                RSET "y" 4.0000000 ""
                RBEGIN '' 150 150 200
                RSET "x" 9.0000000 ""
                RBEGIN '' 102 103 200
                RSET "x" 9.0000000 ""
                REND 1 1 300 false 99 102 200
                """;
        int[][] out = new int[2][8];
        PeerRangeParser parser = new PeerRangeParser();
        byte[] b = answer.getBytes(StandardCharsets.US_ASCII);
        byte[][] ids = {SenderWireFormat.utf8("x"), SenderWireFormat.utf8("y")};
        assertEquals(102, parser.parse(b, b.length, "a.b", ids, 100, 1, 3, out));
        assertEquals(StorageNumber.pack(1.5, StorageNumber.SN_DEFAULT_FLAGS), out[0][0]);
        assertEquals(StorageNumber.pack(2.0, StorageNumber.SN_DEFAULT_FLAGS | StorageNumber.SN_FLAG_RESET), out[0][1]);
        assertEquals(StorageNumber.SN_EMPTY_SLOT, out[1][0]);
        assertEquals(StorageNumber.pack(4.0, StorageNumber.SN_DEFAULT_FLAGS), out[1][1]);
        // 150 and 103 are not slots of [100, 102]
        assertEquals(StorageNumber.SN_EMPTY_SLOT, out[0][2]);
        assertEquals(3, parser.values());
    }

    @Test
    void aMalformedAnswerIsRefusedWhole() {
        byte[][] ids = {SenderWireFormat.utf8("x")};
        int[][] out = new int[1][4];
        PeerRangeParser parser = new PeerRangeParser();
        for (String bad : new String[] {
            "RBEGIN \"other.chart\"\nRBEGIN '' 99 100 200\nRSET \"x\" 1 \"\"\nREND 1 1 300 false 99 100 200\n",
            "RBEGIN \"a.b\"\nRBEGIN '' 99 100 200\nRSET \"x\" 1 \"\"\n",
            "<html>Unsupported v1 API command: replay_chart</html>\n",
            "RBEGIN '' 99 100 200\nRSET \"x\" 1 \"\"\nREND 1 1 300 false 99 100 200\n",
            "RBEGIN \"a.b\"\nREND 1 1\n",
        }) {
            byte[] b = bad.getBytes(StandardCharsets.US_ASCII);
            assertThrows(PeerRangeParser.MalformedAnswerException.class,
                    () -> parser.parse(b, b.length, "a.b", ids, 100, 1, 3, out), bad);
        }
    }
}
