package io.strata.streaming.collect;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class AlgorithmTest {

    @Test
    void namesAreNetdataWordsAndParseBack() {
        assertEquals("absolute", Algorithm.ABSOLUTE.netdataName());
        assertEquals("incremental", Algorithm.INCREMENTAL.netdataName());
        assertEquals("percentage-of-absolute-row", Algorithm.PERCENTAGE_OF_ABSOLUTE_ROW.netdataName());
        assertEquals("percentage-of-incremental-row", Algorithm.PERCENTAGE_OF_INCREMENTAL_ROW.netdataName());
        for (Algorithm a : Algorithm.values()) {
            assertEquals(a, Algorithm.parse(a.netdataName()));
            String text = "DIMENSION \"x\" \"x\" \"" + a.netdataName() + "\" 1 1";
            byte[] line = text.getBytes(StandardCharsets.US_ASCII);
            int s = text.indexOf(a.netdataName());
            assertEquals(a, Algorithm.parse(line, s, s + a.netdataName().length()));
        }
    }

    @Test
    void unknownEmptyOrDifferentlyCasedNamesAreAbsoluteAsInNetdata() {
        assertEquals(Algorithm.ABSOLUTE, Algorithm.parse("Incremental"));
        assertEquals(Algorithm.ABSOLUTE, Algorithm.parse("incremental "));
        assertEquals(Algorithm.ABSOLUTE, Algorithm.parse(""));
        assertEquals(Algorithm.ABSOLUTE, Algorithm.parse((String) null));
        assertEquals(Algorithm.ABSOLUTE, Algorithm.parse("percentage-of-row".getBytes(StandardCharsets.US_ASCII), 0, 17));
        assertEquals(Algorithm.ABSOLUTE, Algorithm.parse(new byte[0], 0, 0));
    }

    @Test
    void rangeOutsideTheBufferIsRejected() {
        byte[] b = "incremental".getBytes(StandardCharsets.US_ASCII);
        assertThrows(IndexOutOfBoundsException.class, () -> Algorithm.parse(b, 3, 40));
        assertThrows(IndexOutOfBoundsException.class, () -> Algorithm.parse(b, 5, 2));
        assertThrows(IndexOutOfBoundsException.class, () -> Algorithm.parse(null, 0, 0));
    }
}
