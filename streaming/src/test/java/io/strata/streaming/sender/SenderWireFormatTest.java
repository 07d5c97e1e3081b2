package io.strata.streaming.sender;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.strata.engine.page.StorageNumber;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SenderWireFormatTest {

    private static String text(ByteBuf b) {
        try {
            return b.toString(StandardCharsets.UTF_8);
        } finally {
            b.release();
        }
    }

    private static String fixed7(double v) {
        ByteBuf b = Unpooled.buffer();
        SenderWireFormat.writeFixed7(b, v);
        return text(b);
    }

    /** What glibc's printf("%0.7f") prints: the exact binary value, half-to-even, sign kept. */
    private static String reference(double v) {
        String s = new BigDecimal(v).setScale(7, RoundingMode.HALF_EVEN).toPlainString();
        if ((Double.doubleToRawLongBits(v) < 0) && !s.startsWith("-")) {
            s = "-" + s;
        }
        return s;
    }

    /** Every captured line, written again through SenderWireFormat, is byte-identical. */
    @ParameterizedTest
    @ValueSource(strings = {"child-preamble.txt", "child-first-charts.txt", "child-system-cpu-definition.txt",
            "child-chart-variable.txt", "child-host-variable.txt", "child-system-cpu-collection.txt",
            "conn3-system-cpu-definition.txt", "conn3-system-cpu-replay.txt"})
    void rewritesEveryCapturedLineByteForByte(String file) throws Exception {
        String captured = VectorLines.resource(file);
        List<String> lines = VectorLines.lines(file);
        assertTrue(lines.size() >= 1);
        ByteBuf out = Unpooled.buffer();
        for (String l : lines) {
            VectorLines.rewrite(out, l);
        }
        assertEquals(captured, text(out));
    }

    @Test
    void writesTheReplicationKeywordsOfOneAnswer() {
        ByteBuf out = Unpooled.buffer();
        byte[] user = SenderWireFormat.utf8("user");
        SenderWireFormat.replayBegin(out, "system.cpu");
        SenderWireFormat.replayPoint(out, 1795263100L, 1795263101L, 1795263131L);
        SenderWireFormat.replaySet(out, user, 78.2178200, false);
        SenderWireFormat.replaySet(out, user, 1.5, true);
        SenderWireFormat.replaySetEmpty(out, user);
        SenderWireFormat.replaySetStorageNumber(out, user, StorageNumber.SN_EMPTY_SLOT);
        SenderWireFormat.replaySetStorageNumber(out, user,
                StorageNumber.pack(2.5, StorageNumber.SN_FLAG_RESET | StorageNumber.SN_FLAG_NOT_ANOMALOUS));
        SenderWireFormat.replayDimensionState(out, user, 1795263131356027L, 40168, 89.6551724137931, 89.6551724);
        SenderWireFormat.replayChartState(out, 1795263131356031L, 1795263131000000L);
        SenderWireFormat.replayEnd(out, 1, 1795263063L, 1795263131L, false, 1795263100L, 1795263131L, 1795263131L);
        assertEquals("""
                RBEGIN "system.cpu"
                RBEGIN '' 1795263100 1795263101 1795263131
                RSET "user" 78.2178200 ""
                RSET "user" 1.5000000 "R"
                RSET "user" NAN "E"
                RSET "user" nan ""
                RSET "user" 2.5000000 "R"
                RDSTATE "user" 1795263131356027 40168 89.6551724 89.6551724
                RSSTATE 1795263131356031 1795263131000000
                REND 1 1795263063 1795263131 false 1795263100 1795263131 1795263131
                """, text(out));
    }

    @Test
    void writesFunctionResultsAndChartFunctions() {
        ByteBuf out = Unpooled.buffer();
        SenderWireFormat.function(out, "processes", 10, "Detailed information on the currently running processes.");
        SenderWireFormat.functionResultBegin(out, "a1b2c3", 200, "application/json", 1795263140L);
        out.writeCharSequence("{\"status\":200}", StandardCharsets.UTF_8);
        SenderWireFormat.functionResultEnd(out);
        assertEquals("FUNCTION \"processes\" 10 \"Detailed information on the currently running processes.\"\n"
                + "FUNCTION_RESULT_BEGIN \"a1b2c3\" 200 \"application/json\" 1795263140\n"
                + "{\"status\":200}\nFUNCTION_RESULT_END\n", text(out));
    }

    @Test
    void chartNameFieldFollowsTheCSender() {
        assertEquals("", SenderWireFormat.chartNameField("system.cpu", "system.cpu"));
        assertEquals("", SenderWireFormat.chartNameField("system.cpu", ""));
        assertEquals("eth0", SenderWireFormat.chartNameField("net.enp1s0", "net.eth0"));
        assertEquals("", SenderWireFormat.chartNameField("net.enp1s0", "nodot"));
    }

    @Test
    void optionsSlotsKeepTheirPositions() {
        ByteBuf out = Unpooled.buffer();
        SenderWireFormat.chart(out, "a.b", "", "t", "u", "f", "c", "line", -5, 10,
                SenderWireFormat.CHART_OBSOLETE | SenderWireFormat.CHART_HIDDEN, "", "");
        SenderWireFormat.dimension(out, "d", "d", "incremental", -1, 3, false, false, true);
        assertEquals("CHART \"a.b\" \"\" \"t\" \"u\" \"f\" \"c\" \"line\" -5 10 \"obsolete   hidden\" \"\" \"\"\n"
                + "DIMENSION \"d\" \"d\" \"incremental\" -1 3 \"  noreset\"\n", text(out));
    }

    @Test
    void quotedFieldsCannotBreakTheLine() {
        ByteBuf out = Unpooled.buffer();
        SenderWireFormat.label(out, "na\"me", 2, "two\nlines\r");
        SenderWireFormat.set(out, "ünï", -9223372036854775808L);
        assertEquals("LABEL \"na'me\" = 2 \"two lines \"\nSET \"ünï\" = -9223372036854775808\n", text(out));
    }

    @Test
    void unquotedWordsWithSeparatorsAreRefused() {
        ByteBuf out = Unpooled.buffer();
        try {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> SenderWireFormat.hostVariable(out, "a b", 1));
            assertTrue(e.getMessage().contains("'a b'"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> SenderWireFormat.claimedId(out, "", null));
            assertThrows(IllegalArgumentException.class, () -> SenderWireFormat.chartVariable(out, "x=y", 1));
        } finally {
            out.release();
        }
    }

    @Test
    void unsignedNumbersPrintAsCDoes() {
        ByteBuf out = Unpooled.buffer();
        SenderWireFormat.writeUnsigned(out, -1);
        out.writeByte(' ');
        SenderWireFormat.writeUnsigned(out, 0);
        out.writeByte(' ');
        SenderWireFormat.writeLong(out, Long.MAX_VALUE);
        assertEquals("18446744073709551615 0 9223372036854775807", text(out));
    }

    @Test
    void fixed7MatchesGlibcOnChosenValues() {
        assertEquals("2.0000000", fixed7(2.0));
        assertEquals("32768.0000000", fixed7(32768));
        assertEquals("0.0000000", fixed7(0.0));
        assertEquals("-0.0000000", fixed7(-0.0));
        assertEquals("-0.0000000", fixed7(-1e-9));
        assertEquals("0.0000001", fixed7(1e-7));
        assertEquals("-1.0000000", fixed7(-1.0));
        // a tie in binary: glibc rounds half to even, Java's %.7f would give 0.0039063
        assertEquals("0.0039062", fixed7(0.00390625));
        assertEquals("0.0117188", fixed7(0.01171875));
        assertEquals("89.6551724", fixed7(89.6551724137931));
        assertEquals("0.4926108", fixed7(0.49261083743842365));
        assertEquals("25276514304.0000000", fixed7(25276514304.0));
        assertEquals("nan", fixed7(Double.NaN));
        assertEquals("-nan", fixed7(Double.longBitsToDouble(0xFFF8000000000000L)));
        assertEquals("inf", fixed7(Double.POSITIVE_INFINITY));
        assertEquals("-inf", fixed7(Double.NEGATIVE_INFINITY));
        assertEquals("0.0000000", fixed7(Double.MIN_VALUE));
        assertEquals(reference(Double.MAX_VALUE), fixed7(Double.MAX_VALUE));
        assertEquals("1000000000000000.0000000", fixed7(1e15));
        assertEquals("9223372036854775808.0000000", fixed7(0x1p63));
        assertEquals("-12345678901234567741440.0000000", fixed7(-1.2345678901234568e22));
    }

    @Test
    void fixed7MatchesTheExactDecimalExpansionOnRandomDoubles() {
        Random r = new Random(0x5EED_37L);
        for (int i = 0; i < 200_000; i++) {
            double v;
            switch (i % 5) {
                case 0 -> v = r.nextDouble() * 100;
                case 1 -> v = (r.nextDouble() - 0.5) * Math.pow(10, r.nextInt(40) - 20);
                case 2 -> v = Double.longBitsToDouble(r.nextLong());
                case 3 -> v = Math.round(r.nextDouble() * 1e9) / 1e7 + (r.nextBoolean() ? 5e-8 : 0);
                default -> v = StorageNumber.unpack(r.nextInt());
            }
            if (Double.isNaN(v) || Double.isInfinite(v)) {
                continue;
            }
            String want = reference(v);
            String got = fixed7(v);
            if (!want.equals(got)) {
                assertEquals(want, got, "value bits " + Long.toHexString(Double.doubleToRawLongBits(v)) + " seed 0x5EED37");
            }
        }
    }
}
