package io.strata.streaming.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CNumbersTest {

    @Test
    void decimalHexAndOctalLikeBaseZero() {
        assertEquals(16376, CNumbers.strtoul("16376"));
        assertEquals(16376, CNumbers.strtoul("0x3ff8"));
        assertEquals(16376, CNumbers.strtoul("0X3FF8"));
        assertEquals(8, CNumbers.strtoul("010"));
        assertEquals(0, CNumbers.strtoul("0"));
        assertEquals(7, CNumbers.strtoll("+7"));
    }

    @Test
    void stopsAtTheFirstNonDigitAndSkipsLeadingWhiteSpace() {
        assertEquals(42, CNumbers.strtoll("  \t42abc"));
        assertEquals(0, CNumbers.strtoll("abc"));
        assertEquals(0, CNumbers.strtoll(""));
        assertEquals(0, CNumbers.strtoll(null));
        // "0x" without a hex digit after it is the number 0 followed by garbage
        assertEquals(0, CNumbers.strtoul("0xg"));
        // '8' is not an octal digit: "08" reads as 0
        assertEquals(0, CNumbers.strtoul("08"));
        assertEquals(-600, CNumbers.strtol("-600 seconds"));
    }

    @Test
    void unsignedNegationAndSaturation() {
        assertEquals(-1L, CNumbers.strtoul("-1"), "strtoul(\"-1\") is 2^64-1");
        assertEquals(-1L, CNumbers.strtoul("99999999999999999999999"));
        assertEquals(Long.MAX_VALUE, CNumbers.strtoll("99999999999999999999999"));
        assertEquals(Long.MIN_VALUE, CNumbers.strtoll("-99999999999999999999999"));
        assertEquals(Long.MIN_VALUE, CNumbers.strtoll("-9223372036854775808"));
        assertEquals(Long.MAX_VALUE, CNumbers.strtoll("9223372036854775808"));
        assertEquals(-1L, CNumbers.strtoul("18446744073709551615"));
        assertEquals(-1L, CNumbers.strtoul("18446744073709551616"), "one more saturates");
        assertEquals(4294967295L, CNumbers.strtoul("4294967295"));
    }

    @Test
    void cSpaceIsTheSixClassicCharacters() {
        for (char c : new char[] {' ', '\t', '\n', 0x0B, '\f', '\r'}) {
            assertTrue(CNumbers.isCSpace(c), "char " + (int) c);
        }
        assertFalse(CNumbers.isCSpace((char) 0));
        assertFalse(CNumbers.isCSpace('\u00A0'));
        assertFalse(CNumbers.isCSpace((char) 0x1F));
    }
}
