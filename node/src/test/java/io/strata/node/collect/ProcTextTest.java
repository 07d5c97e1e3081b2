package io.strata.node.collect;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProcTextTest {

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void findsLinesAndWordsInPlace() {
        byte[] b = ascii("cpu  10 20\n\n  eth0: 5 6\nlast");
        ProcText t = new ProcText(" \t:").parse(b, b.length);
        assertEquals(4, t.lines());
        assertEquals(3, t.words(0));
        assertEquals(0, t.words(1));
        assertEquals(3, t.words(2));
        assertTrue(t.is(2, 0, ascii("eth0")));
        assertEquals(6, t.longAt(2, 2));
        assertEquals("last", t.string(3, 0));
        assertEquals(0, t.longAt(0, 7), "a word past the end reads as 0");
        assertTrue(t.startsWith(0, 0, ascii("cp")));
        assertFalse(t.is(0, 0, ascii("cp")));
        assertEquals(2, t.findLine(ascii("eth0")));
        assertEquals(-1, t.findLine(ascii("eth1")));
    }

    @Test
    void parsesNumbersFromBytes() {
        byte[] b = ascii("0.98 1.5 9383.32 -2 18446744073709551615 12abc 7");
        ProcText t = new ProcText(" ").parse(b, b.length);
        assertEquals(980, t.scaledAt(0, 0, 1000));
        assertEquals(1500, t.scaledAt(0, 1, 1000));
        assertEquals(9_383_320, t.scaledAt(0, 2, 1000));
        assertEquals(-2, t.longAt(0, 3));
        assertEquals(-1, t.longAt(0, 4), "an unsigned 64-bit counter wraps like Netdata's collected_number");
        assertEquals(12, t.longAt(0, 5));
        assertEquals(7000, t.scaledAt(0, 6, 1000));
    }

    @Test
    void reusesItsArraysAcrossParses() {
        ProcText t = new ProcText(" ");
        StringBuilder big = new StringBuilder();
        for (int i = 0; i < 2000; i++) {
            big.append("w").append(i).append(' ').append(i).append('\n');
        }
        byte[] b = ascii(big.toString());
        t.parse(b, b.length);
        assertEquals(2000, t.lines());
        assertEquals(1999, t.longAt(1999, 1));
        byte[] small = ascii("a 1\n");
        t.parse(small, small.length);
        assertEquals(1, t.lines());
        assertEquals(1, t.longAt(0, 1));
    }
}
